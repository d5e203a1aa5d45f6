import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import { mountAsmx } from './bindings/asmx-routes.js';
import type { CallMetrics } from './bindings/call-log.js';
import { createRefusals, hostFilter, notFound, requestErrorHandler } from './bindings/request-errors.js';
import type { Config } from './config/config.js';
import type { Logger } from './log/logger.js';
import type { Refusal } from './log/refusal-log.js';
import type { Readiness } from './ops/readiness.js';
import { createOpsRouter, HEALTH_PATH, METRICS_PATH, READY_PATH } from './ops/routes.js';
import type { Services } from './service/index.js';
import { createSigninRouter, type SigninMetrics } from './signin/router.js';
import { clientAddress } from './web/client-address.js';
import { createHostPolicy } from './web/host-policy.js';
import { assignRequestId, REQUEST_ID_HEADER, requestIdOf } from './web/request-id.js';

export interface AppDeps {
  config: Config;
  services: Services;
  logger: Logger;
  readiness: () => Promise<Readiness>;
  /** Where calls and sign-ins are counted. */
  metrics?: (CallMetrics & SigninMetrics) | undefined;
  /** Where requests refused before a binding took them are recorded (src/log/refusal-log.ts). */
  recordRefusal: (refusal: Refusal) => void;
  /** Served at /metrics on the main port when given (metrics on, no METRICS_PORT). */
  metricsRegistry?: Registry | undefined;
}

/**
 * The whole application as one Express app; it never listens (src/main.ts does). In order: every request
 * gets its id; with ALLOWED_HOSTS, a request for another host is refused; the ASMX endpoint and its HTTP
 * GET/POST sidecar, which take nearly every request; /healthz, /readyz and /metrics; the sign-in pages;
 * ASP.NET's 404 for anything else; one error handler. Every response echoes the request's id in
 * X-Request-Id and forbids content sniffing.
 */
export async function createApp({ config, services, logger, readiness, metrics, metricsRegistry, recordRefusal }: AppDeps): Promise<Express> {
  const refuse = createRefusals(recordRefusal, (req) => clientAddress(req, config.trustProxy));
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((req, _res, next) => {
    assignRequestId(req);
    next();
  });
  if (config.allowedHosts !== undefined) app.use(hostFilter(createHostPolicy(config), new Set([HEALTH_PATH, READY_PATH, METRICS_PATH]), refuse));
  // ASMX responses write both headers among the others they write at once (src/bindings/asmx-response.ts);
  // every other response gets them here: setHeader would put every ASMX response on Node's slower header path.
  await mountAsmx(app, { config, authentication: services.authentication, logger, metrics, refuse });
  app.use((req, res, next) => {
    res.setHeader(REQUEST_ID_HEADER, requestIdOf(req) ?? '');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.use(createOpsRouter({ readiness, metrics: metricsRegistry }, logger));
  app.use(createSigninRouter({ config, services, logger, metrics }));
  app.use(notFound);
  app.use(requestErrorHandler(logger, refuse));
  return app;
}
