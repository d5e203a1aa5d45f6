import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
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
 * Wraps the server's listener: gives each request its id (requestIdOf in src/log/request-id.ts, which every
 * log line about the request carries) and echoes it in the response's X-Request-Id.
 */
export function withRequestId(listener: RequestListener): RequestListener {
  return (req, res) => {
    const requestId = acceptedRequestId(req.headers['x-request-id']);
    setRequestId(req, requestId);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    listener(req, res);
  };
}
