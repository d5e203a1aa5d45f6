import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config, type Environment } from '../../src/config/config.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { instrumentStore } from '../../src/ops/instrument-store.js';
import { createMetrics, type Metrics } from '../../src/ops/metrics.js';
import { metricsListener } from '../../src/ops/metrics-server.js';
import { createReadiness, type ReadinessProbe } from '../../src/ops/readiness.js';
import { createHttpServer, startServer, stopServer } from '../../src/server.js';
import type { Clock } from '../../src/service/clock.js';
import { createServices, type Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { REFERENCE, seedReference } from './reference-data.js';
import { tempSqliteStore } from './temp-store.js';

export interface TestApp {
  config: Config;
  services: Services;
  /** The store as the app uses it (instrumented when metrics are on). */
  store: Store;
  server: Server;
  port: number;
  baseUrl: string;
  logger: Logger;
  /** Every log line written, parsed. */
  logLines: Array<Record<string, unknown>>;
  /** Wired as src/main.ts wires them: undefined with METRICS_ENABLED=false. */
  metrics: Metrics | undefined;
  readiness: ReadinessProbe;
  /** The separate metrics listener's base URL, when METRICS_PORT is set (use 0 for an ephemeral port). */
  metricsBaseUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * The app on a temporary store and an ephemeral loopback port, seeded with the reference data by default,
 * wired as src/main.ts wires it: request ids, readiness, metrics (unless METRICS_ENABLED=false), the
 * instrumented store and the session events.
 */
export async function startTestApp(options: { env?: Environment; seed?: boolean; clock?: Clock } = {}): Promise<TestApp> {
  const config = loadConfig({ LOG_LEVEL: 'info', SOAP_NAMESPACE: REFERENCE.namespace, RESULT_FORMAT: 'plain', ...options.env });
  const temp = await tempSqliteStore();
  const metrics = config.metrics.enabled ? createMetrics() : undefined;
  const store = metrics ? instrumentStore(temp.store, (operation) => metrics.storeError(operation)) : temp.store;
  const services = createServices({
    store,
    secretKey: randomBytes(32),
    session: config.session,
    signin: config.signin,
    callerThrottle: config.callerThrottle,
    cacheTtlMs: config.cacheTtlMs,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(metrics ? { events: metrics } : {}),
  });
  if (options.seed ?? true) await seedReference(services);
  const logLines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  const readiness = createReadiness({ store, logger });
  const app = await createApp({ config, services, logger, ops: { readiness: () => readiness.check(), metrics } });
  const server = createHttpServer(app, config.server);
  const port = await startServer(server, { host: '127.0.0.1', port: 0 });
  let metricsServer: Server | undefined;
  let metricsBaseUrl: string | undefined;
  if (metrics && config.metrics.port !== undefined) {
    metricsServer = createHttpServer(metricsListener(metrics.registry, logger), config.server);
    metricsBaseUrl = `http://127.0.0.1:${await startServer(metricsServer, { host: '127.0.0.1', port: config.metrics.port })}`;
  }
  return {
    config,
    services,
    store,
    server,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    logger,
    logLines,
    metrics,
    readiness,
    metricsBaseUrl,
    async close() {
      await stopServer(server, { timeoutMs: 0 });
      if (metricsServer) await stopServer(metricsServer, { timeoutMs: 0 });
      await temp.cleanup();
    },
  };
}
