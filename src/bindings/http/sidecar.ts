import type { IncomingMessage } from 'node:http';
import bodyParser from 'body-parser';
import contentType from 'content-type';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import type { Config } from '../../config/config.js';
import { callSender } from '../../web/call-sender.js';
import { clientAddress } from '../../web/client-address.js';
import { sessionCookieDomain } from '../../web/endpoint-url.js';
import { requestIdOf } from '../../web/request-id.js';
import { errorResponse, type AsmxError, type ErrorOf } from '../asmx-errors.js';
import { CONTENT_TYPE, sendAsmx, type AsmxResponse } from '../asmx-response.js';
import { callResult, type BindingName, type CallLogger, type CallResult } from '../call-log.js';
import type { OperationTable } from '../operations.js';
import type { NamedCall } from '../route-refusals.js';
import { escapeXmlAttribute, escapeXmlText } from '../../web/xml-text.js';

export interface HttpSidecarDeps {
  config: Config;
  /** The endpoint's own path ({BASE_PATH}/Authentication.asmx), which the sidecar's paths continue. */
  endpointPath: string;
  operations: OperationTable;
  logCall: CallLogger;
}

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** ASP.NET reads at most this many form fields (aspnet:MaxHttpCollectionKeys). */
const MAX_FORM_PARAMETERS = 1000;

/**
 * Request.Form and Request.QueryString: names match case-insensitively and repeated values join with
 * commas. Collected once, in one pass over what the parser gave (a string, or an array for a repeated name).
 */
function parameterReader(fields: unknown): (name: string) => string | null {
  const byName = new Map<string, string[]>();
  if (typeof fields === 'object' && fields !== null) {
    for (const [key, value] of Object.entries(fields)) {
      const lower = key.toLowerCase();
      let values = byName.get(lower);
      if (values === undefined) byName.set(lower, (values = []));
      if (Array.isArray(value)) for (const item of value) values.push(String(item));
      else values.push(String(value));
    }
  }
  return (name) => byName.get(name.toLowerCase())?.join(',') ?? null;
}

function isForm(req: IncomingMessage): boolean {
  try {
    return contentType.parse(req.headers['content-type'] ?? '').type === FORM_TYPE;
  } catch {
    return false;
  }
}

/** The method name after "/Authentication.asmx/", decoded when it can be. */
function methodName(below: string): string {
  const raw = below.slice(1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The path below the endpoint: "/{Operation}" (matched in any letter case, so of the same length). */
const belowEndpoint = (req: Request, endpointPath: string) => req.path.slice(endpointPath.length);

const bindingOf = (req: Request): BindingName => (req.method === 'GET' ? 'httpget' : 'httppost');

/** The call a GET or POST below the endpoint names by its path, if the deployment offers that operation. */
export function namedHttpCall(req: Request, endpointPath: string, operations: OperationTable): NamedCall | undefined {
  if (req.method !== 'GET' && req.method !== 'POST') return undefined;
  const name = methodName(belowEndpoint(req, endpointPath));
  return operations.offers(name) ? { binding: bindingOf(req), operation: name } : undefined;
}

/**
 * The ASMX sidecar: GET and POST to {BASE_PATH}/Authentication.asmx/{Operation}, parameters from the query
 * string (GET) or the form body (POST only), the result as <string> in the service namespace; anything but
 * GET and POST is ASP.NET's refusal. Added to the app as one route for `path` (the paths below the endpoint),
 * after `guard`, with `readingErrors` for the form's: a route on the app rather than a router of its own, whose
 * level would cost every call a dispatch.
 */
export function addHttpSidecar(app: Express, path: RegExp, handlers: { guard: RequestHandler; readingErrors: ErrorRequestHandler }, deps: HttpSidecarDeps): void {
  const { config, operations, logCall } = deps;
  const below = (req: Request) => belowEndpoint(req, deps.endpointPath);
  const ns = escapeXmlAttribute(config.soapNamespace);
  const stringElement = (result: string) => {
    const element = result === '' ? `<string xmlns="${ns}" />` : `<string xmlns="${ns}">${escapeXmlText(result)}</string>`;
    return `<?xml version="1.0" encoding="utf-8"?>\n${element}`;
  };
  const readForm = bodyParser.urlencoded({ extended: false, limit: config.maxBodyBytes, parameterLimit: MAX_FORM_PARAMETERS });

  const handle = async (req: Request, res: Response): Promise<void> => {
    const startedAt = process.hrtime.bigint();
    const binding = bindingOf(req);
    const client = clientAddress(req, config.trustProxy);
    const reply = (response: AsmxResponse, operation: string | undefined, result: CallResult) => {
      sendAsmx(res, response);
      logCall({ req, client, binding, operation, startedAt, status: response.status, result });
    };
    const refuse = (error: AsmxError<ErrorOf<'http'>>, operation?: string) => reply(errorResponse('http', error), operation, { refused: error.code });

    const name = methodName(below(req));
    const enabled = binding === 'httpget' ? config.bindings.httpGet : config.bindings.httpPost;
    if (!enabled) return refuse({ code: 'UNRECOGNIZED_URL', args: [`/${name}`] }, operations.offers(name) ? name : undefined);
    if (!operations.offers(name)) {
      const otherCase = operations.names.find((op) => op.toLowerCase() === name.toLowerCase());
      return refuse(otherCase ? { code: 'METHOD_NAME_CASE', args: [name, otherCase] } : { code: 'UNKNOWN_METHOD', args: [name] });
    }
    if (binding === 'httppost' && !isForm(req)) return refuse({ code: 'FORM_REQUIRED', args: [req.headers['content-type'] ?? ''] }, name);
    const read = parameterReader(binding === 'httpget' ? req.query : req.body);
    const missing = operations.parameters(name).find((parameter) => read(parameter) === null);
    if (missing !== undefined) return refuse({ code: 'MISSING_PARAMETER', args: [missing] }, name);

    const context = { clientAddress: client, cookieDomain: () => sessionCookieDomain(req, config), requestId: requestIdOf(req), sender: () => callSender(req) };
    const answer = await operations.invoke(name, read, context);
    const response: AsmxResponse = answer.ok
      ? { status: 200, contentType: CONTENT_TYPE.xml, body: stringElement(answer.result), cacheControl: 'private, max-age=0' }
      : errorResponse('http', answer.fault);
    reply(response, name, callResult(answer));
  };
  const unrecognized = (req: Request, res: Response) =>
    sendAsmx(res, errorResponse('endpoint', { code: 'UNRECOGNIZED_URL', args: [below(req)] }, { headOnly: req.method === 'HEAD' }));

  app.route(path).all(handlers.guard).head(unrecognized).get(handle).post(readForm, handle, handlers.readingErrors).all(unrecognized);
}
