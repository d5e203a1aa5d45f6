import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../log/logger.js';
import type { Refusal } from '../log/refusal-log.js';
import type { HostPolicy } from '../web/host-policy.js';
import { requestIdOf } from '../web/request-id.js';
import { errorResponse, type AsmxError, type ErrorOf } from './asmx-errors.js';
import { sendAsmx } from './asmx-response.js';

/** Answers a request refused before any binding took it, and records it. */
export type Refuse = (req: IncomingMessage, res: ServerResponse, error: AsmxError<ErrorOf<'endpoint'>>, options?: { close?: boolean }) => void;

/** `record` is src/log/refusal-log.ts's; `clientOf` reads the client's address as the call log does. */
export function createRefusals(record: (refusal: Refusal) => void, clientOf: (req: IncomingMessage) => string): Refuse {
  return (req, res, error, options = {}) => {
    const status = answerRefusal(req, res, error, options);
    record({ status, reason: error.code, client: clientOf(req), path: pathOf(req.url), requestId: requestIdOf(req) });
  };
}

/** Answers a refused request with the error's ASMX page (its head alone for HEAD); returns the status. */
export function answerRefusal(req: IncomingMessage, res: ServerResponse, error: AsmxError<ErrorOf<'endpoint'>>, options: { close?: boolean } = {}): number {
  if (options.close) res.setHeader('Connection', 'close');
  const response = errorResponse('endpoint', error, { headOnly: req.method === 'HEAD' });
  sendAsmx(res, response);
  return response.status;
}

/** The path of a request target, without its query (which may hold a security password). */
export function pathOf(url: string | undefined): string {
  const target = url ?? '';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** What body-parser's errors (by their `type`) are answered with. */
const BODY_ERRORS: Record<string, AsmxError<ErrorOf<'endpoint'>>> = {
  'entity.too.large': { code: 'REQUEST_TOO_LARGE' },
  'parameters.too.many': { code: 'TOO_MANY_PARAMETERS' },
  'encoding.unsupported': { code: 'UNSUPPORTED_ENCODING' },
  'charset.unsupported': { code: 'UNSUPPORTED_CHARSET' },
};

/**
 * Requests for a host ALLOWED_HOSTS does not list are refused, as IIS and ASP.NET Core's host filtering refuse
 * them; `exempt` paths (the probes, which orchestrators call by address) are answered whatever the host.
 */
export function hostFilter(policy: HostPolicy, exempt: ReadonlySet<string>, refuse: Refuse): RequestHandler {
  return (req, res, next) => {
    if (policy.serves(req) || exempt.has(req.path)) return next();
    refuse(req, res, { code: 'INVALID_HOSTNAME' });
  };
}

/** Anything no route took: ASP.NET's 404 page. */
export const notFound: RequestHandler = (req, res) =>
  sendAsmx(res, errorResponse('endpoint', { code: 'NOT_FOUND' }, { headOnly: req.method === 'HEAD' }));

/**
 * What an error met while reading the request's body is answered with: 'drop' when there is no one to answer (the
 * client went away, or the answer is on its way already), undefined when it is no reading error.
 */
export function readingRefusal(error: { status?: number; type?: string }, res: ServerResponse): AsmxError<ErrorOf<'endpoint'>> | 'drop' | undefined {
  if (res.headersSent || error.type === 'request.aborted') return 'drop';
  const known = error.type === undefined ? undefined : BODY_ERRORS[error.type];
  if (known) return known;
  if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) return { code: 'UNREADABLE_REQUEST' };
  return undefined;
}

/**
 * The app's error handler: body-reading errors get their ASMX page; a client that went away gets nothing;
 * anything else is logged and answered without details.
 */
export function requestErrorHandler(logger: Logger, refuse: Refuse): ErrorRequestHandler {
  return (error: { status?: number; type?: string; message?: string }, req, res, _next) => {
    const refusal = readingRefusal(error, res);
    if (refusal === 'drop') return void res.destroy();
    if (refusal) return refuse(req, res, refusal);
    logger.error('unhandled error', { path: pathOf(req.url), error: error.message, requestId: requestIdOf(req) });
    sendAsmx(res, errorResponse('endpoint', { code: 'INTERNAL_ERROR' }));
  };
}
