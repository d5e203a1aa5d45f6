import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import { sendAsmx } from './bindings/asmx-response.js';
import { createCallLogger } from './bindings/call-log.js';
import { createDiscovery, ENDPOINT_FILE } from './bindings/discovery/index.js';
import { createEndpointRoute } from './bindings/endpoint-route.js';
import { createWsdlDocument } from './bindings/discovery/wsdl-document.js';
import { errorPage } from './bindings/error-page.js';
import { createHttpBinding } from './bindings/http/http-binding.js';
import { operationInvoker } from './bindings/invoke.js';
import { answerRequestError, pathOf } from './bindings/request-errors.js';
import { RESULT_RENDERERS } from './bindings/result/formats.js';
import { createNodeSoapStack } from './bindings/soap/node-soap.js';
import { createSoapBinding } from './bindings/soap/soap-binding.js';
import type { Config } from './config/config.js';
import type { Logger } from './log/logger.js';
import type { Metrics } from './ops/metrics.js';
import type { Readiness } from './ops/readiness.js';
import { assignRequestId, REQUEST_ID_HEADER } from './ops/request-context.js';
import { createOpsRouter } from './ops/routes.js';
import type { Services } from './service/index.js';
import { createSigninRouter } from './signin/router.js';

export interface AppDeps {
  config: Config;
  services: Services;
  logger: Logger;
  /**
   * Health, readiness and metrics. Without it, /readyz always answers ready and nothing is counted (tests
   * that need neither); src/main.ts always gives it.
   */
  ops?: AppOps;
}

export interface AppOps {
  readiness: () => Promise<Readiness>;
  /** Where calls and sign-ins are counted; /metrics is served on the main port unless METRICS_PORT is set. */
  metrics?: Metrics | undefined;
}

const ALWAYS_READY = async (): Promise<Readiness> => ({ ready: true });

/**
 * The server's request listener with every binding mounted; it never listens (src/main.ts does). The endpoint
 * is answered directly; everything else (operations, the sign-in pages, 404s) goes through Express.
 */
export async function createApp({ config, services, logger, ops }: AppDeps): Promise<RequestListener> {
  const invoke = operationInvoker(services.authentication);
  const render = RESULT_RENDERERS[config.resultFormat];
  const metrics = ops?.metrics;
  const logCall = createCallLogger(logger, metrics);
  // node-soap always gets every binding: it serves from the first SOAP port whichever are switched off.
  const allBindings = { soap11: true, soap12: true, httpGet: true, httpPost: true };
  const stack = await createNodeSoapStack({
    wsdlXml: createWsdlDocument({ ...config, bindings: allBindings }).render(`http://localhost/${ENDPOINT_FILE}`),
    serviceName: config.serviceName,
    namespace: config.soapNamespace,
  });
  const discovery = createDiscovery(config);
  const handlers = {
    discovery: (req: IncomingMessage, res: ServerResponse) => discovery.handle(req, res),
    soap: createSoapBinding({ config, stack, invoke, render, logCall }),
    http: createHttpBinding({ config, invoke, render, logCall }),
  };

  const endpoint = createEndpointRoute({ basePath: config.basePath, maxBodyBytes: config.maxBodyBytes, handlers, logger });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // /healthz, /readyz and /metrics first, ahead of everything that might read a body or log a line.
  const metricsHere = config.metrics.enabled && config.metrics.port === undefined ? metrics?.registry : undefined;
  app.use(createOpsRouter({ readiness: ops?.readiness ?? ALWAYS_READY, metrics: metricsHere }, logger));
  // Requests in absolute form (GET http://host/Authentication.asmx) reach the endpoint through Express.
  app.use((req, res, next) => {
    const rest = endpoint.match(req.path);
    if (rest === null) return next();
    endpoint.handle(req, res, rest);
  });
  app.use(createSigninRouter({ config, services, logger, metrics }));
  app.use((req, res) => sendAsmx(res, errorPage(404, 'The resource cannot be found.', req.method === 'HEAD')));
  app.use(errorHandler(logger));

  return (req, res) => {
    // Every log line about a request carries its id, and its response echoes it: the endpoint's through
    // sendAsmx, which writes all its headers at once, the others through this header.
    const requestId = assignRequestId(req);
    const rest = req.url?.startsWith('/') ? endpoint.match(pathOf(req.url)) : null;
    if (rest !== null) return endpoint.handle(req, res, rest);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    app(req, res);
  };
}

function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: { status?: number; type?: string; message?: string }, req, res, _next) => answerRequestError(logger, error, req, res);
}
