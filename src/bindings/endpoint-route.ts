import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import type { Logger } from '../log/logger.js';
import { dispatchEndpoint, type EndpointHandlers } from './asmx-endpoint.js';
import { sendAsmx } from './asmx-response.js';
import { ENDPOINT_FILE } from './discovery/index.js';
import { readIdentityBody } from './read-body.js';
import { answerRequestError, TOO_LARGE } from './request-errors.js';

export interface EndpointRoute {
  /** The path after ".asmx" (empty for the endpoint itself) when `path` is the endpoint's, else null. */
  match(path: string): string | null;
  /** Reads the body within its limit and hands the request to the bindings. */
  handle(req: IncomingMessage, res: ServerResponse, rest: string): void;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * {BASE_PATH}/Authentication.asmx and everything under it. It is served ahead of Express (src/app.ts): the
 * endpoint takes every call, and Express's router in front of it took about 5% of a SOAP call's time in a
 * CPU profile (npm run bench with BENCH_PROFILE=1).
 */
export function createEndpointRoute(options: { basePath: string; maxBodyBytes: number; handlers: EndpointHandlers; logger: Logger }): EndpointRoute {
  const { maxBodyBytes, handlers, logger } = options;
  // The path matches case-insensitively, as on IIS; whatever follows ".asmx" is the method path.
  const endpoint = new RegExp(`^${escapeRegExp(`${options.basePath}/${ENDPOINT_FILE}`)}(/.*)?$`, 'i');
  const readBody = bodyParser.raw({ type: () => true, limit: maxBodyBytes });
  const fail = (req: IncomingMessage, res: ServerResponse) => (error: unknown) => answerRequestError(logger, error as Error, req, res);

  return {
    match(path) {
      const found = endpoint.exec(path);
      return found ? (found[1] ?? '') : null;
    },
    handle(req, res, rest) {
      // Refused on the declared length alone: body-parser would first read (and drop) all of it.
      if (Number(req.headers['content-length']) > maxBodyBytes) {
        res.setHeader('Connection', 'close');
        return sendAsmx(res, TOO_LARGE);
      }
      // Only POSTs carry what the bindings read; Node discards any other request's body after the response.
      if (req.method !== 'POST') {
        dispatchEndpoint(handlers, req, res, rest, undefined).catch(fail(req, res));
        return;
      }
      const answer = (error: unknown, body: Buffer | undefined) => {
        if (error) return fail(req, res)(error);
        dispatchEndpoint(handlers, req, res, rest, body).catch(fail(req, res));
      };
      // Compressed bodies are rare and need body-parser's inflating; the others are read directly.
      const encoding = req.headers['content-encoding'];
      if (encoding === undefined || encoding.toLowerCase() === 'identity') return readIdentityBody(req, maxBodyBytes, answer);
      const withBody = req as IncomingMessage & { body?: unknown };
      readBody(withBody, res, (error?: unknown) => answer(error, Buffer.isBuffer(withBody.body) ? withBody.body : undefined));
    },
  };
}
