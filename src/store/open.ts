import { chmod, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { connectionFailureReason, describeDatabaseUrl } from './postgres/database-url.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { storeError } from './sql/driver.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { sqliteUnavailableReason } from './sqlite/unavailable-reasons.js';
import type { Store } from './store.js';
import { StoreUnavailableError } from './unavailable.js';
import { UNFINISHED_COPY_SETTING, UnfinishedCopyError } from './unfinished-copy.js';

export { UnfinishedCopyError } from './unfinished-copy.js';

export const SQLITE_FILENAME = 'authentication.sqlite';

/**
 * Opens the configured store with its schema migrated, ready for the services: PostgreSQL when a database URL
 * is given, otherwise the embedded SQLite database in dataDir. A store that `store copy` is still writing, or
 * left unfinished, is refused (UnfinishedCopyError).
 */
export async function openStore(options: { dataDir: string; databaseUrl?: string | undefined }): Promise<Store> {
  const store = options.databaseUrl ? await openPostgresStore(options.databaseUrl) : await openSqliteStore(options.dataDir);
  try {
    await store.migrate();
    const unfinishedCopy = await store.setting(UNFINISHED_COPY_SETTING);
    if (unfinishedCopy !== null) {
      throw new UnfinishedCopyError(options.databaseUrl ? describeDatabaseUrl(options.databaseUrl) : sqlitePath(options.dataDir), unfinishedCopy);
    }
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
  const filename = sqlitePath(dataDir);
  await mkdir(dataDir, { recursive: true }).catch((error: unknown) => {
    throw sqliteFileError(filename, error);
  });
  await createOwnerOnly(filename);
  return new SqliteStore(filename);
}

/** The embedded store's file in a data directory. */
export function sqlitePath(dataDir: string): string {
  return join(dataDir, SQLITE_FILENAME);
}

/** The SQLite file, created owner-only if it is not there, and it and its WAL and shared-memory files made so. */
export async function createOwnerOnly(filename: string): Promise<void> {
  try {
    await (await open(filename, 'a', 0o600)).close();
    for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) {
      await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  } catch (error) {
    throw sqliteFileError(filename, error);
  }
}

/** A read-only or full data directory is named as such, as the store names it once open. */
function sqliteFileError(filename: string, error: unknown): unknown {
  return storeError({ database: filename, unavailableReason: (cause) => sqliteUnavailableReason(cause, filename) }, error);
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
