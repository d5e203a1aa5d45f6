import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log/logger.js';
import { requestIdOf } from '../log/request-id.js';
import { sendAsmx } from './asmx-response.js';
import { errorPage } from './error-page.js';

export const TOO_LARGE = errorPage(413, 'Maximum request length exceeded.');

/** The path of a request target in origin form, without its query (which may hold a security password). */
export function pathOf(url: string | undefined): string {
  const target = url ?? '';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/**
 * Answers a request that failed outside the bindings' own error handling: body-reading errors (body-parser's)
 * get their HTTP status; anything else is logged and answered without details.
 */
export function answerRequestError(logger: Logger, error: { status?: number; type?: string; message?: string }, req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent) return void res.destroy();
  if (error.type === 'entity.too.large') return sendAsmx(res, TOO_LARGE);
  if (error.type === 'encoding.unsupported') return sendAsmx(res, errorPage(415, 'Unsupported content encoding.'));
  if (error.type === 'request.aborted') return void res.destroy();
  if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
    return sendAsmx(res, errorPage(error.status, 'The request could not be read.'));
  }
  logger.error('unhandled error', { path: pathOf(req.url), error: error.message, requestId: requestIdOf(req) });
  sendAsmx(res, errorPage(500, 'An internal error occurred; it has been logged.'));
}
