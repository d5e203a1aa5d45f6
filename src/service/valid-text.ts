/**
 * Text the service takes from a request, on every protocol: no U+0000 (no member types it, and PostgreSQL's text
 * cannot hold it) and no unpaired surrogate (no UTF-8 can carry it: a JSON "\ud800" or a SOAP character reference
 * is the only way in). Each protocol's edge refuses anything else in its own shape, so the store never sees it.
 */
const INVALID = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** How a refusal says why, after what it names: "the filter holds a character …". */
export const INVALID_TEXT = 'holds a character that is not valid text (U+0000 or an unpaired surrogate)';

export function isValidText(text: string): boolean {
  return !INVALID.test(text);
}

/** Whether every string of a parsed request part (a query, a form, a JSON body), its keys included, is valid text. */
export function holdsValidText(value: unknown): boolean {
  if (typeof value === 'string') return isValidText(value);
  if (Array.isArray(value)) return value.every(holdsValidText);
  if (value !== null && typeof value === 'object') return Object.entries(value).every(([key, item]) => isValidText(key) && holdsValidText(item));
  return true;
}
