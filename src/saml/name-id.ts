import { randomBytes } from 'node:crypto';
import type { MemberRow } from '../service/index.js';
import type { SamlNameIdFormat } from '../service/saml/index.js';

/** The NameID Format URIs (SAML core 8.3) of the formats an SP may be given. */
export const NAME_ID_FORMATS: Readonly<Record<SamlNameIdFormat, string>> = {
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
};

/** The format a Format URI names, when it is one offered; `unspecified` leaves the choice to the SP's setting. */
export function nameIdFormatOf(uri: string | undefined): SamlNameIdFormat | 'unspecified' | undefined {
  if (uri === undefined || uri === 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified') return 'unspecified';
  const found = Object.entries(NAME_ID_FORMATS).find(([, value]) => value === uri);
  return found?.[0] as SamlNameIdFormat | undefined;
}

/**
 * The member's NameID in a format: persistent is the member's id (stable, opaque to the SP), emailAddress the
 * member's address (null when the member has none), transient a random value for this one session.
 */
export function nameIdOf(member: MemberRow, format: SamlNameIdFormat): string | null {
  switch (format) {
    case 'persistent':
      return member.id;
    case 'emailAddress':
      return member.email || null;
    case 'transient':
      return `_${randomBytes(20).toString('hex')}`;
  }
}
