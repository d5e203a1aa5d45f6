/**
 * A member being written over SCIM: the fields SCIM changes, with emails and roles as SCIM lists them, so that
 * PATCH operations (patch.ts) can work on them as RFC 7644 describes before they become a member's fields again.
 */
import type { MemberAttributes, MemberProfile, ProfileValue } from '../service/index.js';
import { PROFILE_TEXTS, TEXT_ATTRIBUTES } from '../service/member-attributes.js';
import { badRequest } from './errors.js';
import type { MemberFields, ProvisionedMember } from './port.js';

export type TextAttribute = (typeof TEXT_ATTRIBUTES)[number];

/** One value of a multi-valued attribute (emails, roles, phoneNumbers, addresses), with the sub-attributes SCIM gives them. */
export type MultiValue = ProfileValue;

export type ProfileTextName = (typeof PROFILE_TEXTS)[number];

/** The membership attributes of this service's extension; the extras in a Map, whatever their keys. */
export interface Membership {
  isMember?: boolean;
  texts: Partial<Record<TextAttribute, string>>;
  extra: Map<string, string>;
}

export interface MemberDraft {
  externalId: string | null;
  userName: string;
  givenName: string;
  familyName: string;
  formattedName: string | null;
  displayName: string | null;
  emails: MultiValue[];
  active: boolean;
  roles: MultiValue[];
  phoneNumbers: MultiValue[];
  addresses: MultiValue[];
  /** The profile's texts: title, locale… and the enterprise extension's. */
  profile: Partial<Record<ProfileTextName, string>>;
  membership: Membership;
  /** Set when the request gives a password (null: remove it). */
  password?: string | null;
}

/** The member's one email as SCIM shows it: a work address, the primary one. */
export const EMAIL_TYPE = 'work';

/** SCIM's name.formatted when none was written: the given and family names. */
export function namesJoined(givenName: string, familyName: string): string {
  return [givenName.trim(), familyName.trim()].filter(Boolean).join(' ');
}

export function emptyMembership(): Membership {
  return { texts: {}, extra: new Map() };
}

function membershipOf(attributes: MemberAttributes): Membership {
  const texts: Membership['texts'] = {};
  for (const key of TEXT_ATTRIBUTES) {
    const value = attributes[key];
    if (value !== undefined) texts[key] = value;
  }
  const membership: Membership = { texts, extra: new Map(Object.entries(attributes.extra ?? {})) };
  if (attributes.isMember !== undefined) membership.isMember = attributes.isMember;
  return membership;
}

/** A draft holding nothing (a create starts from it); active, as SCIM's clients expect a new user to be. */
export function emptyDraft(): MemberDraft {
  return { externalId: null, userName: '', givenName: '', familyName: '', formattedName: null, displayName: null, emails: [], active: true, roles: [], phoneNumbers: [], addresses: [], profile: {}, membership: emptyMembership() };
}

export function draftOf(member: ProvisionedMember): MemberDraft {
  return {
    externalId: member.externalId,
    userName: member.username,
    givenName: member.firstName,
    familyName: member.lastName,
    formattedName: member.formattedName,
    displayName: member.displayName,
    emails: member.email ? [{ value: member.email, type: EMAIL_TYPE, primary: true }] : [],
    active: member.enabled,
    roles: (member.attributes.roles ?? []).map((role) => ({ value: role.id, display: role.name })),
    phoneNumbers: structuredClone(member.attributes.profile?.phoneNumbers ?? []),
    addresses: structuredClone(member.attributes.profile?.addresses ?? []),
    profile: Object.fromEntries(PROFILE_TEXTS.flatMap((key) => (member.attributes.profile?.[key] === undefined ? [] : [[key, member.attributes.profile[key]]]))),
    membership: membershipOf(member.attributes),
  };
}

/**
 * The one address a member keeps, of a list of emails (values without an address drop out); a list that one
 * address cannot keep as it was sent is refused: two addresses, or one of a type other than work or not primary.
 */
function theEmail(emails: readonly MultiValue[]): string {
  const withAddress = emails.filter((email) => email.value?.trim());
  const addresses = new Set(withAddress.map((email) => email.value?.trim()));
  if (addresses.size > 1) throw badRequest('invalidValue', `a User has one email address here, not ${addresses.size}`);
  for (const { type, primary } of withAddress) {
    if (type !== undefined && type.toLowerCase() !== EMAIL_TYPE) throw badRequest('invalidValue', `the email address is of type ${EMAIL_TYPE}, not "${type}"`);
    if (primary === false) throw badRequest('invalidValue', 'the email address is the primary one');
  }
  return withAddress[0]?.value ?? '';
}

/** Roles by id (SCIM's value), in first-seen order, each named by its last display (its id without one). */
function rolesOf(values: readonly MultiValue[]): Array<{ id: string; name: string }> {
  const names = new Map<string, string>();
  for (const { value, display } of values) if (value) names.set(value, display || names.get(value) || value);
  return [...names].map(([id, name]) => ({ id, name }));
}

/** The profile as the service keeps it (texts and values checked there); undefined when it holds nothing. */
function profileOf(draft: MemberDraft): MemberProfile | undefined {
  const profile: MemberProfile = {
    ...draft.profile,
    ...(draft.phoneNumbers.length > 0 ? { phoneNumbers: draft.phoneNumbers } : {}),
    ...(draft.addresses.length > 0 ? { addresses: draft.addresses } : {}),
  };
  return Object.keys(profile).length > 0 ? profile : undefined;
}

function attributesOf(draft: MemberDraft): MemberAttributes {
  const { isMember, texts, extra } = draft.membership;
  const roles = rolesOf(draft.roles);
  const profile = profileOf(draft);
  return {
    ...(isMember === undefined ? {} : { isMember }),
    ...texts,
    ...(roles.length > 0 ? { roles } : {}),
    ...(extra.size > 0 ? { extra: Object.fromEntries(extra) } : {}),
    ...(profile === undefined ? {} : { profile }),
  };
}

export function fieldsOf(draft: MemberDraft): MemberFields {
  const fields: MemberFields = {
    externalId: draft.externalId,
    username: draft.userName,
    email: theEmail(draft.emails),
    firstName: draft.givenName,
    lastName: draft.familyName,
    displayName: draft.displayName,
    // The names joined, as the service shows them without one, are kept as none: they follow the names then.
    formattedName: draft.formattedName?.trim() === namesJoined(draft.givenName, draft.familyName) ? null : draft.formattedName,
    enabled: draft.active,
    attributes: attributesOf(draft),
  };
  if (draft.password !== undefined) fields.password = draft.password;
  return fields;
}
