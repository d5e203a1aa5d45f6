import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { requestContext } from '../log/request-id.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id is kept when it is short and made of characters that are safe in logs and headers. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id a request is known by: the caller's (a proxy's) X-Request-Id when it is acceptable, else a new UUID. */
export function requestIdOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_ID.test(value) ? value : randomUUID();
}

/**
 * The first middleware: gives the request its id, echoes it in the response's X-Request-Id and runs the rest
 * of the request inside the request context, so that every log line written for it carries the id.
 */
export function requestIdMiddleware(): RequestHandler {
  return (req, res, next) => {
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    requestContext.run({ requestId }, () => next());
  };
}
