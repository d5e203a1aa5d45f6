import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { dispatchEndpoint } from './bindings/asmx-endpoint.js';
import { sendAsmx } from './bindings/asmx-response.js';
import { createCallLogger } from './bindings/call-log.js';
import { createDiscovery, ENDPOINT_FILE } from './bindings/discovery/index.js';
import { createWsdlDocument } from './bindings/discovery/wsdl-document.js';
import { errorPage } from './bindings/error-page.js';
import { createHttpBinding } from './bindings/http/http-binding.js';
import { operationInvoker } from './bindings/invoke.js';
import { RESULT_RENDERERS } from './bindings/result/formats.js';
import { createNodeSoapStack } from './bindings/soap/node-soap.js';
import { createSoapBinding } from './bindings/soap/soap-binding.js';
import type { Config } from './config/config.js';
import type { Logger } from './log/logger.js';
import type { Metrics } from './ops/metrics.js';
import type { Readiness } from './ops/readiness.js';
import { requestIdMiddleware } from './ops/request-context.js';
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

const TOO_LARGE = errorPage(413, 'Maximum request length exceeded.');

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Builds the Express app with every binding mounted; it never listens (src/main.ts does). */
export async function createApp({ config, services, logger, ops }: AppDeps): Promise<Express> {
  const invoke = operationInvoker(services.authentication);
  const render = RESULT_RENDERERS[config.resultFormat];
  const metrics = ops?.metrics;
  const logCall = createCallLogger(logger, config.trustProxy, metrics);
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

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // First of all: every later log line of the request carries its id.
  app.use(requestIdMiddleware());
  // Then /healthz, /readyz and /metrics, ahead of everything that might read a body or log a line.
  const metricsHere = config.metrics.enabled && config.metrics.port === undefined ? metrics?.registry : undefined;
  app.use(createOpsRouter({ readiness: ops?.readiness ?? ALWAYS_READY, metrics: metricsHere }, logger));
  // The endpoint path matches case-insensitively, as on IIS; whatever follows ".asmx" is the method path.
  const endpoint = new RegExp(`^${escapeRegExp(`${config.basePath}/${ENDPOINT_FILE}`)}(/.*)?$`, 'i');
  const readBody = bodyParser.raw({ type: () => true, limit: config.maxBodyBytes });

  app.use((req, res, next) => {
    const match = endpoint.exec(req.path);
    if (!match) return next();
    // Refused on the declared length alone: body-parser would first read (and drop) all of it.
    if (Number(req.headers['content-length']) > config.maxBodyBytes) {
      res.setHeader('Connection', 'close');
      return sendAsmx(res, TOO_LARGE);
    }
    readBody(req, res, (error?: unknown) => {
      if (error) return next(error);
      const body = Buffer.isBuffer(req.body) ? req.body : undefined;
      dispatchEndpoint(handlers, req, res, match[1] ?? '', body).catch(next);
    });
  });
  app.use(createSigninRouter({ config, services, logger, metrics }));
  app.use((req, res) => sendAsmx(res, errorPage(404, 'The resource cannot be found.', req.method === 'HEAD')));
  app.use(errorHandler(logger));
  return app;
}

/** Body-reading errors get their HTTP status; anything else is logged and answered without details. */
function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: { status?: number; type?: string; message?: string }, req, res, _next) => {
    if (res.headersSent) return res.destroy();
    if (error.type === 'entity.too.large') return sendAsmx(res, TOO_LARGE);
    if (error.type === 'encoding.unsupported') return sendAsmx(res, errorPage(415, 'Unsupported content encoding.'));
    if (error.type === 'request.aborted') return res.destroy();
    if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
      return sendAsmx(res, errorPage(error.status, 'The request could not be read.'));
    }
    logger.error('unhandled error', { path: req.path, error: error.message });
    sendAsmx(res, errorPage(500, 'An internal error occurred; it has been logged.'));
  };
}
