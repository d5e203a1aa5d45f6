import { createServer, type Server } from 'node:http';
import { createApp } from './app.js';
import type { Config } from './config/config.js';
import { loadOrCreateSecretKey } from './config/secret-key.js';
import { createLogger } from './log/logger.js';
import { createServices } from './service/index.js';
import { StartupError } from './startup-error.js';
import { openStore } from './store/open.js';

/** How long a stop waits for calls in flight before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Starts the service and resolves once it has stopped (SIGINT/SIGTERM). */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl }).catch((error: Error) => {
    throw new StartupError(`cannot open the store: ${error.message}`, { cause: error });
  });
  const secretKey = loadOrCreateSecretKey(config.secretKey, config.dataDir);
  const services = createServices({ store, secretKey, session: config.session, signin: config.signin });
  const app = await createApp({ config, services, logger });

  // Slow or endless requests cannot hold the process: headers and whole requests have deadlines, checked
  // every second rather than Node's default 30 s.
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 15_000, connectionsCheckingInterval: 1_000 }, app);
  await listen(server, config).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info('listening', {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}${config.basePath}/Authentication.asmx`,
    store: config.databaseUrl ? 'postgresql' : 'sqlite',
    resultFormat: config.resultFormat,
  });

  await waitForSignal();
  logger.info('stopping');
  await stopServer(server);
  await store.close();
  logger.info('stopped');
}

function listen(server: Server, config: Config): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the address is already in use (set PORT or HOST)' : error.message;
      reject(new StartupError(`cannot listen on ${config.host}:${config.port}: ${why}`, { cause: error }));
    });
    server.listen(config.port, config.host, () => resolve());
  });
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
