/**
 * How a sign-in attempt ended, as the sign-in pages log it and the metrics count it: the password step
 * (`second-factor` when a code or a set-up comes next), then the second step (`signed-in`, `invalid-code`,
 * `throttled`, `expired` for a challenge too old or not the service's own), and a passkey's sign-in (`signed-in`,
 * `unknown-passkey`, `invalid-passkey`, `member-disabled`, `throttled`, `expired`). One list for all, so that every
 * outcome the pages can log has its metrics series from the start.
 */
export const SIGN_IN_ATTEMPT_OUTCOMES = [
  'signed-in',
  'invalid',
  'throttled',
  'incomplete',
  'refused:csrf',
  'second-factor',
  'invalid-code',
  'expired',
  'unknown-passkey',
  'invalid-passkey',
  'member-disabled',
] as const;

export type SignInAttemptOutcome = (typeof SIGN_IN_ATTEMPT_OUTCOMES)[number];
