/**
 * A filter and a sort of /Users (RFC 7644 §3.4.2.2, §3.4.2.3) as the store's member search: each attribute that
 * /Schemas declares, with the case-exactness it declares there, and the common attributes id and meta.created and
 * meta.lastModified. A comparison with an absent attribute is false, and `ne` is `not eq` (so true of an absent
 * attribute); `eq null` asks for an absent attribute, `ne null` for a present one. Strings compare by code point,
 * ignoring case where the schema says caseExact false; booleans compare with eq and ne only, dates (ISO 8601) as
 * instants. Attributes the service does not keep (those of other schemas, password, the extras) cannot be filtered
 * on: 400 invalidFilter, as for any text that is not a filter.
 */
import type { ElementField, MemberFilter, MemberSearchField, MemberSearchOperator, MemberValueList, SearchFilter } from '../service/index.js';
import { attributeName, type AttributeName } from './attribute-names.js';
import { badRequest } from './errors.js';
import type { Filter, Literal, Operator } from './filter-syntax.js';
import { EMAIL_TYPE } from './member-draft.js';
import type { MemberQuery } from './port.js';
import { declaredAttribute } from './schemas.js';
import { queryParameter } from './values.js';

type ValueType = 'string' | 'boolean' | 'dateTime';

/** A store's field (a member's unless said otherwise) as a filter compares it. */
export interface Field<Name extends string = MemberSearchField> {
  field: Name;
  type: ValueType;
  caseExact: boolean;
}

export const refused = (detail: string) => badRequest('invalidFilter', detail);

/** By lower-cased name, in Maps: a name such as `constructor` finds nothing. */
const CORE_FIELDS = new Map<string, MemberSearchField>([
  ['username', 'username'],
  ['displayname', 'shownName'],
  ['active', 'enabled'],
  ['title', 'title'],
  ['preferredlanguage', 'preferredLanguage'],
  ['locale', 'locale'],
  ['timezone', 'timezone'],
]);
const ENTERPRISE_FIELDS = new Map<string, MemberSearchField>([
  ['employeenumber', 'employeeNumber'],
  ['organization', 'organization'],
  ['department', 'department'],
]);
const COMMON_FIELDS = new Map<string, MemberSearchField>([
  ['id', 'id'],
  ['externalid', 'externalId'],
]);
const NAME_FIELDS = new Map<string, MemberSearchField>([
  ['formatted', 'fullName'],
  ['givenname', 'firstName'],
  ['familyname', 'lastName'],
]);
const META_FIELDS = new Map<string, MemberSearchField>([
  ['created', 'createdAt'],
  ['lastmodified', 'updatedAt'],
]);
const MEMBERSHIP_FIELDS = new Map<string, MemberSearchField>(
  (['isMember', 'contactNumber', 'labelName', 'organisationId', 'organisationName', 'priceLevelId', 'priceLevelName'] as const).map((key) => [key.toLowerCase(), key]),
);
/** The lists searched value by value, by lower-cased name; emails is the member's one address. */
type Multi = 'emails' | MemberValueList;
const MULTI = new Map<string, Multi>([
  ...(['emails', 'roles', 'phoneNumbers', 'addresses'] as const).map((name) => [name.toLowerCase(), name] as const),
  // A User's groups are its roles, read-only.
  ['groups', 'roles'],
]);
/** A role's value and display are its id and name; the other lists keep their sub-attributes' names. */
const ROLE_KEYS = new Map<string, ElementField>([
  ['value', 'element.id'],
  ['display', 'element.name'],
]);

/** The declared attribute's field: its type and case-exactness as /Schemas says (a reference is a string). */
export function declared<Name extends string = MemberSearchField>(field: Name, schema: Parameters<typeof declaredAttribute>[0], name: string, sub?: string): Field<Name> {
  const definition = declaredAttribute(schema, name, sub);
  if (definition === undefined || definition.type === 'complex') throw refused(`"${sub === undefined ? name : `${name}.${sub}`}" cannot be filtered on`);
  return { field, type: definition.type === 'reference' ? 'string' : definition.type, caseExact: definition.caseExact };
}

