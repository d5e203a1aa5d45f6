import type { MemberRow } from '../service/index.js';
import type { SamlAttribute, SamlMemberField } from '../service/saml/index.js';

/** The NameFormat URIs of an attribute's name (SAML core 8.2): an OID-style URI, or a plain name. */
export const ATTRIBUTE_NAME_FORMATS = {
  uri: 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri',
  basic: 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
} as const;

/** An attribute as the assertion carries it: its name, and the member's values (none, one, or a role each). */
export interface AttributeValues {
  name: string;
  nameFormat: string;
  friendlyName?: string;
  values: string[];
}

/** The member's values of a field; a fact the member record does not know gives none, so the attribute is left out. */
function fieldValues(member: MemberRow, field: SamlMemberField): string[] {
  const present = (value: string | null) => (value ? [value] : []);
  switch (field) {
    case 'id':
      return [member.id];
    case 'username':
      return present(member.username);
    case 'email':
      return present(member.email);
    case 'firstName':
      return present(member.firstName);
    case 'lastName':
      return present(member.lastName);
    case 'displayName':
      return present(member.displayName ?? `${member.firstName} ${member.lastName}`.trim());
    case 'isMember':
      return member.attributes.isMember === undefined ? [] : [String(member.attributes.isMember)];
    case 'roles':
      return (member.attributes.roles ?? []).map((role) => role.name);
  }
}

/** The attributes an SP's settings map the member to, without those the member has no value for. */
export function attributeValues(member: MemberRow, attributes: readonly SamlAttribute[]): AttributeValues[] {
  return attributes
    .map((attribute) => ({
      name: attribute.name,
      nameFormat: ATTRIBUTE_NAME_FORMATS[attribute.nameFormat],
      ...(attribute.friendlyName === undefined ? {} : { friendlyName: attribute.friendlyName }),
      values: fieldValues(member, attribute.field),
    }))
    .filter((attribute) => attribute.values.length > 0);
}
