import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id is kept when it is short and made of characters that are safe in logs and headers. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The id each request is known by, written into every log line about the request and echoed in X-Request-Id.
 * It hangs off the request rather than an AsyncLocalStorage, whose promise hooks would cost every call.
 */
const requestIds = new WeakMap<IncomingMessage, string>();

/** The id a request is known by: the caller's (a proxy's) X-Request-Id when it is acceptable, else a new UUID. */
export function acceptedRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_ID.test(value) ? value : randomUUID();
}

/**
 * The request's id, given the first time it is asked for: every response and log line about the request asks,
 * so each request has one by the time anything is written, without a middleware that every request would pass.
 */
export function requestIdOf(req: IncomingMessage): string {
  let requestId = requestIds.get(req);
  if (requestId === undefined) requestIds.set(req, (requestId = acceptedRequestId(req.headers['x-request-id'])));
  return requestId;
}
