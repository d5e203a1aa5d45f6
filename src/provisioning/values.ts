import { badRequest } from './errors.js';

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function textValue(value: unknown, attribute: string): string {
  if (typeof value !== 'string') throw badRequest('invalidValue', `${attribute} takes a string`);
  return value;
}

/** A text, or null (SCIM's "unassigned") for null or an empty text. */
export function optionalText(value: unknown, attribute: string): string | null {
  return value === null ? null : textValue(value, attribute) || null;
}

/**
 * A boolean. Entra ID sends booleans as the strings "True" and "False" unless its aadOptscim062020 flag is set
 * (learn.microsoft.com/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility),
 * so those strings count too, in any case.
 */
export function booleanValue(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  const word = typeof value === 'string' ? value.toLowerCase() : undefined;
  if (word === 'true' || word === 'false') return word === 'true';
  throw badRequest('invalidValue', `${attribute} takes true or false`);
}

/** The member of a JSON object whose name equals `name` ignoring case, as SCIM names are; undefined when none. */
export function memberOf(object: Record<string, unknown>, name: string): { value: unknown } | undefined {
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : { value: object[key] };
}

/** A query parameter given at most once: its text, or undefined when absent. */
export function queryParameter(value: unknown, name: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw badRequest('invalidValue', `${name} is given once`);
}
