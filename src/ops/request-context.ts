import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { setRequestId } from '../log/request-id.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id is kept when it is short and made of characters that are safe in logs and headers. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id a request is known by: the caller's (a proxy's) X-Request-Id when it is acceptable, else a new UUID. */
export function acceptedRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_ID.test(value) ? value : randomUUID();
}

/**
 * Gives the request its id (requestIdOf in src/log/request-id.ts), which every log line about the request
 * carries and its response echoes in X-Request-Id.
 */
export function assignRequestId(req: IncomingMessage): string {
  const requestId = acceptedRequestId(req.headers['x-request-id']);
  setRequestId(req, requestId);
  return requestId;
}
