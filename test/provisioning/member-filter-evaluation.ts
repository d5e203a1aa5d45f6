/**
 * The store's member filters (MemberFilter, src/store/rows.ts) evaluated in memory over a member, as plainly as
 * the type's comment says, for fakes of the store's search: texts by code point, ignoring ASCII case unless
 * caseExact; an absent field (null, or an empty text) fails every comparison; ne is not eq.
 */
import type { MemberFilter, MemberSearchField } from '../../src/service/index.js';
import type { ProvisionedMember } from '../../src/provisioning/port.js';

type Value = string | number | boolean | undefined;

function fullName(member: ProvisionedMember): string {
  return member.formattedName ?? [member.firstName, member.lastName].filter(Boolean).join(' ');
}

function fieldOf(member: ProvisionedMember, field: MemberSearchField, role?: { id: string; name: string }): Value {
  const { attributes } = member;
  const values: Record<MemberSearchField, () => Value> = {
    id: () => member.id,
    externalId: () => member.externalId ?? undefined,
    username: () => member.username,
    email: () => member.email,
    firstName: () => member.firstName,
    lastName: () => member.lastName,
    fullName: () => fullName(member),
    shownName: () => member.displayName ?? fullName(member),
    enabled: () => member.enabled,
    createdAt: () => member.createdAt,
    updatedAt: () => member.updatedAt,
    isMember: () => attributes.isMember,
    contactNumber: () => attributes.contactNumber,
    labelName: () => attributes.labelName,
    organisationId: () => attributes.organisationId,
    organisationName: () => attributes.organisationName,
    priceLevelId: () => attributes.priceLevelId,
    priceLevelName: () => attributes.priceLevelName,
    title: () => attributes.profile?.title,
    preferredLanguage: () => attributes.profile?.preferredLanguage,
    locale: () => attributes.profile?.locale,
    timezone: () => attributes.profile?.timezone,
    employeeNumber: () => attributes.profile?.employeeNumber,
    organization: () => attributes.profile?.organization,
    department: () => attributes.profile?.department,
    roleId: () => role?.id,
    roleName: () => role?.name,
  };
  const value = values[field]();
  return value === '' ? undefined : value;
}

/** `left operator right` of two values already folded as the comparison asks; ne is the caller's (not eq). */
export function holdsOperator(left: string | number | boolean, operator: string, right: string | number | boolean): boolean {
  switch (operator) {
    case 'eq':
      return left === right;
    case 'co':
      return String(left).includes(String(right));
    case 'sw':
      return String(left).startsWith(String(right));
    case 'ew':
      return String(left).endsWith(String(right));
    case 'gt':
      return left > right;
    case 'ge':
      return left >= right;
    case 'lt':
      return left < right;
    default:
      return left <= right;
  }
}

/** ASCII letters lowered, as SQLite's lower() lowers them. */
export const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

function compared(actual: string | number | boolean, operator: string, wanted: string | number | boolean, caseExact: boolean): boolean {
  const [left, right] = typeof actual === 'string' && typeof wanted === 'string' && !caseExact ? [asciiLower(actual), asciiLower(wanted)] : [actual, wanted];
  return holdsOperator(left, operator, right);
}

export function meetsMemberFilter(member: ProvisionedMember, filter: MemberFilter, role?: { id: string; name: string }): boolean {
  switch (filter.kind) {
    case 'constant':
      return filter.value;
    case 'present':
      return fieldOf(member, filter.field, role) !== undefined;
    case 'compare': {
      const actual = fieldOf(member, filter.field, role);
      const equal = actual !== undefined && compared(actual, filter.operator === 'ne' ? 'eq' : filter.operator, filter.value, filter.caseExact);
      return filter.operator === 'ne' ? !equal : equal;
    }
    case 'and':
      return filter.filters.every((inner) => meetsMemberFilter(member, inner, role));
    case 'or':
      return filter.filters.some((inner) => meetsMemberFilter(member, inner, role));
    case 'not':
      return !meetsMemberFilter(member, filter.filter, role);
    case 'anyRole':
      return (member.attributes.roles ?? []).some((each) => meetsMemberFilter(member, filter.filter, each));
  }
}
