/**
 * The pauses before each further attempt to tell a site of a logout over its back channel (OpenID back-channel
 * logout, SAML's SOAP single logout): a site that is down for a minute still hears of it.
 */
export const LOGOUT_RETRY_DELAYS_MS: readonly number[] = [1_000, 10_000, 60_000];
