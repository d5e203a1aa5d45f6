import { z } from 'zod';
import { parseDurationSeconds } from './duration.js';

// The kinds of value settings take (docs/configuration.md, "Value formats"), each with the message a bad value gets.

/** The words of a boolean, in any letter case. */
export const TRUE_WORDS = ['true', '1', 'yes', 'on'];
export const FALSE_WORDS = ['false', '0', 'no', 'off'];

export const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => TRUE_WORDS.includes(v) || FALSE_WORDS.includes(v), 'must be true or false')
  .transform((v) => TRUE_WORDS.includes(v));

/** Whole seconds ("900", "30m", "12h", "7d"), at least `least`: 1 for a positive duration, 0 where 0 means off. */
const durationAtLeast = (least: 0 | 1) =>
  z.string().transform((v, ctx) => {
    const seconds = parseDurationSeconds(v);
    if (seconds === null || seconds < least) {
      ctx.addIssue({ code: 'custom', message: least === 0 ? 'must be 0 (off) or a duration such as 900, 30m, 12h or 365d' : 'must be a positive duration such as 900, 30m, 12h or 7d' });
      return z.NEVER;
    }
    return seconds;
  });

export const duration = durationAtLeast(1);

/** A duration, or 0 for off. */
export const durationOrOff = durationAtLeast(0);

/** A duration with an upper bound (timers cannot wait longer than about 24 days, and nobody means to). */
export const durationAtMost = (maxSeconds: number, maxText: string) =>
  duration.refine((seconds) => seconds <= maxSeconds, `must be at most ${maxText}`);

export const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

/** An absolute http:// or https:// URL that passes `more` too, else `message`. */
function httpUrl(more: (url: URL) => boolean, message: string) {
  return z
    .string()
    .trim()
    .refine((v) => {
      try {
        const url = new URL(v);
        return (url.protocol === 'http:' || url.protocol === 'https:') && more(url);
      } catch {
        return false;
      }
    }, message);
}

export const absoluteHttpUrl = httpUrl((url) => !url.search && !url.hash, 'must be an absolute http:// or https:// URL without query or fragment');

/** A web page's address: an absolute http:// or https:// URL (a query or fragment allowed). */
export const webPageUrl = httpUrl(() => true, 'must be an absolute http:// or https:// URL');

export const urlPath = z
  .string()
  .trim()
  .regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/, 'must be a path starting with "/"');

export const cookieName = z
  .string()
  .trim()
  // Without "|", which separates the pairs of an iBridge USER_COOKIE.
  .regex(/^[!#$%&'*+.^_`~0-9A-Za-z-]+$/, 'must be a cookie name (letters, digits and !#$%&\'*+.^_`~-)');

/** A WSDL name before encoding: ASMX turns each space into _x0020_. */
export const serviceName = z
  .string()
  .trim()
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*( [A-Za-z0-9_.-]+)*$/, 'must be a name such as Authentication or Authentication Web Service (letters, digits, _ . - and single spaces)');

export const MAX_DOCUMENTATION = 1000;
export const documentation = z.string().trim().min(1).max(MAX_DOCUMENTATION, `must be at most ${MAX_DOCUMENTATION} characters`);

export const commaList = (v: string) => v.split(',').map((entry) => entry.trim()).filter(Boolean);

export function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Host names, comma-separated: exact (members.example.org), a domain's subdomains (*.example.org), or * for any. */
export const hostPatterns = z
  .string()
  .transform((v) => v.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean))
  .refine(
    (entries) => entries.length > 0 && entries.every((entry) => /^(\*|(\*\.)?(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*))$/.test(entry)),
    'must be host names, comma-separated, each exact (members.example.org), a domain\'s subdomains (*.example.org) or * for any',
  );
