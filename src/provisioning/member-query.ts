import { attributeName } from './attribute-names.js';
import { badRequest } from './errors.js';
import { conjuncts, type Filter, type Literal, type Term } from './filter-syntax.js';
import type { MemberCondition, MemberQuery } from './port.js';

const SUPPORTED = 'filters compare userName, externalId, id or emails.value with "eq", joined by "and"';

/** The one email of a member, as SCIM shows it: type work, primary. */
const EMAIL_TYPE = 'work';

const unsupported = (detail: string) => badRequest('invalidFilter', `${detail}: ${SUPPORTED}`);

function text(value: Literal, attribute: string): string {
  if (typeof value !== 'string') throw unsupported(`${attribute} is compared with a string`);
  return value;
}

/** By lower-cased name, in a Map: a name such as `constructor` finds nothing. */
const CORE_FIELDS = new Map<string, MemberCondition['field']>([
  ['id', 'id'],
  ['username', 'userName'],
  ['externalid', 'externalId'],
]);

/** The condition on the member's email that a filter on one element of `emails` makes, or null for "none matches". */
function emailCondition(terms: Array<{ sub: string; value: Literal }>): MemberCondition | null | undefined {
  let condition: MemberCondition | undefined;
  for (const { sub, value } of terms) {
    const name = sub.toLowerCase();
    if (name === 'value') condition = { field: 'email', value: text(value, 'emails.value') };
    else if (name === 'type' && typeof value === 'string') {
      if (value.toLowerCase() !== EMAIL_TYPE) return null;
    } else if (name === 'primary' && typeof value === 'boolean') {
      if (!value) return null;
    } else throw unsupported(`emails.${sub} cannot be filtered on`);
  }
  return condition;
}

/** The comparisons a value path makes on one element: the bracket's and the one after it. */
function elementTerms(filter: Extract<Filter, { kind: 'valuePath' }>): Array<{ sub: string; value: Literal }> {
  const terms = conjuncts(filter.filter).map((term) => {
    if (term.kind !== 'eq') throw unsupported('a filter in brackets compares sub-attributes');
    return { sub: term.attribute, value: term.value };
  });
  return filter.compare ? [...terms, filter.compare] : terms;
}

/** What one comparison asks of a member: a condition, or null when no member can meet it. */
function conditionOf(term: Term): MemberCondition | null {
  const name = attributeName(term.attribute);
  if (name.schema !== 'core') throw unsupported(`"${term.attribute}" cannot be filtered on`);
  if (name.name === 'emails') {
    const terms = term.kind === 'eq' ? [{ sub: name.sub ?? 'value', value: term.value }] : name.sub === undefined ? elementTerms(term) : [];
    const condition = emailCondition(terms);
    if (condition === undefined) throw unsupported('a filter on emails compares its value');
    return condition;
  }
  const field = CORE_FIELDS.get(name.name);
  if (term.kind !== 'eq' || field === undefined || name.sub !== undefined) throw unsupported(`"${term.attribute}" cannot be filtered on`);
  return { field, value: text(term.value, term.attribute) };
}

/** The store query a filter asks for; null when no member can match it (as `emails[type eq "home"]`). */
export function memberQueryOf(filter: Filter): MemberQuery | null {
  const conditions = conjuncts(filter).map(conditionOf);
  return conditions.includes(null) ? null : { conditions: conditions as MemberCondition[] };
}
