import type { Response } from 'express';
import { withToken } from '../service/return-urls.js';
import type { IssuedSession } from '../service/sessions.js';
import type { PageKit } from './pages.js';

/**
 * A session was just opened: sets the login cookie (and the token cookie, TOKEN_COOKIE_NAME) and answers
 * where the browser goes next, with the session's token for a partner registered to receive it.
 */
export async function finishSignIn(
  kit: PageKit,
  res: Response,
  issued: IssuedSession,
  form: { remember: boolean; returnUrl: string | undefined },
  ownOrigin: string,
): Promise<string> {
  const { signin, session } = kit.config;
  // "Keep me signed in" makes the cookie outlive the browser, for as long as the session can live.
  const lifetime = form.remember ? { maxAge: session.absoluteTimeoutSeconds * 1000 } : {};
  res.cookie(signin.cookieName, issued.cookie, { ...kit.cookieOptions, ...lifetime });
  // ISGweb's partner plugins read the session token from a cookie of their own on the shared domain.
  if (signin.tokenCookieName) res.cookie(signin.tokenCookieName, issued.token, { ...kit.cookieOptions, ...lifetime });
  const target = await kit.services.returnUrls.resolve(form.returnUrl, ownOrigin);
  return target.appendToken ? withToken(target.location, issued.token) : target.location;
}
