import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendAsmx } from './asmx-response.js';
import { errorPage } from './error-page.js';

export interface EndpointHandlers {
  discovery(req: IncomingMessage, res: ServerResponse): void;
  soap(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void>;
  http(req: IncomingMessage, res: ServerResponse, methodName: string, body: Buffer | undefined): Promise<void>;
}

/**
 * Dispatch on the .asmx as ASMX does: the endpoint itself takes GET (metadata and help) and POST (SOAP);
 * /Authentication.asmx/{Method} takes GET and POST (the HTTP bindings). Anything else is ASP.NET's refusal.
 * `rest` is the path after ".asmx" (empty for the endpoint itself) and `body` the raw request body.
 */
/** .NET hands JSON POSTs to its script handler, which refuses a class without [ScriptService], as ours is. */
const SCRIPT_SERVICE_REQUIRED = 'Only Web services with a [ScriptService] attribute on the class definition can be called from script.';
const isJson = (req: IncomingMessage) => /^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '');

export async function dispatchEndpoint(
  handlers: EndpointHandlers,
  req: IncomingMessage,
  res: ServerResponse,
  rest: string,
  body: Buffer | undefined,
): Promise<void> {
  if (req.method === 'POST' && isJson(req)) return sendAsmx(res, errorPage(500, SCRIPT_SERVICE_REQUIRED));
  if (rest === '') {
    if (req.method === 'GET') return handlers.discovery(req, res);
    if (req.method === 'POST') return handlers.soap(req, res, body ?? Buffer.alloc(0));
    return sendAsmx(res, errorPage(405, 'Request format is unrecognized.', req.method === 'HEAD'));
  }
  const methodName = rest.slice(1);
  if (req.method === 'GET' || req.method === 'POST') return handlers.http(req, res, methodName, body);
  return sendAsmx(res, errorPage(500, `Request format is unrecognized for URL unexpectedly ending in '${rest}'.`, req.method === 'HEAD'));
}
