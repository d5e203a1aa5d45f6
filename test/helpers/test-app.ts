import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { composeInstance } from '../../src/compose.js';
import { loadConfig, type Config, type Environment } from '../../src/config/config.js';
import type { Logger } from '../../src/log/logger.js';
import type { Metrics } from '../../src/ops/metrics.js';
import type { ReadinessProbe } from '../../src/ops/readiness.js';
import { createHttpServer, startServer, stopServer } from '../../src/server.js';
import type { Clock } from '../../src/service/clock.js';
import type { Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { logCapture } from './log-capture.js';
import { REFERENCE, seedReference } from './reference-data.js';
import { tempSqliteStore } from './temp-store.js';

export interface TestApp {
  config: Config;
  /** The server key: another app on the same store (another instance) needs the same one. */
  secretKey: Buffer;
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

/** A store a test opened itself, and how to close it (and remove what it made) when the app closes. */
export interface OpenedStore {
  store: Store;
  cleanup: () => Promise<void>;
}

/**
 * The app on a temporary store (SQLite unless `store` says postgres, or the one `store` opens) and `port` (an ephemeral one unless given) on `host` (127.0.0.1), seeded with the reference data by default, with a random server key unless given,
 * wired by the composition root src/main.ts uses (src/compose.ts).
 */
export async function startTestApp(
  options: {
    env?: Environment;
    seed?: boolean;
    clock?: Clock;
    store?: 'sqlite' | 'postgres' | (() => Promise<OpenedStore>);
    host?: string;
    port?: number;
    secretKey?: Buffer;
  } = {},
): Promise<TestApp> {
  const host = options.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const config = loadConfig({ LOG_LEVEL: 'info', SOAP_NAMESPACE: REFERENCE.namespace, RESULT_FORMAT: 'plain', ...options.env });
  // Loaded only when asked for: test/helpers/postgres.ts probes the server as it loads.
  const temp =
    typeof options.store === 'function'
      ? await options.store()
      : options.store === 'postgres'
        ? await (await import('./postgres.js')).tempPostgresStore()
        : await tempSqliteStore();
  const logs = logCapture();
  const secretKey = options.secretKey ?? randomBytes(32);
  const instance = await composeInstance({
    config,
    store: temp.store,
    secretKey,
    logStream: logs.stream,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const { services, store, logger, metrics, readiness, mailer } = instance;
  if (options.seed ?? true) await seedReference(services);
  const logLines = logs.lines;
  const server = instance.createServer();
  const port = await startServer(server, { host, port: options.port ?? 0 });
  let metricsServer: Server | undefined;
  let metricsBaseUrl: string | undefined;
  if (instance.metricsApp && config.metrics.port !== undefined) {
    metricsServer = createHttpServer(instance.metricsApp, config.server);
    metricsBaseUrl = `http://127.0.0.1:${await startServer(metricsServer, { host: '127.0.0.1', port: config.metrics.port })}`;
  }
  return {
    config,
    secretKey,
    services,
    store,
    server,
    port,
    baseUrl: `http://${urlHost}:${port}`,
    logger,
    logLines,
    metrics,
    readiness,
    metricsBaseUrl,
    async close() {
      await stopServer(server, { timeoutMs: 0 });
      if (metricsServer) await stopServer(metricsServer, { timeoutMs: 0 });
      await mailer?.stop(0);
      await temp.cleanup();
    },
  };
}
