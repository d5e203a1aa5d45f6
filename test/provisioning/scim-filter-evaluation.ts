/**
 * A SCIM filter (the parsed syntax of src/provisioning/filter-syntax.ts) evaluated in memory over a User as the
 * service shows it (its JSON), by RFC 7644 §3.4.2.2 read plainly, for the property test that the store's searches
 * answer the same: attribute names ignoring case, each attribute's caseExact as /Schemas declares it (id and
 * externalId exactly, meta's times as instants); a multi-valued attribute meets a comparison when one of its values
 * does; a comparison with an absent value is false, and ne is not eq. Texts ignore ASCII case only, as SQLite's
 * lower() does (the test's data is ASCII).
 */
import type { Filter, Literal } from '../../src/provisioning/filter-syntax.js';
import { schemaDocuments } from '../../src/provisioning/schemas.js';
import { ENTERPRISE_EXTENSION, MEMBER_EXTENSION, USER_SCHEMA } from '../../src/provisioning/urns.js';
import { asciiLower, holdsOperator } from './member-filter-evaluation.js';

interface Declared {
  name: string;
  type: string;
  caseExact: boolean;
  multiValued: boolean;
  subAttributes?: Declared[];
}

const SCHEMAS = new Map(schemaDocuments('').map((document) => [String(document.id).toLowerCase(), document.attributes as Declared[]]));
const COMMON: Declared[] = [
  { name: 'id', type: 'string', caseExact: true, multiValued: false },
  { name: 'externalId', type: 'string', caseExact: true, multiValued: false },
  { name: 'meta', type: 'complex', caseExact: false, multiValued: false, subAttributes: [
    { name: 'created', type: 'dateTime', caseExact: false, multiValued: false },
    { name: 'lastModified', type: 'dateTime', caseExact: false, multiValued: false },
  ] },
];


const find = (list: readonly Declared[] | undefined, name: string) => list?.find((each) => each.name.toLowerCase() === name.toLowerCase());
type Json = Record<string, unknown>;
const keyOf = (object: Json, name: string) => Object.keys(object).find((key) => key.toLowerCase() === name.toLowerCase());

/** The schema's URN, its attribute and the sub-attribute, of a name as written. */
function split(text: string): { urn: string; name: string; sub?: string } {
  for (const urn of [MEMBER_EXTENSION, ENTERPRISE_EXTENSION, USER_SCHEMA]) {
    if (text.toLowerCase().startsWith(`${urn.toLowerCase()}:`)) text = text.slice(urn.length + 1);
    else continue;
    const [name, sub] = text.split('.') as [string, string | undefined];
    return { urn, name, ...(sub === undefined ? {} : { sub }) };
  }
  const [name, sub] = text.split('.') as [string, string | undefined];
  return { urn: USER_SCHEMA, name, ...(sub === undefined ? {} : { sub }) };
}

function holds(actual: unknown, operator: string, wanted: Literal, type: string, caseExact: boolean): boolean {
  if (actual === undefined || actual === null || actual === '') return false;
  if (type === 'boolean') return actual === (typeof wanted === 'string' ? asciiLower(wanted) === 'true' : wanted);
  let left: string | number = actual as string;
  let right: string | number = wanted as string;
  if (type === 'dateTime') [left, right] = [Date.parse(left), Date.parse(right)];
  else if (!caseExact) [left, right] = [asciiLower(left), asciiLower(right)];
  return holdsOperator(left, operator, right);
}

/** Whether one value (a JSON value of the attribute, or of a value's sub-attribute) meets a comparison or pr. */
function valueMeets(value: unknown, declared: Declared, filter: Extract<Filter, { kind: 'compare' | 'present' }>): boolean {
  if (filter.kind === 'present') return value !== undefined && value !== null && value !== '';
  if (filter.value === null) return (filter.operator === 'eq') === (value === undefined || value === null || value === '');
  const equal = holds(value, filter.operator === 'ne' ? 'eq' : filter.operator, filter.value, declared.type, declared.caseExact);
  return filter.operator === 'ne' ? !equal : equal;
}

/** Whether one value of a multi-valued attribute meets a filter on its sub-attributes. */
function elementMeets(element: Json, declared: Declared, filter: Filter): boolean {
  switch (filter.kind) {
    case 'and':
      return filter.filters.every((inner) => elementMeets(element, declared, inner));
    case 'or':
      return filter.filters.some((inner) => elementMeets(element, declared, inner));
    case 'not':
      return !elementMeets(element, declared, filter.filter);
    case 'valuePath':
      throw new Error('no value path in a value path');
    default: {
      const sub = find(declared.subAttributes, filter.attribute) as Declared;
      const key = keyOf(element, filter.attribute);
      return valueMeets(key === undefined ? undefined : element[key], sub, filter);
    }
  }
}

function attributeOf(user: Json, text: string): { value: unknown; declared: Declared; sub?: string } {
  const { urn, name, sub } = split(text);
  const holder = urn === USER_SCHEMA ? user : ((user[urn] as Json | undefined) ?? {});
  const declared = find(urn === USER_SCHEMA ? [...COMMON, ...(SCHEMAS.get(urn.toLowerCase()) ?? [])] : SCHEMAS.get(urn.toLowerCase()), name) as Declared;
  const key = keyOf(holder, name);
  return { value: key === undefined ? undefined : holder[key], declared, ...(sub === undefined ? {} : { sub }) };
}

export function userMeets(user: Json, filter: Filter): boolean {
  switch (filter.kind) {
    case 'and':
      return filter.filters.every((inner) => userMeets(user, inner));
    case 'or':
      return filter.filters.some((inner) => userMeets(user, inner));
    case 'not':
      return !userMeets(user, filter.filter);
    case 'valuePath': {
      const { value, declared } = attributeOf(user, filter.attribute);
      return ((value as Json[] | undefined) ?? []).some((element) => elementMeets(element, declared, filter.filter));
    }
    default: {
      const { value, declared, sub } = attributeOf(user, filter.attribute);
      if (declared.multiValued) {
        const elementFilter = { ...filter, attribute: sub ?? 'value' };
        return ((value as Json[] | undefined) ?? []).some((element) => elementMeets(element, declared, elementFilter));
      }
      if (sub === undefined) return valueMeets(value, declared, filter);
      const key = value === undefined ? undefined : keyOf(value as Json, sub);
      return valueMeets(key === undefined ? undefined : (value as Json)[key], find(declared.subAttributes, sub) as Declared, filter);
    }
  }
}
