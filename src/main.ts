import type { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { composeInstance } from './compose.js';
import type { Config } from './config/config.js';
import { loadOrCreateSecretKey } from './config/secret-key.js';
import { givenSettings } from './config/settings.js';
import { providerState } from './oidc/provider-state.js';
import { METRICS_PATH } from './ops/routes.js';
import { createHttpServer, inFlightRequests, startServer, stopServer } from './server.js';
import { StartupError } from './startup-error.js';
import { openStore } from './store/open.js';

/** The metrics listener is only scraped; a stop does not wait long for a scrape in progress. */
const METRICS_STOP_TIMEOUT_MS = 1_000;

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

export interface ServeOptions {
  /** Where SIGTERM and SIGINT come from: the process, or an emitter in tests. */
  signals?: EventEmitter;
  /** Where the log lines go: stdout, or a stream in tests. */
  logStream?: NodeJS.WritableStream;
}

const hostForUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

/**
 * Starts the service and resolves once it has stopped. SIGTERM or SIGINT stops it gracefully: /readyz
 * answers 503 (draining), the listener stops accepting, requests in flight finish (up to SHUTDOWN_TIMEOUT,
 * then their connections are cut), the mail still waiting is delivered (up to SHUTDOWN_TIMEOUT more, none after
 * a second signal), the purge and the metrics listener stop, the sessions' last-seen moves still
 * queued are written, the store closes. A second signal during the stop cuts the requests still in flight at
 * once.
 */
export async function serve(config: Config, options: ServeOptions = {}): Promise<void> {
  const signals: EventEmitter = options.signals ?? process;
  // The key first: an instance that may not start touches no database.
  const secretKey = loadOrCreateSecretKey(config.secretKey, config.dataDir, { shared: config.databaseUrl !== undefined });
  const opened = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl }).catch((error: Error) => {
    throw new StartupError(`cannot open the store: ${error.message}`, { cause: error });
  });
  const servers: Server[] = [];
  const abandon = async (error: unknown): Promise<never> => {
    for (const server of servers) await stopServer(server, { timeoutMs: 0 });
    await opened.close();
    throw error;
  };

  const instance = await composeInstance({ config, store: opened, secretKey, ...(options.logStream ? { logStream: options.logStream } : {}) }).catch(abandon);
  const { logger, readiness, store } = instance;
  const server = instance.createServer();
  const port = await startServer(server, { host: config.host, port: config.port }).catch(abandon);
  servers.push(server);

  let metricsServer: Server | undefined;
  let metricsUrl: string | undefined;
  if (instance.metricsApp && config.metrics.port !== undefined) {
    metricsServer = createHttpServer(instance.metricsApp, config.server);
    const metricsPort = await startServer(metricsServer, {
      host: config.host,
      port: config.metrics.port,
      what: 'listen for metrics',
      portSetting: 'METRICS_PORT',
    }).catch(abandon);
    servers.push(metricsServer);
    metricsUrl = `http://${hostForUrl(config.host)}:${metricsPort}${METRICS_PATH}`;
  } else if (instance.metrics) {
    metricsUrl = `http://${hostForUrl(config.host)}:${port}${METRICS_PATH}`;
  }

  const purge = instance.startPurge();

  logger.info('settings', instance.logFormat === 'json' ? settingsRecord(config) : settingsSummary(config));
  const oidc = await providerState(config, instance.services).catch(() => ({ state: 'unknown', reason: 'the store did not answer' }));
  logger.info('oidc provider', oidc);
  logger.info('listening', {
    url: `http://${hostForUrl(config.host)}:${port}${config.basePath}/Authentication.asmx`,
    store: config.databaseUrl ? 'postgresql' : 'sqlite',
    resultFormat: config.resultFormat,
    operations: config.operations,
    metrics: metricsUrl ?? 'off',
  });

  const signal = await nextSignal(signals);
  const force = new AbortController();
  const onSecondSignal = (second: string) => {
    logger.warn('stopping: second signal, cutting the requests in flight', { signal: second });
    force.abort();
  };
  for (const name of STOP_SIGNALS) signals.on(name, onSecondSignal);
  try {
    const timeoutMs = config.shutdownTimeoutSeconds * 1000;
    readiness.drain();
    logger.info('stopping: draining (readyz answers 503, no new connections)', {
      signal,
      inFlight: inFlightRequests(server),
      timeoutSeconds: config.shutdownTimeoutSeconds,
    });
    const report = await stopServer(server, { timeoutMs, force: force.signal });
    if (report.forced) logger.warn('stopping: requests cut', { ...report });
    else logger.info('stopping: every request finished', { ...report });
    if (instance.mailer) {
      // The requests are done: no mail comes after them. What waits has up to SHUTDOWN_TIMEOUT more.
      const { dropped } = await instance.mailer.stop(force.signal.aborted ? 0 : timeoutMs);
      logger.info('stopping: mail stopped', { dropped });
    }
    await purge.stop();
    logger.info('stopping: purge stopped');
    await instance.services.sessions.flushLastSeen();
    await instance.services.events.flush();
    if (metricsServer) {
      await stopServer(metricsServer, { timeoutMs: METRICS_STOP_TIMEOUT_MS, force: force.signal });
      logger.info('stopping: metrics listener closed');
    }
    await store.close();
    logger.info('stopping: store closed');
    logger.info('stopped');
  } finally {
    for (const name of STOP_SIGNALS) signals.off(name, onSecondSignal);
  }
}

/** Every setting with its value and source, for the JSON log (config show --all has the same). */
const settingsRecord = (config: Config) => ({
  profile: config.profile ?? null,
  settings: Object.fromEntries(config.settings.map(({ name, value, source }) => [name, { value, source }])),
});

/** What a person at a terminal wants of the settings: the profile, and the settings given. */
function settingsSummary(config: Config) {
  const given = givenSettings(config.settings);
  return { profile: config.profile ?? 'none', given: given.length > 0 ? given.join(', ') : 'none' };
}

/** Resolves with the name of the first SIGTERM or SIGINT. */
function nextSignal(signals: EventEmitter): Promise<string> {
  return new Promise((resolve) => {
    const handlers = STOP_SIGNALS.map((name) => {
      const handler = () => {
        for (const [other, h] of handlers) signals.off(other, h);
        resolve(name);
      };
      return [name, handler] as const;
    });
    for (const [name, handler] of handlers) signals.on(name, handler);
  });
}
