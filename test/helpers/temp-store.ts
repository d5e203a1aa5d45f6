import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

/** A store a test opens, and how to close it (and remove what it was kept in). */
export interface TempStore {
  store: Store;
  cleanup: () => Promise<void>;
}

/** How a suite run on each store opens its store: tempSqliteStore, tempPostgresStore. */
export type OpenStore = () => Promise<TempStore>;

/** A fresh, migrated SQLite store in its own temporary directory; cleanup() closes it and removes the directory. */
export async function tempSqliteStore(): Promise<TempStore> {
  const dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-'));
  const removeDir = () => rm(dataDir, { recursive: true, force: true });
  try {
    const store = await openStore({ dataDir });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await removeDir();
      },
    };
  } catch (error) {
    await removeDir();
    throw error;
  }
}
