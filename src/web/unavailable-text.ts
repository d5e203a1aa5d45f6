/**
 * What a client is told, on every protocol, when the store cannot be used (a full disk, a read-only or locked
 * database, a server down or out of reach): a passing condition, to try again later.
 */
export const STORE_UNAVAILABLE_TEXT = 'The service cannot use its database at the moment; try again later.';

/**
 * What a member's browser is shown when the store cannot be written (a full disk, a read-only or locked
 * database), on the sign-in pages and the OpenID provider's pages alike: come back later, nothing is wrong.
 */
export const SIGN_IN_UNAVAILABLE = {
  title: 'Sign-in is temporarily unavailable',
  message: 'The service cannot sign you in at the moment. Nothing is wrong with your account: please try again in a few minutes.',
} as const;
