/**
 * What no one types (src/service/valid-text.ts: U+0000, an unpaired surrogate) is refused at SCIM's edge, before
 * the store sees it: in a path segment, a 404 (no resource has that id); in the filter, 400 invalidFilter; in any
 * other query parameter, 400 invalidValue. A JSON body's strings are checked as it is read (request-body.ts).
 */
import type { RequestHandler } from 'express';
import { holdsValidText, INVALID_TEXT, isValidText } from '../service/index.js';
import { badRequest, ScimError } from './errors.js';

function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export const readableText: RequestHandler = (req, _res, next) => {
  const segments = req.path.split('/').map(decodedSegment);
  if (!segments.every((segment) => segment !== undefined && isValidText(segment))) return next(new ScimError(404, undefined, 'no such resource'));
  const { filter, ...others } = req.query;
  if (!holdsValidText(filter)) return next(badRequest('invalidFilter', `the filter ${INVALID_TEXT}`));
  if (!holdsValidText(others)) return next(badRequest('invalidValue', `a query parameter ${INVALID_TEXT}`));
  next();
};
