import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeInstance } from '../../src/compose.js';
import { loadConfig } from '../../src/config/config.js';
import type { Services } from '../../src/service/index.js';
import { openStore } from '../../src/store/open.js';
import { logCapture } from './log-capture.js';
import { startService, type ServiceProcess } from './processes.js';
import { REFERENCE, seedReference } from './reference-data.js';

export interface SeededService extends ServiceProcess {
  /** Stops the process and removes its data directory. */
  close(): Promise<void>;
}

/**
 * The service in a process of its own, as startTestApp() runs it in the test's (test/helpers/test-app.ts): the
 * CLI at cliPath (test/helpers/compiled-cli.ts) serving env over a SQLite store in a fresh temporary
 * directory, seeded with the reference data and then by `seed`, under a key of its own.
 */
export async function startSeededService(
  name: string,
  cliPath: string,
  options: { env?: Record<string, string>; seed?: (services: Services) => Promise<void> } = {},
): Promise<SeededService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-'));
  const env = { LOG_LEVEL: 'info', SOAP_NAMESPACE: REFERENCE.namespace, RESULT_FORMAT: 'plain', ...options.env, DATA_DIR: dataDir, SECRET_KEY: randomBytes(32).toString('base64') };
  try {
    const config = loadConfig(env);
    const store = await openStore({ dataDir });
    try {
      const { services } = await composeInstance({ config, store, secretKey: config.secretKey as Buffer, logStream: logCapture().stream });
      await seedReference(services);
      await options.seed?.(services);
    } finally {
      await store.close();
    }
    const service = await startService(name, env, { cliPath });
    return {
      ...service,
      async close() {
        await service.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
