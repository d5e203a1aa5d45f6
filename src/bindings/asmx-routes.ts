import bodyParser from 'body-parser';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { AuthenticationService } from '../service/authentication.js';
import { ENDPOINT_FILE } from '../web/endpoint-url.js';
import { strictTransportSecurity } from '../web/strict-transport.js';
import { errorResponse } from './asmx-errors.js';
import { sendAsmx } from './asmx-response.js';
import { createCallLogger, type CallMetrics } from './call-log.js';
import type { Refuse } from './request-errors.js';
import { createDiscovery } from './discovery/index.js';
import { createWsdlDocument } from './discovery/wsdl-document.js';
import { addHttpSidecar, namedHttpCall } from './http/sidecar.js';
import { createOperationTable } from './operations.js';
import { createResultRenderer } from './result/formats.js';
import { routeRefusals, type RouteRefusals } from './route-refusals.js';
import { createSoapStack } from './soap/node-soap.js';
import { soapOperations } from './soap/operations.js';
import { createSoapBinding, namedSoapCall } from './soap/soap-binding.js';

export interface AsmxDeps {
  config: Config;
  authentication: AuthenticationService;
  logger: Logger;
  /** Where calls are counted besides the log. */
  metrics?: CallMetrics | undefined;
  /** How a request refused before a binding took it is answered, logged and counted. */
  refuse: Refuse;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A body of undeclared length (chunked) that outgrows the limit is refused as soon as it does, and its
 * connection closed without reading the rest. body-parser sees the same chunk and then reads off the whole
 * body before it reports; so the answer comes on the next turn, and stops the reading it began.
 */
function refuseOnceTooLong(req: Request, res: Response, limit: number, refuse: RouteRefusals['refuse']): void {
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= limit) return;
    req.off('data', count);
    setImmediate(() => {
      req.pause();
      if (!res.headersSent) refuse(req, res, { code: 'REQUEST_TOO_LARGE' }, { close: true });
    });
  };
  req.on('data', count);
}

const isJson = (req: Request) => /^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '');

/**
 * Adds {BASE_PATH}/Authentication.asmx to the app as ASMX serves it, matched in any letter case as on IIS:
 * - the endpoint itself: GET for ?wsdl, ?disco and the help pages, POST for SOAP 1.1 and 1.2, anything else 405;
 * - below it, the HTTP GET/POST sidecar (src/bindings/http/sidecar.ts): /{Operation}.
 * Each route's first handler (the guard) gives the request its Strict-Transport-Security value, refuses a body declared larger than MAX_BODY_BYTES unread, and a JSON
 * POST as .NET's script handler refuses a class without [ScriptService]; these and a body that cannot be read
 * are refused calls of the operation the request names (src/bindings/route-refusals.ts). They are two routes on
 * the app itself, with no middleware or router of their own: every call passes them, and each router level or
 * `use` layer costs it a dispatch.
 */
export async function mountAsmx(app: Express, deps: AsmxDeps): Promise<void> {
  const { config } = deps;
  const operations = createOperationTable(deps.authentication, createResultRenderer(config), config);
  const logCall = createCallLogger(deps.logger, deps.metrics);
  // node-soap always gets every binding: each SOAP version's answers are written from its own port.
  const allBindings = { soap11: true, soap12: true, httpGet: true, httpPost: true };
  const stack = await createSoapStack({
    wsdlXml: createWsdlDocument({ ...config, bindings: allBindings }).render(`http://localhost/${ENDPOINT_FILE}`),
    names: config.wsdlNames,
    operations,
  });
  const discovery = createDiscovery(config);
  const soapNames = soapOperations(config.soapNamespace, operations.names);
  const soap = createSoapBinding({ config, stack, operations: soapNames, logCall });
  const endpointPath = `${config.basePath}/${ENDPOINT_FILE}`;
  // The endpoint's path itself is SOAP's; a longer one (matched in any letter case) is the sidecar's.
  const refusals = routeRefusals({
    config,
    refuse: deps.refuse,
    logCall,
    callOf: (req) => (req.path.length === endpointPath.length ? namedSoapCall(req, soapNames) : namedHttpCall(req, endpointPath, operations)),
  });
  const readRaw = bodyParser.raw({ type: () => true, limit: config.maxBodyBytes });
  const methodNotAllowed = (req: Request, res: Response) =>
    sendAsmx(res, errorResponse('endpoint', { code: 'METHOD_NOT_ALLOWED' }, { headOnly: req.method === 'HEAD' }));

  const strictTransport = strictTransportSecurity(config);
  const guard = (req: Request, res: Response, next: NextFunction) => {
    // Kept for the answer, which sendAsmx writes with every header at once.
    strictTransport(req);
    // Refused on the declared length alone: body-parser would first read (and drop) all of it.
    if (Number(req.headers['content-length']) > config.maxBodyBytes) return refusals.refuse(req, res, { code: 'REQUEST_TOO_LARGE' }, { close: true });
    if (req.method === 'POST' && isJson(req)) return refusals.refuse(req, res, { code: 'SCRIPT_SERVICE_REQUIRED' });
    if (req.method === 'POST' && req.headers['content-length'] === undefined) refuseOnceTooLong(req, res, config.maxBodyBytes, refusals.refuse);
    next();
  };

  const endpoint = escapeRegExp(endpointPath);
  app
    .route(new RegExp(`^${endpoint}$`, 'i'))
    .all(guard)
    .head(methodNotAllowed)
    .get((req, res) => discovery.handle(req, res))
    .post(readRaw, soap, refusals.readingErrors)
    .all(methodNotAllowed);
  addHttpSidecar(app, new RegExp(`^${endpoint}/`, 'i'), { guard, readingErrors: refusals.readingErrors }, { config, endpointPath, operations, logCall });
}
