/**
 * What an attribute path names in a member draft: the SCIM User attributes this service keeps and its extension's
 * (schemas.ts describes the same to clients). Attributes of other schemas, and core User attributes it does not
 * keep (title, phoneNumbers, addresses…, which Entra ID maps by default), are ignored, as RFC 7644 §3.3 lets a
 * service provider ignore what it does not store; a sub-attribute that an attribute kept here does not have is an
 * error. A name that no attribute of the User schema has (`constructor`, `shoeSize`) is an error in a PATCH
 * (invalidPath) and ignored in a POST or PUT body. Names are looked up in Maps, never as an object's properties, so
 * that `constructor` or `__proto__` finds nothing.
 */
import { TEXT_ATTRIBUTES } from '../service/member-attributes.js';
import { attributeName } from './attribute-names.js';
import { badRequest, type ScimType } from './errors.js';
import { conjuncts, type AttributePath, type Filter, type Literal } from './filter-syntax.js';
import type { MemberDraft, MultiValue, ProfileTextName, TextAttribute } from './member-draft.js';
import { booleanValue, optionalText, textValue } from './values.js';

/** A single-valued attribute: how a value is set (checked and converted) and how it is unassigned. */
export interface Single {
  label: string;
  set(draft: MemberDraft, value: unknown): void;
  unset(draft: MemberDraft): void;
}

export type MultiName = 'emails' | 'roles' | 'phoneNumbers' | 'addresses';
export type SubName = keyof MultiValue;
/**
 * The sub-attributes of the multi-valued attributes the service keeps, as /Schemas lists them: a path or a filter
 * naming another is refused, and a value object's others are ignored (Entra ID sends roles with type and primary).
 */
export const KEPT_SUBS: Readonly<Record<MultiName, readonly SubName[]>> = {
  emails: ['value', 'type', 'primary'],
  roles: ['value', 'display'],
  phoneNumbers: ['value', 'display', 'type', 'primary'],
  addresses: ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type', 'primary'],
};
/** The multi-valued attributes by lower-cased name. */
const MULTI_NAMES = new Map<string, MultiName>((Object.keys(KEPT_SUBS) as MultiName[]).map((name) => [name.toLowerCase(), name]));

/** The sub-attribute of the attribute's that a name (in any case) names. */
export function keptSub(attribute: MultiName, name: string): SubName | undefined {
  const lower = name.toLowerCase();
  return KEPT_SUBS[attribute].find((sub) => sub.toLowerCase() === lower);
}

/** One comparison of a value filter: a sub-attribute eq a value. */
export interface ElementTerm {
  sub: SubName;
  value: Literal;
}

export type Target =
  | { kind: 'ignored' }
  | { kind: 'readOnly'; label: string }
  | { kind: 'single'; attribute: Single }
  /** A complex attribute whose sub-attributes a value object sets: name, the extension, its extras. */
  | { kind: 'complex'; scope: 'name' | 'membership' | 'extra' | 'enterprise' }
  /** A multi-valued attribute; `where` holds the comparisons of a value filter (`emails[type eq "work"]`). */
  | { kind: 'multi'; attribute: MultiName; where?: ElementTerm[]; sub?: SubName };

const required = (label: string) => () => {
  throw badRequest('mutability', `${label} cannot be removed`);
};

const CORE_SINGLES = new Map<string, Single>(Object.entries({
  username: {
    label: 'userName',
    set: (draft, value) => {
      if (value === null) required('userName')();
      draft.userName = textValue(value, 'userName');
    },
    unset: required('userName'),
  },
  externalid: { label: 'externalId', set: (draft, value) => (draft.externalId = optionalText(value, 'externalId')), unset: (draft) => (draft.externalId = null) },
  displayname: { label: 'displayName', set: (draft, value) => (draft.displayName = optionalText(value, 'displayName')), unset: (draft) => (draft.displayName = null) },
  active: { label: 'active', set: (draft, value) => (draft.active = booleanValue(value, 'active')), unset: required('active') },
  password: { label: 'password', set: (draft, value) => (draft.password = value === null ? null : textValue(value, 'password')), unset: (draft) => (draft.password = null) },
} satisfies Record<string, Single>));

