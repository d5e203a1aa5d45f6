/**
 * startIndex and count of a list request (RFC 7644 §3.4.2.4): startIndex counts from 1, and below 1 means 1;
 * count below 0 means 0, and above the service's maximum (or left out) means the maximum.
 */
import { badRequest } from './errors.js';
import { queryParameter } from './values.js';

/** The most members one list answer holds: ServiceProviderConfig's filter.maxResults. */
export const MAX_RESULTS = 200;

export interface Page {
  startIndex: number;
  offset: number;
  limit: number;
}

/** An integer of at most 15 digits, so that it stays exact. */
const INTEGER = /^[+-]?[0-9]{1,15}$/;

function integer(value: unknown, name: string): number | undefined {
  const text = queryParameter(value, name)?.trim();
  if (text === undefined) return undefined;
  if (!INTEGER.test(text)) throw badRequest('invalidValue', `${name} is an integer`);
  return Number(text);
}

export function pageOf(query: { startIndex?: unknown; count?: unknown }): Page {
  const startIndex = Math.max(1, integer(query.startIndex, 'startIndex') ?? 1);
  const limit = Math.min(MAX_RESULTS, Math.max(0, integer(query.count, 'count') ?? MAX_RESULTS));
  return { startIndex, offset: startIndex - 1, limit };
}
