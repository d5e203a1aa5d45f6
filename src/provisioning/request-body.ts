/**
 * Reading a request's JSON body: application/scim+json or application/json (415 otherwise), at most the body
 * limit (413, refused on the declared length before reading), nested at most MAX_JSON_DEPTH deep (checked in one
 * pass before parsing, so that a body of brackets costs no more than any other), valid JSON (400
 * invalidSyntax), and valid text in every string and key (400 invalidValue: no NUL, no unpaired surrogate).
 */
import bodyParser from 'body-parser';
import contentType from 'content-type';
import type { RequestHandler } from 'express';
import { holdsValidText, INVALID_TEXT } from '../service/index.js';
import { badRequest, ScimError } from './errors.js';
import { SCIM_MEDIA_TYPE } from './urns.js';

const JSON_TYPES = new Set([SCIM_MEDIA_TYPE, 'application/json']);
/** Deeper than any SCIM body this service reads (a PATCH value of the extension's extras is six deep). */
export const MAX_JSON_DEPTH = 16;

/** Whether the JSON text nests arrays and objects at most `max` deep; strings are skipped over. */
export function nestsAtMost(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > max) return false;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return true;
}

export function parseJsonBody(text: unknown): unknown {
  if (typeof text !== 'string' || text.trim() === '') throw badRequest('invalidSyntax', 'the request has no JSON body');
  if (!nestsAtMost(text, MAX_JSON_DEPTH)) throw badRequest('invalidSyntax', `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw badRequest('invalidSyntax', 'the body is not valid JSON');
  }
  if (!holdsValidText(body)) throw badRequest('invalidValue', `the body ${INVALID_TEXT}`);
  return body;
}

function mediaType(header: string | undefined): string | undefined {
  try {
    return header === undefined ? undefined : contentType.parse(header).type;
  } catch {
    return undefined;
  }
}

function readingError(error: { type?: string }, limit: number): Error {
  if (error.type === 'request.aborted') return error as Error;
  if (error.type === 'entity.too.large') return new ScimError(413, undefined, `the body is larger than ${limit} bytes`);
  if (error.type === 'charset.unsupported' || error.type === 'encoding.unsupported') return new ScimError(415, undefined, 'the body is UTF-8 JSON, not compressed');
  return badRequest('invalidSyntax', 'the body could not be read');
}

/** Sets req.body to the parsed JSON body, or passes on the ScimError that refuses it. */
export function readJsonBody(limit: number): RequestHandler {
  const readText = bodyParser.text({ type: () => true, limit, defaultCharset: 'utf-8', inflate: false });
  return (req, res, next) => {
    if (!JSON_TYPES.has(mediaType(req.headers['content-type']) ?? '')) {
      return next(new ScimError(415, undefined, `the body is JSON, sent as ${SCIM_MEDIA_TYPE} or application/json`));
    }
    readText(req, res, (error?: { type?: string }) => {
      if (error) return next(readingError(error, limit));
      try {
        req.body = parseJsonBody(req.body);
      } catch (refusal) {
        return next(refusal);
      }
      next();
    });
  };
}