const NAME_PARTS = new Map<string, Single>(Object.entries({
  givenname: { label: 'name.givenName', set: (draft, value) => (draft.givenName = optionalText(value, 'name.givenName') ?? ''), unset: (draft) => (draft.givenName = '') },
  familyname: { label: 'name.familyName', set: (draft, value) => (draft.familyName = optionalText(value, 'name.familyName') ?? ''), unset: (draft) => (draft.familyName = '') },
  formatted: { label: 'name.formatted', set: (draft, value) => (draft.formattedName = optionalText(value, 'name.formatted')), unset: (draft) => (draft.formattedName = null) },
} satisfies Record<string, Single>));
/** Parts of a name the service does not keep. */
const IGNORED_NAME_PARTS = new Set(['middlename', 'honorificprefix', 'honorificsuffix']);
/** Set by the service alone. */
const READ_ONLY = new Set(['id', 'meta', 'groups', 'schemas']);
/** The core User attributes (RFC 7643 §4.1) this service does not keep, in lower case: /Schemas does not list them. */
const NOT_KEPT = new Set(['nickname', 'profileurl', 'usertype', 'ims', 'photos', 'entitlements', 'x509certificates']);
/** The enterprise extension's attributes this service does not keep (manager, costCenter, division). */
const PROFILE_CORE: readonly ProfileTextName[] = ['title', 'preferredLanguage', 'locale', 'timezone'];
export const PROFILE_ENTERPRISE: readonly ProfileTextName[] = ['employeeNumber', 'organization', 'department'];

function profileText(key: ProfileTextName): Single {
  return {
    label: key,
    set: (draft, value) => {
      const text = optionalText(value, key);
      if (text === null) delete draft.profile[key];
      else draft.profile[key] = text;
    },
    unset: (draft) => delete draft.profile[key],
  };
}

const byLowerName = (keys: readonly ProfileTextName[]) => new Map(keys.map((key) => [key.toLowerCase(), profileText(key)] as const));
const PROFILE_CORE_SINGLES = byLowerName(PROFILE_CORE);
const ENTERPRISE_SINGLES = byLowerName(PROFILE_ENTERPRISE);

function textAttribute(key: TextAttribute): Single {
  return {
    label: key,
    set: (draft, value) => {
      const text = optionalText(value, key);
      if (text === null) delete draft.membership.texts[key];
      else draft.membership.texts[key] = text;
    },
    unset: (draft) => delete draft.membership.texts[key],
  };
}

const IS_MEMBER: Single = {
  label: 'isMember',
  set: (draft, value) => {
    if (value === null) delete draft.membership.isMember;
    else draft.membership.isMember = booleanValue(value, 'isMember');
  },
  unset: (draft) => delete draft.membership.isMember,
};

const MEMBERSHIP_SINGLES = new Map<string, Single>([['ismember', IS_MEMBER], ...TEXT_ATTRIBUTES.map((key) => [key.toLowerCase(), textAttribute(key)] as const)]);

/** At most this many extras in a draft; the service keeps fewer, this only bounds the work on one request. */
const MAX_DRAFT_EXTRAS = 1000;

/** One of the member's extra attributes, by its key as written. */
export function extraTarget(key: string): Target {
  return {
    kind: 'single',
    attribute: {
      label: `extra.${key}`,
      set: (draft, value) => {
        const text = optionalText(value, `extra.${key}`);
        if (text === null) return void draft.membership.extra.delete(key);
        if (!draft.membership.extra.has(key) && draft.membership.extra.size >= MAX_DRAFT_EXTRAS) throw badRequest('invalidValue', 'too many extra attributes');
        draft.membership.extra.set(key, text);
      },
      unset: (draft) => void draft.membership.extra.delete(key),
    },
  };
}

/** An attribute of the enterprise extension; manager, costCenter and division are not kept: ignored, as /Schemas does not list them. */
export function enterpriseTarget(label: string): Target {
  const single = ENTERPRISE_SINGLES.get(label.toLowerCase());
  return single === undefined ? { kind: 'ignored' } : { kind: 'single', attribute: single };
}

