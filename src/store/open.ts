import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export const SQLITE_FILENAME = 'authentication.sqlite';

/** Opens the configured store with its schema migrated, ready for the services. */
export async function openStore(options: { dataDir: string; databaseUrl?: string | undefined }): Promise<Store> {
  if (options.databaseUrl) {
    throw new Error(
      'DATABASE_URL is set, but the PostgreSQL store is not available in this version yet; ' +
        'unset DATABASE_URL to use the embedded SQLite store in DATA_DIR',
    );
  }
  await mkdir(options.dataDir, { recursive: true });
  const store = new SqliteStore(join(options.dataDir, SQLITE_FILENAME));
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
