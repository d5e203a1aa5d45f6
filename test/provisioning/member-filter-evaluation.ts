/**
 * The store's member filters (MemberFilter, src/store/rows.ts) evaluated in memory over a member, as plainly as
 * the type's comment says, for fakes of the store's search: texts by code point, ignoring ASCII case unless
 * caseExact; an absent field (null, or an empty text) fails every comparison; ne is not eq.
 */
import type { ElementField, MemberFilter, MemberSearchField, MemberValueList } from '../../src/service/index.js';
import type { ProvisionedMember } from '../../src/provisioning/port.js';

type Value = string | number | boolean | undefined;

function fullName(member: ProvisionedMember): string {
  return member.formattedName ?? [member.firstName, member.lastName].filter(Boolean).join(' ');
}

type Element = Record<string, string | boolean | undefined>;

function fieldOf(member: ProvisionedMember, field: MemberSearchField, element?: Element): Value {
  if (field.startsWith('element.')) {
    const value = element?.[field.slice('element.'.length)];
    return value === '' ? undefined : value;
  }
  const { attributes } = member;
  const values: Record<Exclude<MemberSearchField, ElementField>, () => Value> = {
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
  };
  const value = values[field as Exclude<MemberSearchField, ElementField>]();
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

/** The values of a list of the member's. */
function listOf(member: ProvisionedMember, list: MemberValueList): Element[] {
  return ((list === 'roles' ? member.attributes.roles : member.attributes.profile?.[list]) ?? []) as Element[];
}

export function meetsMemberFilter(member: ProvisionedMember, filter: MemberFilter, element?: Element): boolean {
  switch (filter.kind) {
    case 'constant':
      return filter.value;
    case 'present':
      return fieldOf(member, filter.field, element) !== undefined;
    case 'compare': {
      const actual = fieldOf(member, filter.field, element);
      const equal = actual !== undefined && compared(actual, filter.operator === 'ne' ? 'eq' : filter.operator, filter.value, filter.caseExact);
      return filter.operator === 'ne' ? !equal : equal;
    }
    case 'and':
      return filter.filters.every((inner) => meetsMemberFilter(member, inner, element));
    case 'or':
      return filter.filters.some((inner) => meetsMemberFilter(member, inner, element));
    case 'not':
      return !meetsMemberFilter(member, filter.filter, element);
    case 'anyValue':
      return listOf(member, filter.list).some((each) => meetsMemberFilter(member, filter.filter, each));
  }
}
