import type { MemberAttributes, MemberProfile, ProfileText, ProfileValue } from '../store/store.js';
import { ServiceError } from './errors.js';
import { EXTRA_KEY } from './extra-key.js';

/** The bounds keep one member's attributes small: partners receive them with every verification. */
const MAX_TEXT_LENGTH = 256;
const MAX_ROLES = 100;
const MAX_EXTRA_KEYS = 50;
const MAX_EXTRA_VALUE_LENGTH = 1024;


/** The profile's texts, and its lists' most values. */
export const PROFILE_TEXTS: readonly ProfileText[] = ['title', 'preferredLanguage', 'locale', 'timezone', 'employeeNumber', 'organization', 'department'];
export const PROFILE_LISTS = ['phoneNumbers', 'addresses'] as const;
const MAX_PROFILE_VALUES = 10;
/** The sub-attributes a profile value keeps: texts, and primary. */
export const PROFILE_VALUE_TEXTS = ['value', 'display', 'type', 'formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country'] as const satisfies ReadonlyArray<keyof ProfileValue>;

/** The attributes that are one text each. */
export const TEXT_ATTRIBUTES = ['contactNumber', 'labelName', 'organisationId', 'organisationName', 'priceLevelId', 'priceLevelName'] as const;

/**
 * A role written `id:name` (the CLI's --role, the import's roles column), split at its first ':' so that a name
 * may hold more; null without one. The parts are checked with the rest of the attributes.
 */
export function parseRole(pair: string): { id: string; name: string } | null {
  const colon = pair.indexOf(':');
  return colon < 0 ? null : { id: pair.slice(0, colon), name: pair.slice(colon + 1) };
}

function invalid(reason: string): ServiceError {
  return new ServiceError('MEMBER_INVALID', reason);
}

/** Trimmed; undefined when empty, so that an empty value is no value. */
function text(name: string, value: string | undefined, maxLength = MAX_TEXT_LENGTH): string | undefined {
  const trimmed = (value ?? '').trim();
  if (trimmed.length > maxLength) throw invalid(`${name} is longer than ${maxLength} characters`);
  return trimmed || undefined;
}

function roles(input: MemberAttributes['roles']): MemberAttributes['roles'] {
  if (input === undefined || input.length === 0) return undefined;
  if (input.length > MAX_ROLES) throw invalid(`a member has at most ${MAX_ROLES} roles`);
  const ids = new Set<string>();
  return input.map((role, index) => {
    const id = text(`role ${index + 1}'s id`, role.id);
    const name = text(`role ${index + 1}'s name`, role.name);
    if (id === undefined || name === undefined) throw invalid(`role ${index + 1} needs an id and a name`);
    if (ids.has(id)) throw invalid(`two roles have the id "${id}"`);
    ids.add(id);
    return { id, name };
  });
}

function extra(input: MemberAttributes['extra']): MemberAttributes['extra'] {
  const entries = Object.entries(input ?? {});
  if (entries.length > MAX_EXTRA_KEYS) throw invalid(`a member has at most ${MAX_EXTRA_KEYS} extra attributes`);
  const kept = entries.flatMap(([key, value]) => {
    if (!EXTRA_KEY.test(key)) {
      throw invalid(`the extra attribute "${key}" needs a name of letters, digits, _, . and - (64 at most) that starts with a letter or _`);
    }
    const checked = text(`the extra attribute "${key}"`, value, MAX_EXTRA_VALUE_LENGTH);
    return checked === undefined ? [] : [[key, checked] as const];
  });
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

function profileValue(list: string, index: number, input: ProfileValue): ProfileValue | undefined {
  const value: ProfileValue = definedOnly(Object.fromEntries(PROFILE_VALUE_TEXTS.map((key) => [key, text(`${list} ${index + 1}'s ${key}`, input[key])])));
  if (typeof input.primary === 'boolean') value.primary = input.primary;
  return Object.keys(value).length > 0 ? value : undefined;
}

function profile(input: MemberProfile | undefined): MemberProfile | undefined {
  if (input === undefined) return undefined;
  const checked: MemberProfile = definedOnly(Object.fromEntries(PROFILE_TEXTS.map((key) => [key, text(key, input[key])])));
  for (const list of PROFILE_LISTS) {
    const values = input[list] ?? [];
    if (values.length > MAX_PROFILE_VALUES) throw invalid(`a member has at most ${MAX_PROFILE_VALUES} ${list}`);
    const kept = values.flatMap((value, index) => profileValue(list, index, value) ?? []);
    if (kept.length > 0) checked[list] = kept;
  }
  return Object.keys(checked).length > 0 ? checked : undefined;
}

/**
 * The attributes as stored: texts trimmed, empty ones (and empty role lists and extras) left out, so that "not
 * known" has one form. Throws MEMBER_INVALID with the first problem found.
 */
export function validateAttributes(input: MemberAttributes): MemberAttributes {
  const checked: MemberAttributes = {
    isMember: input.isMember,
    ...Object.fromEntries(TEXT_ATTRIBUTES.map((key) => [key, text(key, input[key])])),
    roles: roles(input.roles),
    extra: extra(input.extra),
    profile: profile(input.profile),
  };
  return definedOnly(checked);
}

/** The object without its undefined-valued keys. */
export function definedOnly<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}
