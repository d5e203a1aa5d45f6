import type { Request, RequestHandler, Response } from 'express';
import { errorBody, ScimError } from './errors.js';
import { SCIM_MEDIA_TYPE } from './urns.js';

/** Writes a SCIM answer: JSON as application/scim+json, never cached (it names people), no body for HEAD. */
export function sendScim(req: Request, res: Response, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
  res.statusCode = status;
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (payload !== undefined) {
    res.setHeader('Content-Type', `${SCIM_MEDIA_TYPE}; charset=utf-8`);
    res.setHeader('Content-Length', payload.length);
  }
  res.end(req.method === 'HEAD' ? undefined : payload);
}

export function sendError(req: Request, res: Response, error: ScimError, headers: Record<string, string> = {}): void {
  sendScim(req, res, error.status, errorBody(error), headers);
}

/** A 405 naming the methods an endpoint takes, in Allow too. */
export const methodNotAllowed =
  (allowed: string): RequestHandler =>
  (req, res) =>
    sendError(req, res, new ScimError(405, undefined, `${req.method} is not supported here; ${allowed} are`), { Allow: allowed });
