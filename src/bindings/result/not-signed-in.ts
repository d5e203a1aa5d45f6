import type { OperationName } from '../../service/wsdl-types.js';

/**
 * The in-band "nobody is signed in" texts, one per operation, stable and documented in the README.
 * iBridge clients match on the text: one containing "token" makes the PHP client sign the visitor out,
 * which is right for both operations; the reason (unknown, expired, revoked…) stays in our logs.
 */
export const NOT_SIGNED_IN: Record<OperationName, { number: number; description: string }> = {
  AuthenticateToken: { number: 1001, description: 'Invalid token: no live session has this token' },
  AuthenticateCookie: { number: 1002, description: 'Invalid login cookie: no live session token was issued for this cookie and domain' },
};
