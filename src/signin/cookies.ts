/** The login cookie, as the OpenID provider reads and clears it too (src/web/login-cookie.ts). */
export { cookieValues, loginCookieOptions } from '../web/login-cookie.js';