/** The field of a single-valued attribute; undefined for the multi-valued ones. */
function singleField({ schema, name, sub, label }: AttributeName): Field | undefined {
  const cannot = () => refused(`"${label}" cannot be filtered on: filters name the attributes /Schemas declares`);
  if (schema === 'extension') {
    const field = MEMBERSHIP_FIELDS.get(name);
    if (field === undefined || sub !== undefined) throw cannot();
    return declared(field, 'extension', name);
  }
  if (schema === 'enterprise') {
    const field = ENTERPRISE_FIELDS.get(name);
    if (field === undefined || sub !== undefined) throw cannot();
    return declared(field, 'enterprise', name);
  }
  if (schema !== 'core') throw cannot();
  if (MULTI.has(name)) return undefined;
  // The common attributes (RFC 7643 §3.1), which /Schemas does not list: id and externalId compared exactly, the
  // times as the meta shows them.
  const common = COMMON_FIELDS.get(name);
  if (common !== undefined && sub === undefined) return { field: common, type: 'string', caseExact: true };
  if (name === 'meta') {
    const field = META_FIELDS.get(sub?.toLowerCase() ?? '');
    if (field === undefined) throw cannot();
    return { field, type: 'dateTime', caseExact: true };
  }
  if (name === 'name') {
    const field = NAME_FIELDS.get(sub?.toLowerCase() ?? '');
    if (field === undefined) throw cannot();
    return declared(field, 'core', 'name', sub);
  }
  const field = CORE_FIELDS.get(name);
  if (field === undefined || sub !== undefined) throw cannot();
  return declared(field, 'core', name);
}

/** `op` of the two values, for the few attributes whose value is a constant (an email's type and primary). */
function holds(actual: string | boolean, operator: Operator, value: string | boolean, caseExact: boolean): boolean {
  if (typeof actual === 'boolean' || typeof value === 'boolean') return (operator === 'eq') === (actual === value);
  const [left, right] = caseExact ? [actual, value] : [actual.toLowerCase(), value.toLowerCase()];
  const order = left < right ? -1 : left > right ? 1 : 0;
  const results: Record<Operator, boolean> = {
    eq: order === 0,
    ne: order !== 0,
    co: left.includes(right),
    sw: left.startsWith(right),
    ew: left.endsWith(right),
    gt: order > 0,
    ge: order >= 0,
    lt: order < 0,
    le: order <= 0,
  };
  return results[operator];
}

/** The literal as the field's type takes it, or a refusal naming the attribute. */
function operand(field: Field<string>, operator: Operator, value: Exclude<Literal, null>, label: string): string | number | boolean {
  if (field.type === 'boolean') {
    if (operator !== 'eq' && operator !== 'ne') throw refused(`${label} is a boolean: it is compared with eq or ne`);
    // Entra ID writes booleans as the strings "True" and "False" (values.ts).
    const word = typeof value === 'string' ? value.toLowerCase() : undefined;
    if (typeof value === 'boolean' || word === 'true' || word === 'false') return typeof value === 'boolean' ? value : word === 'true';
    throw refused(`${label} is compared with true or false`);
  }
  if (typeof value !== 'string') throw refused(`${label} is compared with a string`);
  if (field.type === 'string') return value;
  if (operator === 'co' || operator === 'sw' || operator === 'ew') throw refused(`${label} is a date: it is compared with eq, ne, gt, ge, lt or le`);
  const instant = Date.parse(value);
  if (Number.isNaN(instant)) throw refused(`${label} is compared with a date (ISO 8601)`);
  return instant;
}

/** `attribute op value` of a field; `label` names the attribute in a refusal. */
export function comparison<Name extends string>(field: Field<Name>, operator: Operator, value: Literal, label: string): SearchFilter<Name> {
  if (value === null) {
    if (operator !== 'eq' && operator !== 'ne') throw refused(`null is compared with eq or ne, not ${operator}`);
    const present: SearchFilter<Name> = { kind: 'present', field: field.field };
    return operator === 'eq' ? { kind: 'not', filter: present } : present;
  }
  return { kind: 'compare', field: field.field, operator: operator as MemberSearchOperator, value: operand(field, operator, value, label), caseExact: field.caseExact };
}

/** A comparison (or pr) of one sub-attribute of the member's one email, which is of type work and primary. */
function emailTerm(sub: string, operator: Operator | 'pr', value: Literal): MemberFilter {
  const name = sub.toLowerCase();
  if (name === 'value') {
    const field = declared('email', 'core', 'emails', 'value');
    return operator === 'pr' ? { kind: 'present', field: 'email' } : comparison(field, operator, value, 'emails.value');
  }
  if (name !== 'type' && name !== 'primary') throw refused(`emails has no sub-attribute "${sub}" to filter on`);
  if (operator === 'pr') return { kind: 'constant', value: true };
  if (value === null) return { kind: 'constant', value: operator === 'ne' };
  const field = declared('email', 'core', 'emails', name);
  const wanted = operand(field, operator, value, `emails.${name}`);
  return { kind: 'constant', value: holds(name === 'type' ? EMAIL_TYPE : true, operator, wanted as string | boolean, field.caseExact) };
}

