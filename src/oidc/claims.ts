import type { MemberRow } from '../service/index.js';

/** What the provider's sessions record when a second factor's code, or a passkey, was given (acr), and the methods used (amr). */
export const MULTI_FACTOR_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';

/**
 * The claims of each scope; `sub` is the member's id. How and when the member signed in (amr, acr, auth_time)
 * come with openid, so that every ID token says it.
 */
export const SCOPE_CLAIMS = {
  openid: ['sub', 'auth_time', 'acr', 'amr'],
  profile: ['name', 'given_name', 'family_name'],
  email: ['email'],
  membership: ['is_member', 'roles'],
} as const;

/** A member's claims; a fact the member record does not know is left out. */
export function memberClaims(member: MemberRow): Record<string, unknown> {
  const name = `${member.firstName} ${member.lastName}`.trim();
  const { isMember, roles } = member.attributes;
  return {
    sub: member.id,
    ...(name ? { name } : {}),
    ...(member.firstName ? { given_name: member.firstName } : {}),
    ...(member.lastName ? { family_name: member.lastName } : {}),
    ...(member.email ? { email: member.email } : {}),
    ...(isMember === undefined ? {} : { is_member: isMember }),
    roles: (roles ?? []).map((role) => ({ id: role.id, name: role.name })),
  };
}

/**
 * How the member signed in, as the ID token says it (RFC 8176 methods): a password, with a one-time code, or a
 * passkey: a key held by an authenticator (`hwk`) used after it verified the member (`user`: presence and its
 * PIN or biometric), two factors (`mfa`), which meets the multi-factor acr.
 */
export function authenticationMethods(signedIn: { secondFactor: boolean; passkey: boolean }): { amr: string[]; acr?: string } {
  if (signedIn.passkey) return { amr: ['hwk', 'user', 'mfa'], acr: MULTI_FACTOR_ACR };
  return signedIn.secondFactor ? { amr: ['pwd', 'otp'], acr: MULTI_FACTOR_ACR } : { amr: ['pwd'] };
}
