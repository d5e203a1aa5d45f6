import { chmod, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { connectionFailureReason, describeDatabaseUrl } from './postgres/database-url.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { storeError } from './sql/driver.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { sqliteUnavailableReason } from './sqlite/unavailable-reasons.js';
import type { Store } from './store.js';
import { StoreUnavailableError } from './unavailable.js';

export const SQLITE_FILENAME = 'authentication.sqlite';

/**
 * Opens the configured store with its schema migrated, ready for the services: PostgreSQL when a database URL
 * is given, otherwise the embedded SQLite database in dataDir.
 */
export async function openStore(options: { dataDir: string; databaseUrl?: string | undefined }): Promise<Store> {
  const store = options.databaseUrl ? await openPostgresStore(options.databaseUrl) : await openSqliteStore(options.dataDir);
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/**
 * The database holds hashes of every password and token, so only its owner may read it, as the key file. SQLite
 * creates the WAL and shared-memory files with the database file's permissions: the file is created owner-only
 * before SQLite opens it, and files of an older version are made so.
 */
async function openSqliteStore(dataDir: string): Promise<Store> {
  const filename = join(dataDir, SQLITE_FILENAME);
  try {
    await mkdir(dataDir, { recursive: true });
    await (await open(filename, 'a', 0o600)).close();
    for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) {
      await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  } catch (error) {
    // A read-only or full data directory is named as such, as the store names it once open.
    throw storeError({ database: filename, unavailableReason: (cause) => sqliteUnavailableReason(cause, filename) }, error);
  }
  return new SqliteStore(filename);
}

/**
 * One round trip first, so that an unreachable server, an unknown database or a refused login is reported as
 * such, with where the URL points but without its credentials.
 */
async function openPostgresStore(databaseUrl: string): Promise<Store> {
  const store = new PostgresStore({ connectionString: databaseUrl });
  try {
    await store.ping();
  } catch (thrown) {
    await store.close();
    // A server that is stopped, starting or out of reach is a condition of the machine, named as the store names
    // it once open (the CLI's exit status 74); a wrong database, role or URL is the operator's to correct.
    if (thrown instanceof StoreUnavailableError) throw thrown;
    const where = describeDatabaseUrl(databaseUrl);
    // Node's URL parser keeps the whole URL, password included, on its error: that one is not passed on.
    const cause = (thrown as { code?: unknown }).code === 'ERR_INVALID_URL' ? undefined : thrown;
    throw new Error(`cannot reach the PostgreSQL database at ${where}: ${connectionFailureReason(thrown)}`, { cause });
  }
  return store;
}
