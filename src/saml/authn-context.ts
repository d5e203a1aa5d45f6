import type { AuthnRequestMsg } from './inbound/messages.js';

/** The AuthnContext classes of a sign-in: the password over TLS, or with a second factor's code (REFEDS MFA). */
export const PASSWORD_CONTEXT = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
export const MULTI_FACTOR_CONTEXT = 'https://refeds.org/profile/mfa';

/** The classes this identity provider can assert, weakest first: their strength is their place here. */
const OFFERED = [PASSWORD_CONTEXT, MULTI_FACTOR_CONTEXT] as const;

/**
 * The classes of those offered that meet a RequestedAuthnContext, by its Comparison (SAML core 3.3.2.2.1):
 * `exact` one of those named; `minimum` at least as strong as one of them; `better` stronger than one of them;
 * `maximum` no stronger than one of them. Classes this IdP does not know are no measure of strength: they meet
 * nothing. Empty: the request cannot be met (NoAuthnContext). Declaration references are not offered.
 */
export function acceptableContexts(requested: NonNullable<AuthnRequestMsg['requestedAuthnContext']>): string[] {
  const ranks = requested.classRefs.map((ref) => OFFERED.indexOf(ref as (typeof OFFERED)[number])).filter((rank) => rank >= 0);
  if (ranks.length === 0) return [];
  const weakest = Math.min(...ranks);
  const strongest = Math.max(...ranks);
  const meets: Record<typeof requested.comparison, (rank: number) => boolean> = {
    exact: (rank) => ranks.includes(rank),
    minimum: (rank) => rank >= weakest,
    better: (rank) => rank > weakest,
    maximum: (rank) => rank <= strongest,
  };
  return OFFERED.filter((_context, rank) => meets[requested.comparison](rank));
}
