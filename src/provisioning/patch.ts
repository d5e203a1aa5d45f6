/**
 * PATCH (RFC 7644 §3.5.2) on a member draft, and the whole-resource writes of POST and PUT, which set every
 * attribute of the body as a path-less replace would. Besides the RFC's forms it takes what Entra ID and Okta
 * send: op names in any case (Entra's "Replace", "Add", "Remove"), a path-less value whose keys are themselves
 * paths (Entra: `{"op":"Replace","value":{"name.givenName":"X","emails[type eq \"work\"].value":"x@y"}}`) and
 * Okta's `{"op":"replace","value":{"active":false}}`.
 */
import { badRequest, type ScimType } from './errors.js';
import { parsePath, type AttributePath } from './filter-syntax.js';
import { emptyMembership, type MemberDraft } from './member-draft.js';
import { applyToValues, type Operation } from './multi-values.js';
import { enterpriseTarget, extraTarget, membershipTarget, namePart, PROFILE_ENTERPRISE, targetOf, type Target } from './targets.js';
import { PATCH_OP } from './urns.js';
import { isObject, memberOf } from './values.js';

export const MAX_OPERATIONS = 100;
/**
 * At most this many value filters (`roles[value eq "x"]`) applied by one request, in operations' paths and in the
 * keys of path-less values alike: each runs over all of an attribute's values, so their number bounds the work.
 */
export const MAX_VALUE_FILTERS = 100;

/** What one request has applied so far. */
interface Work {
  valueFilters: number;
  scimType: ScimType;
}

export interface PatchOperation {
  op: Operation;
  /** undefined for a path-less operation, whose value is an object of attributes. */
  target?: Target;
  value: unknown;
}

/** What the keys of a value object name: attributes of the resource (paths themselves), or sub-attributes. */
type Scope = 'resource' | 'name' | 'membership' | 'extra' | 'enterprise';

function targetIn(scope: Scope, key: string, scimType: ScimType): Target {
  if (scope === 'resource') return targetOf(parsePath(key, scimType), scimType);
  if (scope === 'name') return namePart(key, scimType);
  if (scope === 'extra') return extraTarget(key);
  if (scope === 'enterprise') return enterpriseTarget(key);
  return membershipTarget(key, scimType);
}

function clear(draft: MemberDraft, scope: Exclude<Scope, 'resource'>): void {
  if (scope === 'name') [draft.givenName, draft.familyName, draft.formattedName] = ['', '', null];
  else if (scope === 'membership') draft.membership = emptyMembership();
  else if (scope === 'enterprise') for (const key of PROFILE_ENTERPRISE) delete draft.profile[key];
  else draft.membership.extra.clear();
}

/** Sets each attribute a value object names; the depth is the schema's (at most resource → extension → extra). */
function applyObject(draft: MemberDraft, op: Operation, scope: Scope, value: unknown, work: Work): void {
  if (!isObject(value)) throw badRequest('invalidValue', scope === 'resource' ? 'a value without a path is an object of attributes' : `${scope} takes an object`);
  for (const [key, item] of Object.entries(value)) applyAt(draft, op, targetIn(scope, key, work.scimType), item, false, work);
}

/** `explicit`: the target is an operation's path, not a key of a value object (where read-only attributes are skipped). */
function applyAt(draft: MemberDraft, op: Operation, target: Target, value: unknown, explicit: boolean, work: Work): void {
  switch (target.kind) {
    case 'ignored':
      return;
    case 'readOnly':
      if (explicit) throw badRequest('mutability', `${target.label} is read-only`);
      return;
    case 'single':
      return op === 'remove' ? target.attribute.unset(draft) : target.attribute.set(draft, value);
    case 'complex':
      return op === 'remove' || value === null ? clear(draft, target.scope) : applyObject(draft, op, target.scope, value, work);
    case 'multi':
      if (target.where !== undefined && ++work.valueFilters > MAX_VALUE_FILTERS) throw badRequest('invalidSyntax', `a request applies at most ${MAX_VALUE_FILTERS} value filters`);
      return applyToValues(draft, op, target.attribute, target, value);
  }
}

/** One operation of a PatchOp body as sent, its path parsed: what /Users and /Groups read alike. */
export interface PatchRequest {
  op: Operation;
  /** undefined for a path-less operation, whose value is an object of attributes. */
  path?: AttributePath;
  value: unknown;
}

function requestOf(item: unknown, index: number): PatchRequest {
  const where = `operation ${index + 1}`;
  if (!isObject(item)) throw badRequest('invalidSyntax', `${where} is not an object`);
  const opName = memberOf(item, 'op')?.value;
  const op = typeof opName === 'string' ? opName.toLowerCase() : undefined;
  if (op !== 'add' && op !== 'replace' && op !== 'remove') throw badRequest('invalidSyntax', `${where}: "op" is add, replace or remove`);
  const path = memberOf(item, 'path')?.value;
  const value = memberOf(item, 'value');
  if (op !== 'remove' && value === undefined) throw badRequest('invalidSyntax', `${where}: ${op} needs a value`);
  if (path !== undefined && typeof path !== 'string') throw badRequest('invalidPath', `${where}: "path" is a string`);
  if (path === undefined || path === '') {
    if (op === 'remove') throw badRequest('noTarget', `${where}: remove needs a path`);
    return { op, value: value?.value };
  }
  return { op, path: parsePath(path), value: value?.value };
}

/** Whether the body's `schemas` lists the PatchOp message's URN (RFC 7644 §3.5.2), in any case as URNs are compared. */
function isPatchOp(body: Record<string, unknown>): boolean {
  const schemas = memberOf(body, 'schemas')?.value;
  return Array.isArray(schemas) && schemas.some((schema) => typeof schema === 'string' && schema.toLowerCase() === PATCH_OP.toLowerCase());
}

/** The operations of a PatchOp body (its schemas checked, its paths parsed), before any is applied. */
export function patchRequests(body: unknown): PatchRequest[] {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'a PATCH body is a JSON object');
  if (!isPatchOp(body)) throw badRequest('invalidSyntax', `a PATCH body's "schemas" lists ${PATCH_OP}`);
  const operations = memberOf(body, 'operations')?.value;
  if (!Array.isArray(operations) || operations.length === 0) throw badRequest('invalidSyntax', 'a PATCH body has a list of Operations');
  if (operations.length > MAX_OPERATIONS) throw badRequest('invalidSyntax', `a PATCH body has at most ${MAX_OPERATIONS} operations`);
  return operations.map(requestOf);
}

/** The operations of a PATCH body of a User, checked (its schemas, paths parsed and followed) before any is applied. */
export function patchOperations(body: unknown): PatchOperation[] {
  return patchRequests(body).map(({ op, path, value }) => (path === undefined ? { op, value } : { op, target: targetOf(path, 'invalidPath'), value }));
}

/** Applies the operations in order; the first that cannot be applied throws, and the draft is then dropped. */
export function applyOperations(draft: MemberDraft, operations: readonly PatchOperation[]): void {
  const work: Work = { valueFilters: 0, scimType: 'invalidPath' };
  for (const { op, target, value } of operations) {
    if (target === undefined) applyObject(draft, op, 'resource', value, work);
    else applyAt(draft, op, target, value, true, work);
  }
}

/** Sets every attribute of a resource body (POST, PUT); id, meta and schemas are the service's and skipped. */
export function applyResource(draft: MemberDraft, body: unknown): void {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'a User is a JSON object');
  applyObject(draft, 'replace', 'resource', body, { valueFilters: 0, scimType: 'invalidSyntax' });
}
