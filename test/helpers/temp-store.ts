import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

/** A fresh, migrated SQLite store in its own temporary directory; cleanup() closes it and removes the directory. */
export async function tempSqliteStore(): Promise<{ store: Store; cleanup: () => Promise<void> }> {
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
