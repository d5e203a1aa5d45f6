/** A member as a SCIM User (RFC 7643 §4.1) with this service's extension; never its password. */
import { TEXT_ATTRIBUTES } from '../service/member-attributes.js';
import { PROFILE_ENTERPRISE } from './targets.js';
import { etagOf } from './etag.js';
import { EMAIL_TYPE, namesJoined } from './member-draft.js';
import type { ProvisionedMember } from './port.js';
import { ENTERPRISE_EXTENSION, MEMBER_EXTENSION, USER_SCHEMA } from './urns.js';

export type ScimUser = Record<string, unknown>;

/** `name.formatted`: as a client wrote it, else the given and family names. */
function formattedName(member: ProvisionedMember): string {
  return member.formattedName ?? namesJoined(member.firstName, member.lastName);
}

/** The object without the members whose value is undefined. */
function present(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function membershipOf(member: ProvisionedMember): Record<string, unknown> | undefined {
  const { attributes } = member;
  const fields = present({
    isMember: attributes.isMember,
    ...Object.fromEntries(TEXT_ATTRIBUTES.map((key) => [key, attributes[key]])),
    extra: attributes.extra,
  });
  return Object.keys(fields).length > 0 ? fields : undefined;
}

/** `location` is the member's URL: meta.location, and the Location of a create. */
export function userResource(member: ProvisionedMember, location: string): ScimUser {
  const formatted = formattedName(member);
  const name = present({ formatted: formatted || undefined, familyName: member.lastName || undefined, givenName: member.firstName || undefined });
  const membership = membershipOf(member);
  const roles = member.attributes.roles ?? [];
  const profile = member.attributes.profile ?? {};
  const enterprise = present(Object.fromEntries(PROFILE_ENTERPRISE.map((key) => [key, profile[key]])));
  const enterpriseKept = Object.keys(enterprise).length > 0;
  return present({
    schemas: [USER_SCHEMA, ...(membership ? [MEMBER_EXTENSION] : []), ...(enterpriseKept ? [ENTERPRISE_EXTENSION] : [])],
    id: member.id,
    externalId: member.externalId ?? undefined,
    userName: member.username,
    name: Object.keys(name).length > 0 ? name : undefined,
    displayName: member.displayName ?? (formatted || undefined),
    emails: member.email ? [{ value: member.email, type: EMAIL_TYPE, primary: true }] : undefined,
    active: member.enabled,
    roles: roles.length > 0 ? roles.map((role) => ({ value: role.id, display: role.name })) : undefined,
    // The same roles, as the Groups the member is in (read-only: /Groups and roles change them).
    groups: roles.length > 0 ? roles.map((role) => ({ value: role.id, display: role.name })) : undefined,
    title: profile.title,
    preferredLanguage: profile.preferredLanguage,
    locale: profile.locale,
    timezone: profile.timezone,
    phoneNumbers: profile.phoneNumbers,
    addresses: profile.addresses,
    [MEMBER_EXTENSION]: membership,
    [ENTERPRISE_EXTENSION]: enterpriseKept ? enterprise : undefined,
    meta: {
      resourceType: 'User',
      created: new Date(member.createdAt).toISOString(),
      lastModified: new Date(member.updatedAt).toISOString(),
      location,
      version: etagOf(member.version),
    },
  });
}
