/**
 * PATCH operations on multi-valued attributes (emails, roles, phoneNumbers, addresses; RFC 7644 §3.5.2), as real clients send them: a whole list, the values a
 * filter selects (`roles[value eq "admin"]`), one sub-attribute of them (`emails[type eq "work"].value`), or a
 * value list to take out (`{"op":"remove","path":"roles","value":[{"value":"admin"}]}`, the form Entra ID uses
 * for group members).
 */
import { badRequest } from './errors.js';
import type { MemberDraft, MultiValue } from './member-draft.js';
import { keptSub, type ElementTerm, type MultiName, type SubName } from './targets.js';
import { booleanValue, isObject, optionalText } from './values.js';

/** At most this many values in one list of a draft; the service keeps fewer, this bounds the work on one request. */
export const MAX_VALUES = 200;

export type Operation = 'add' | 'replace' | 'remove';

function setSub(element: MultiValue, sub: SubName, value: unknown, attribute: MultiName): void {
  if (sub === 'primary') {
    if (value === null) delete element.primary;
    else element.primary = booleanValue(value, `${attribute}.primary`);
    return;
  }
  const text = optionalText(value, `${attribute}.${sub}`);
  if (text === null) delete element[sub];
  else element[sub] = text;
}

/** Sets the sub-attributes a value object gives; those the attribute does not keep (targets.ts KEPT_SUBS) are ignored. */
function merge(element: MultiValue, value: unknown, attribute: MultiName): void {
  if (!isObject(value)) throw badRequest('invalidValue', `a value of ${attribute} is an object`);
  for (const [key, item] of Object.entries(value)) {
    const sub = keptSub(attribute, key);
    if (sub !== undefined) setSub(element, sub, item, attribute);
  }
}

function grown(list: MultiValue[], count: number, attribute: MultiName): void {
  if (list.length + count > MAX_VALUES) throw badRequest('invalidValue', `${attribute} holds at most ${MAX_VALUES} values`);
}

function elementsOf(value: unknown, attribute: MultiName): MultiValue[] {
  const values = Array.isArray(value) ? value : [value];
  grown([], values.length, attribute);
  return values.map((item) => {
    const element: MultiValue = {};
    merge(element, item, attribute);
    return element;
  });
}

/**
 * Whether an element meets every comparison of a value filter; texts compare ignoring case. Each text is lowered
 * once per filter, however many comparisons name it, so that a long filter over long values costs their length.
 */
function matcher(terms: readonly ElementTerm[]): (element: MultiValue) => boolean {
  const lowered = new Map<string, string>();
  const lower = (text: string): string => {
    const known = lowered.get(text);
    if (known !== undefined) return known;
    const low = text.toLowerCase();
    lowered.set(text, low);
    return low;
  };
  const wanted = terms.map(({ sub, value }) => ({ sub, value: sub === 'primary' && value !== null ? booleanValue(value, sub) : typeof value === 'string' ? lower(value) : value }));
  return (element) =>
    wanted.every(({ sub, value }) => {
      const actual = element[sub];
      if (value === null) return actual === undefined;
      if (typeof value === 'boolean') return (actual === true) === value;
      return typeof actual === 'string' && typeof value === 'string' && lower(actual) === value;
    });
}

/** The value a filter describes (Entra ID adds `emails[type eq "work"].value` to a user without one). */
function elementFromFilter(terms: readonly ElementTerm[], attribute: MultiName): MultiValue {
  const element: MultiValue = {};
  for (const { sub, value } of terms) setSub(element, sub, value, attribute);
  return element;
}

/** Values listed for removal: `[{"value": "x"}, …]`, compared ignoring case. */
function listedValues(value: unknown[]): Set<string> {
  return new Set(value.flatMap((item) => (isObject(item) && typeof item.value === 'string' ? [item.value.toLowerCase()] : [])));
}

export function applyToValues(draft: MemberDraft, op: Operation, attribute: MultiName, target: { where?: ElementTerm[]; sub?: SubName }, value: unknown): void {
  const list = draft[attribute];
  const { where, sub } = target;
  if (where === undefined && sub === undefined) {
    if (op === 'remove' && Array.isArray(value)) {
      const listed = listedValues(value);
      draft[attribute] = list.filter((element) => !listed.has(element.value?.toLowerCase() ?? ''));
    } else if (op === 'remove' || value === null) {
      draft[attribute] = [];
    } else {
      const elements = elementsOf(value, attribute);
      if (op === 'add') grown(list, elements.length, attribute);
      draft[attribute] = op === 'add' ? [...list, ...elements] : elements;
    }
    return;
  }
  const selected = where === undefined ? list : list.filter(matcher(where));
  if (op === 'remove') {
    const removed = new Set(selected);
    if (sub === undefined) draft[attribute] = list.filter((element) => !removed.has(element));
    else for (const element of selected) delete element[sub];
    return;
  }
  // A filter that selects nothing adds the value it describes, for replace too: Entra ID sends Replace as
  // readily as Add for a value the user does not have yet.
  const changed = selected.length > 0 ? selected : [elementFromFilter(where ?? [], attribute)];
  if (selected.length === 0) {
    grown(list, 1, attribute);
    list.push(changed[0] as MultiValue);
  }
  for (const element of changed) {
    if (sub === undefined) merge(element, value, attribute);
    else setSub(element, sub, value, attribute);
  }
}
