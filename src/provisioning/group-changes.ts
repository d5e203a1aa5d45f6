/**
 * What a Group's write asks (RFC 7644 §3.5): its displayName and externalId, and its members, from a POST or PUT
 * body or from PATCH operations as Entra ID and Okta send them: `members` added or replaced with a list of
 * `{"value": id}`, removed by a filter (`members[value eq "id"]`, Entra ID) or by a value list
 * (`{"op":"remove","path":"members","value":[{"value":"id"}]}`, Okta and Entra ID), or all of them
 * (`{"op":"remove","path":"members"}`); path-less values of those attributes (`{"op":"Replace","value":{"id":"…",
 * "displayName":"…"}}`, Okta); op names in any case. id, meta and schemas are the service's, skipped in a body;
 * any other attribute is refused.
 */
import type { RoleFields, RoleRow } from '../service/index.js';
import { badRequest, type ScimType } from './errors.js';
import type { AttributePath, Filter } from './filter-syntax.js';
import { MAX_VALUES } from './multi-values.js';
import { patchRequests } from './patch.js';
import { GROUP_SCHEMA } from './urns.js';
import { isObject, optionalText, textValue } from './values.js';

/** A Group as a write leaves it: its fields, and its members listed whole, or as changes to those it has. */
export interface GroupChanges {
  fields: RoleFields;
  /** The members it has after the write, when the write lists them all. */
  members?: Set<string>;
  added: Set<string>;
  removed: Set<string>;
}

const SKIPPED = new Set(['id', 'meta', 'schemas']);

/** The ids of a members value: a list of `{"value": id}` (or one of them). */
function memberIds(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  if (values.length > MAX_VALUES) throw badRequest('invalidValue', `a request lists at most ${MAX_VALUES} members`);
  return values.map((item) => {
    if (!isObject(item)) throw badRequest('invalidValue', 'a member is an object with a value, the member\'s id');
    const id = Object.entries(item).find(([key]) => key.toLowerCase() === 'value')?.[1];
    return textValue(id, 'members.value');
  });
}

/** The ids a members filter names: `value eq "id"`, or several of them joined by or. */
function filteredIds(filter: Filter): string[] {
  if (filter.kind === 'or') return filter.filters.flatMap(filteredIds);
  if (filter.kind === 'compare' && filter.operator === 'eq' && filter.attribute.toLowerCase() === 'value' && typeof filter.value === 'string') return [filter.value];
  throw badRequest('invalidFilter', 'a members filter names members by value eq, joined by or');
}

function add(changes: GroupChanges, ids: readonly string[]): void {
  for (const id of ids) {
    if (changes.members) changes.members.add(id);
    else {
      changes.added.add(id);
      changes.removed.delete(id);
    }
  }
}

function remove(changes: GroupChanges, ids: readonly string[]): void {
  for (const id of ids) {
    if (changes.members) changes.members.delete(id);
    else {
      changes.removed.add(id);
      changes.added.delete(id);
    }
  }
}

/** One attribute of a Group set, added to or removed, as an operation or a key of a body names it. */
function apply(changes: GroupChanges, op: 'add' | 'replace' | 'remove', path: AttributePath, value: unknown, scimType: ScimType): void {
  const name = path.attribute.toLowerCase().replace(`${GROUP_SCHEMA.toLowerCase()}:`, '');
  if (name === 'members' && path.sub === undefined) {
    if (path.filter !== undefined) {
      if (op !== 'remove') throw badRequest(scimType, 'a members filter is a path to remove');
      return remove(changes, filteredIds(path.filter));
    }
    if (op === 'remove') {
      if (value === undefined || value === null) changes.members = new Set();
      else remove(changes, memberIds(value));
      return;
    }
    if (op === 'replace') changes.members = new Set();
    return add(changes, memberIds(value));
  }
  if (path.filter !== undefined || path.sub !== undefined) throw badRequest(scimType, `"${path.attribute}" takes no filter or sub-attribute`);
  if (name === 'displayname') {
    if (op === 'remove') throw badRequest('mutability', 'displayName cannot be removed');
    changes.fields.name = textValue(value, 'displayName');
  } else if (name === 'externalid') {
    changes.fields.externalId = op === 'remove' ? null : optionalText(value, 'externalId');
  } else if (!SKIPPED.has(name)) {
    throw badRequest(scimType, `a Group has no attribute "${path.attribute}" to write`);
  }
}

function applyObject(changes: GroupChanges, op: 'add' | 'replace', value: unknown, scimType: ScimType): void {
  if (!isObject(value)) throw badRequest('invalidValue', 'a value without a path is an object of attributes');
  for (const [key, item] of Object.entries(value)) apply(changes, op, { attribute: key }, item, scimType);
}

/** A POST or PUT body: every attribute it gives, its members listed whole. */
export function groupBody(body: unknown): GroupChanges {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'a Group is a JSON object');
  const changes: GroupChanges = { fields: { name: '', externalId: null }, members: new Set(), added: new Set(), removed: new Set() };
  applyObject(changes, 'replace', body, 'invalidSyntax');
  if (!changes.fields.name.trim()) throw badRequest('invalidValue', 'a Group needs a displayName');
  return changes;
}

/** The PATCH operations of a PatchOp body, applied in order to the role as it is. */
export function groupPatch(role: RoleRow, body: unknown): GroupChanges {
  const changes: GroupChanges = { fields: { name: role.name, externalId: role.externalId }, added: new Set(), removed: new Set() };
  for (const { op, path, value } of patchRequests(body)) {
    if (path === undefined) applyObject(changes, op === 'remove' ? 'replace' : op, value, 'invalidPath');
    else apply(changes, op, path, value, 'invalidPath');
  }
  return changes;
}