/** A name.* sub-attribute. */
export function namePart(part: string, scimType: ScimType): Target {
  const lower = part.toLowerCase();
  const single = NAME_PARTS.get(lower);
  if (single) return { kind: 'single', attribute: single };
  if (IGNORED_NAME_PARTS.has(lower)) return { kind: 'ignored' };
  throw badRequest(scimType, `name has no sub-attribute "${part}"`);
}

/** One attribute of this service's extension, by its name without the URN (`extra.KEY` for an extra). */
export function membershipTarget(label: string, scimType: ScimType): Target {
  const dot = label.indexOf('.');
  const name = (dot < 0 ? label : label.slice(0, dot)).toLowerCase();
  if (name === 'extra') return dot < 0 ? { kind: 'complex', scope: 'extra' } : extraTarget(label.slice(dot + 1));
  const single = MEMBERSHIP_SINGLES.get(name);
  if (single === undefined || dot >= 0) throw badRequest(scimType, `the member extension has no attribute "${label}"`);
  return { kind: 'single', attribute: single };
}

function subName(sub: string, attribute: MultiName, scimType: ScimType): SubName {
  const known = keptSub(attribute, sub);
  if (known === undefined) throw badRequest(scimType, `${attribute} has no sub-attribute "${sub}"`);
  return known;
}

/** The comparisons of a PATCH path's value filter, which compares sub-attributes of the attribute with eq, joined by and. */
function elementTerms(filter: Filter, attribute: MultiName): ElementTerm[] {
  return conjuncts(filter).map((term) => {
    if (term.kind !== 'compare' || term.operator !== 'eq') throw badRequest('invalidFilter', `a PATCH path's filter on ${attribute} compares its sub-attributes with eq, joined by and`);
    return { sub: subName(term.attribute, attribute, 'invalidFilter'), value: term.value };
  });
}

function multiTarget(attribute: MultiName, path: AttributePath, dotted: string | undefined, scimType: ScimType): Target {
  if (dotted !== undefined && (path.filter !== undefined || path.sub !== undefined)) throw badRequest(scimType, `"${path.attribute}" cannot take a filter`);
  const sub = dotted ?? path.sub;
  return {
    kind: 'multi',
    attribute,
    ...(path.filter === undefined ? {} : { where: elementTerms(path.filter, attribute) }),
    ...(sub === undefined ? {} : { sub: subName(sub, attribute, scimType) }),
  };
}

/** What a parsed path names; a path this service cannot follow is a 400 of `scimType`. */
export function targetOf(path: AttributePath, scimType: ScimType): Target {
  const { schema, name, sub, label } = attributeName(path.attribute);
  if (schema === 'other') return { kind: 'ignored' };
  const noFilter = () => {
    if (path.filter !== undefined) throw badRequest(scimType, `only emails and roles take a filter, not "${path.attribute}"`);
  };
  if (schema === 'extension') {
    noFilter();
    return name === '' ? { kind: 'complex', scope: 'membership' } : membershipTarget(label, scimType);
  }
  if (schema === 'enterprise') {
    noFilter();
    return name === '' ? { kind: 'complex', scope: 'enterprise' } : enterpriseTarget(label);
  }
  const multi = MULTI_NAMES.get(name);
  if (multi !== undefined) return multiTarget(multi, path, sub, scimType);
  if (name === '') throw badRequest(scimType, `"${path.attribute}" names a schema, not an attribute`);
  if (READ_ONLY.has(name)) return { kind: 'readOnly', label: name };
  const single = CORE_SINGLES.get(name) ?? PROFILE_CORE_SINGLES.get(name);
  if (name !== 'name' && single === undefined) {
    // scimType invalidPath: a PATCH, whose paths (and the keys of its path-less values) name attributes.
    if (NOT_KEPT.has(name) || scimType !== 'invalidPath') return { kind: 'ignored' };
    throw badRequest(scimType, `the User schema has no attribute "${path.attribute}"`);
  }
  noFilter();
  if (single === undefined) return sub === undefined ? { kind: 'complex', scope: 'name' } : namePart(sub, scimType);
  if (sub !== undefined) throw badRequest(scimType, `${single.label} has no sub-attribute "${sub}"`);
  return { kind: 'single', attribute: single };
}
