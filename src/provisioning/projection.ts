/**
 * The `attributes` and `excludedAttributes` parameters (RFC 7644 §3.4.2.5, §3.9): which attributes of a User an
 * answer holds. `schemas` and `id` are always returned. Names ignore case and may carry the schema URN
 * (`urn:ietf:params:scim:schemas:core:2.0:User:name.givenName`); names this service does not have select nothing.
 * With both parameters, `attributes` rules.
 */
import { attributeName } from './attribute-names.js';
import { badRequest } from './errors.js';
import { ENTERPRISE_EXTENSION, MEMBER_EXTENSION } from './urns.js';
import { queryParameter } from './values.js';

/** A node of selected names: true selects the whole value, a tree some of its sub-attributes. */
type Selection = Map<string, Selection | true>;

export interface Projection {
  include: boolean;
  selection: Selection;
}

const MAX_PARAMETER_LENGTH = 4096;
const ALWAYS_RETURNED = new Set(['schemas', 'id']);

/** The keys, lower-cased, of the answer's members that a name selects. */
function keysOf(text: string): string[] | undefined {
  const { schema, name, sub } = attributeName(text);
  if (schema === 'other') return undefined;
  const urn = schema === 'extension' ? MEMBER_EXTENSION : schema === 'enterprise' ? ENTERPRISE_EXTENSION : undefined;
  const keys = urn === undefined ? [name] : [urn.toLowerCase(), ...(name ? [name] : [])];
  return sub === undefined ? keys : [...keys, sub.toLowerCase()];
}

function select(selection: Selection, keys: readonly string[]): void {
  let node = selection;
  for (const [index, key] of keys.entries()) {
    const existing = node.get(key);
    if (existing === true) return;
    if (index === keys.length - 1) return void node.set(key, true);
    const next: Selection = existing ?? new Map();
    node.set(key, next);
    node = next;
  }
}

function parameter(value: unknown, name: string): string | undefined {
  const text = queryParameter(value, name);
  if (text !== undefined && text.length > MAX_PARAMETER_LENGTH) throw badRequest('invalidValue', `${name} is longer than ${MAX_PARAMETER_LENGTH} characters`);
  return text;
}

export function projectionOf(query: { attributes?: unknown; excludedAttributes?: unknown }): Projection | undefined {
  const attributes = parameter(query.attributes, 'attributes');
  const excluded = parameter(query.excludedAttributes, 'excludedAttributes');
  const list = attributes ?? excluded;
  if (list === undefined) return undefined;
  const selection: Selection = new Map();
  for (const name of list.split(',')) {
    const keys = keysOf(name.trim());
    if (keys !== undefined && keys[0] !== '') select(selection, keys);
  }
  return { include: attributes !== undefined, selection };
}

function projected(value: unknown, node: Selection, include: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => projected(item, node, include)).filter((item) => item !== undefined);
  if (typeof value !== 'object' || value === null) return include ? undefined : value;
  const kept = Object.entries(value).flatMap(([key, item]) => {
    const selected = node.get(key.toLowerCase());
    if (selected === true) return include ? [[key, item]] : [];
    if (selected === undefined) return include ? [] : [[key, item]];
    const inner = projected(item, selected, include);
    return inner === undefined ? [] : [[key, inner]];
  });
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** The resource with only the attributes the projection lets through. */
export function project(resource: Record<string, unknown>, projection: Projection | undefined): Record<string, unknown> {
  if (projection === undefined) return resource;
  const selection = new Map(projection.selection);
  for (const key of ALWAYS_RETURNED) {
    if (projection.include) selection.set(key, true);
    else selection.delete(key);
  }
  return (projected(resource, selection, projection.include) ?? {}) as Record<string, unknown>;
}
