import type { RequestListener, Server } from 'node:http';
import type { Express } from 'express';
import { createApp } from './app.js';
import type { Config } from './config/config.js';
import { composeMailer } from './compose/mailer.js';
import { serviceSettings } from './compose/service-settings.js';
import { lineStyle } from './log/line-style.js';
import { createLogger, type Logger } from './log/logger.js';
import { refusalLog } from './log/refusal-log.js';
import type { ServiceMailer } from './mail/mail.js';
import { watchEventWrites } from './ops/event-writes.js';
import { createMetrics, type Metrics, type PurgeKind } from './ops/metrics.js';
import { metricsListener } from './ops/metrics-server.js';
import { startPurge, type PurgeScheduler } from './ops/purge.js';
import { createReadiness, type ReadinessProbe } from './ops/readiness.js';
import { watchStoreAvailability } from './ops/store-availability.js';
import { createHttpServer } from './server.js';
import type { Clock } from './service/clock.js';
import { checkDeploymentKey } from './service/deployment-key.js';
import { createServices, type EndedSessions, type Services } from './service/index.js';
import { instrumentStore } from './store/instrumented.js';
import type { Store } from './store/store.js';

export interface InstanceOptions {
  config: Config;
  /** An open store; the instance takes it over, instrumented: its failures are counted and its unavailability logged. */
  store: Store;
  secretKey: Buffer;
  /** Where the log lines go: stdout unless given (tests capture them); LOG_FORMAT=auto asks it whether it is a terminal. */
  logStream?: { write(line: string): unknown; readonly isTTY?: boolean };
  clock?: Clock;
}

/** Everything one running instance is made of, wired; src/main.ts listens and stops, tests do the same. */
export interface Instance {
  readonly config: Config;
  readonly logger: Logger;
  /** How the log lines are written: JSON, or readable lines (LOG_FORMAT, and whether the destination is a terminal). */
  readonly logFormat: 'json' | 'pretty';
  /** The store as the services use it. */
  readonly store: Store;
  readonly services: Services;
  /** The members' mail (SMTP_URL), delivered in the background; undefined without SMTP_URL. Stopped after the HTTP drain. */
  readonly mailer: ServiceMailer | undefined;
  /** Undefined with METRICS_ENABLED=false. */
  readonly metrics: Metrics | undefined;
  readonly readiness: ReadinessProbe;
  /** The whole application. */
  readonly app: Express;
  /** The HTTP server for the app (it does not listen yet). */
  createServer(): Server;
  /** The listener of the separate metrics port, when METRICS_PORT is set. */
  readonly metricsApp: RequestListener | undefined;
  /** Starts the background purge of ended sessions and stale throttle records. */
  startPurge(): PurgeScheduler;
}

/** The one place the parts of the service are put together, for the server and for the tests alike. */
export async function composeInstance(options: InstanceOptions): Promise<Instance> {
  const { config } = options;
  await checkDeploymentKey(options.store, options.secretKey);
  const style = lineStyle(config.logFormat, options.logStream ?? process.stdout, config.noColor);
  const logger = createLogger(config.logLevel, options.logStream, style);
  const metrics = config.metrics.enabled ? createMetrics() : undefined;
  const availability = watchStoreAvailability({ logger, metrics });
  const store = instrumentStore(options.store, {
    failed(operation, error) {
      metrics?.storeError(operation);
      availability.failed(operation, error);
    },
    succeeded: availability.succeeded,
  });
  const mailer = composeMailer(config, logger, metrics);
  // The OpenID and SAML identity providers, built with the app over these services, hear of the sessions they end.
  let endProviderSessions: ((ended: EndedSessions) => void) | undefined;
  const services = createServices({
    store,
    secretKey: options.secretKey,
    settings: serviceSettings(config),
    ...(options.clock ? { clock: options.clock } : {}),
    mailer,
    eventWrites: watchEventWrites({ logger, metrics }),
    events: {
      sessionsCreated: (count) => metrics?.sessionsCreated(count),
      sessionsRevoked: (count) => metrics?.sessionsRevoked(count),
      sessionsEnded: (ended) => endProviderSessions?.(ended),
    },
  });
  metrics?.watchCaches(() => services.cacheLookups());
  const readiness = createReadiness({ store, logger });
  const recordRefusal = refusalLog(logger, metrics && ((status) => metrics.refusal(status)));
  const separateMetricsPort = metrics !== undefined && config.metrics.port !== undefined;
  const app = await createApp({
    config,
    services,
    logger,
    readiness: () => readiness.check(),
    metrics,
    metricsRegistry: separateMetricsPort ? undefined : metrics?.registry,
    recordRefusal,
    onSessionsEnded: (listener) => {
      endProviderSessions = listener;
    },
  });
  return {
    config,
    logger,
    logFormat: style.format,
    store,
    services,
    mailer,
    metrics,
    readiness,
    app,
    createServer: () =>
      createHttpServer(app, config.server, {
        prototypes: app,
        maxBodyBytes: config.maxBodyBytes,
        onRefusal: ({ status, reason, client }) => recordRefusal({ status, reason, client: client ?? null }),
      }),
    metricsApp: separateMetricsPort && metrics ? metricsListener(metrics.registry, logger) : undefined,
    startPurge: () =>
      startPurge({
        store,
        logger,
        intervalMs: config.purge.intervalSeconds * 1000,
        policy: {
          sessionRetentionMs: config.purge.sessionRetentionSeconds * 1000,
          sessionIdleMs: config.session.idleTimeoutSeconds * 1000,
          // One table holds the sign-in and the caller throttles: keep records for the longer of their periods.
          throttleWindowMs: Math.max(config.signin.throttle.windowSeconds, config.callerThrottle.windowSeconds) * 1000,
          throttleLockoutMs: Math.max(config.signin.throttle.lockoutSeconds, config.callerThrottle.lockoutSeconds) * 1000,
          oidcKeyRetentionMs: config.oidc.tokenLifetimeSeconds * 1000,
          eventRetentionMs: config.purge.eventRetentionDays * 86_400_000,
        },
        ...(metrics ? { onPurged: (kind: PurgeKind, count: number) => metrics.purged(kind, count) } : {}),
      }),
  };
}
