import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config, type Environment } from '../../src/config/config.js';
import { createLogger } from '../../src/log/logger.js';
import type { Clock } from '../../src/service/clock.js';
import { createServices, type Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { REFERENCE, seedReference } from './reference-data.js';
import { tempSqliteStore } from './temp-store.js';

export interface TestApp {
  config: Config;
  services: Services;
  store: Store;
  server: Server;
  port: number;
  baseUrl: string;
  /** Every log line written, parsed. */
  logLines: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** The app on a temporary store and an ephemeral loopback port, seeded with the reference data by default. */
export async function startTestApp(options: { env?: Environment; seed?: boolean; clock?: Clock } = {}): Promise<TestApp> {
  const config = loadConfig({ LOG_LEVEL: 'info', SOAP_NAMESPACE: REFERENCE.namespace, RESULT_FORMAT: 'plain', ...options.env });
  const { store, cleanup } = await tempSqliteStore();
  const services = createServices({
    store,
    secretKey: randomBytes(32),
    session: config.session,
    signin: config.signin,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  if (options.seed ?? true) await seedReference(services);
  const logLines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = await createApp({ config, services, logger: createLogger(config.logLevel, sink) });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    config,
    services,
    store,
    server,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    logLines,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await cleanup();
    },
  };
}
