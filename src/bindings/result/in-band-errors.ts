import type { Outcome } from '../../service/authentication.js';

/** An error reported inside the result string (HTTP 200), as iBridge's Errors/Error and CRM4M's message. */
export interface InBandError {
  number: number;
  description: string;
}

/**
 * The in-band errors, stable and documented in docs/wire-format.md. iBridge clients match the description:
 * "token" (any case) signs the visitor out, "invalid username" is bad credentials, anything else reads as an
 * outage. So a missing session says "token" (for a cookie too: signing the visitor out is right there as
 * well), wrong credentials say "Invalid username", and a lock says neither, and when to retry.
 */
export const IN_BAND_ERRORS = {
  tokenNotSignedIn: { number: 1001, description: 'Invalid token: no live session has this token' },
  cookieNotSignedIn: { number: 1002, description: 'Invalid login cookie: no live session token was issued for this cookie and domain' },
  sessionNotDeleted: { number: 1003, description: 'Invalid token: no live session has this token to delete' },
  invalidCredentials: { number: 1004, description: 'Invalid username or password' },
  // The vendor's own number and text, which partner code already handles by asking for the code.
  secondFactorRequired: { number: 16000, description: 'Multi factor Authenticator token is required.' },
  locked: (retryAfterSeconds: number): InBandError => ({
    number: 1005,
    description: `Sign-in is locked after repeated failures for this account or address; try again in ${retryAfterSeconds} seconds`,
  }),
} as const;

/** The in-band error of a refused outcome. */
export function inBandError(outcome: Extract<Outcome, { kind: 'refused' }>): InBandError {
  const { refusal, operation } = outcome;
  switch (refusal.kind) {
    case 'not-signed-in':
      if (operation === 'AuthenticateCookie') return IN_BAND_ERRORS.cookieNotSignedIn;
      return operation === 'DeleteUserSession' ? IN_BAND_ERRORS.sessionNotDeleted : IN_BAND_ERRORS.tokenNotSignedIn;
    case 'invalid-credentials':
      return IN_BAND_ERRORS.invalidCredentials;
    case 'locked':
      return IN_BAND_ERRORS.locked(refusal.retryAfterSeconds);
    case 'second-factor-required':
      return IN_BAND_ERRORS.secondFactorRequired;
  }
}