/** A comparison (or pr) of one sub-attribute of a value of roles, phoneNumbers or addresses, as /Schemas declares it. */
function listTerm(list: MemberValueList, sub: string, operator: Operator | 'pr', value: Literal): MemberFilter {
  const definition = declaredAttribute('core', list, sub);
  if (definition === undefined) throw refused(`${list} has no sub-attribute "${sub}" to filter on`);
  const field = list === 'roles' ? ROLE_KEYS.get(sub.toLowerCase()) : (`element.${definition.name}` as ElementField);
  if (field === undefined) throw refused(`${list} has no sub-attribute "${sub}" to filter on`);
  return operator === 'pr' ? { kind: 'present', field } : comparison(declared(field, 'core', list, sub), operator, value, `${list}.${sub}`);
}

/** A filter on the values of a multi-valued attribute, whose attributes are their sub-attributes. */
function valueFilter(attribute: Multi, filter: Filter): MemberFilter {
  switch (filter.kind) {
    case 'and':
    case 'or':
      return { kind: filter.kind, filters: filter.filters.map((inner) => valueFilter(attribute, inner)) };
    case 'not':
      return { kind: 'not', filter: valueFilter(attribute, filter.filter) };
    case 'valuePath':
      throw refused(`a filter in brackets cannot hold another`);
    default: {
      const [operator, value] = filter.kind === 'present' ? (['pr', null] as const) : [filter.operator, filter.value];
      return attribute === 'emails' ? emailTerm(filter.attribute, operator, value) : listTerm(attribute, filter.attribute, operator, value);
    }
  }
}

/** Some value of the attribute meets the filter: the member's one email, present; one of its roles, numbers, addresses. */
function someValue(attribute: Multi, filter: Filter): MemberFilter {
  const inner = valueFilter(attribute, filter);
  return attribute === 'emails' ? { kind: 'and', filters: [{ kind: 'present', field: 'email' }, inner] } : { kind: 'anyValue', list: attribute, filter: inner };
}

function multiName(name: AttributeName): Multi {
  const multi = name.schema === 'core' ? MULTI.get(name.name) : undefined;
  if (multi === undefined) throw refused(`"${name.label}" is not multi-valued: only emails, roles, phoneNumbers and addresses take a filter in brackets`);
  return multi;
}

function memberFilterOf(filter: Filter): MemberFilter {
  switch (filter.kind) {
    case 'and':
    case 'or':
      return { kind: filter.kind, filters: filter.filters.map(memberFilterOf) };
    case 'not':
      return { kind: 'not', filter: memberFilterOf(filter.filter) };
    case 'valuePath':
      return someValue(multiName(attributeName(filter.attribute)), filter.filter);
    default: {
      const name = attributeName(filter.attribute);
      const field = singleField(name);
      // emails.value eq "a" is emails[value eq "a"]; emails alone is its value, as roles alone is.
      const sub = name.sub ?? 'value';
      if (field === undefined) return someValue(multiName(name), filter.kind === 'present' ? { kind: 'present', attribute: sub } : { ...filter, attribute: sub });
      return filter.kind === 'present' ? { kind: 'present', field: field.field } : comparison(field, filter.operator, filter.value, name.label);
    }
  }
}

/** sortBy and sortOrder (RFC 7644 §3.4.2.3): a single-valued attribute, or emails (the one address). */
function sortOf(query: { sortBy?: unknown; sortOrder?: unknown }): MemberQuery['sort'] {
  const sortBy = queryParameter(query.sortBy, 'sortBy');
  const sortOrder = queryParameter(query.sortOrder, 'sortOrder')?.toLowerCase();
  if (sortOrder !== undefined && sortOrder !== 'ascending' && sortOrder !== 'descending') throw badRequest('invalidValue', 'sortOrder is ascending or descending');
  if (sortBy === undefined) return undefined;
  const name = attributeName(sortBy);
  let field: Field | undefined;
  try {
    field = singleField(name);
  } catch {
    field = undefined;
  }
  if (field === undefined && name.schema === 'core' && name.name === 'emails' && (name.sub ?? 'value').toLowerCase() === 'value') {
    field = declared('email', 'core', 'emails', 'value');
  }
  if (field === undefined) throw badRequest('invalidValue', `the Users cannot be sorted by "${sortBy}": sortBy names a single-valued attribute /Schemas declares, or emails`);
  return { field: field.field as NonNullable<MemberQuery['sort']>['field'], descending: sortOrder === 'descending', caseExact: field.caseExact };
}

/** The store search a list request asks for: its filter (parsed by filter-syntax.ts) and its sort. */
export function memberQueryOf(filter: Filter | undefined, query: { sortBy?: unknown; sortOrder?: unknown }): MemberQuery {
  const sort = sortOf(query);
  return { ...(filter === undefined ? {} : { filter: memberFilterOf(filter) }), ...(sort === undefined ? {} : { sort }) };
}
