import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOwnerOnly, sqlitePath } from '../open.js';
import { connectionFailureReason, describeDatabaseUrl } from '../postgres/database-url.js';
import { PostgresStoreDatabase } from '../postgres/store-database.js';
import { SqliteStoreDatabase } from '../sqlite/store-database.js';
import type { StoreDatabase } from './database.js';
import { StoreJobRefusal } from './refusal.js';

export const LOCATION_HELP = 'file:PATH (a SQLite file, or a data directory holding authentication.sqlite) or postgres://… (a PostgreSQL database)';

/** Where a store is: a SQLite file, or a PostgreSQL URL. */
export type StoreLocation = { sqlite: string } | { postgresql: string };

/** The configured store's location: DATABASE_URL when set, otherwise the SQLite file in DATA_DIR. */
export function configuredLocation(dataDir: string, databaseUrl: string | undefined): StoreLocation {
  return databaseUrl ? { postgresql: databaseUrl } : { sqlite: sqlitePath(dataDir) };
}

/**
 * file:///abs, file:/abs and file:relative (from here) name a path; a directory, or a path ending in /, names
 * the data directory's file.
 */
function sqliteFile(url: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : resolve(url.slice('file:'.length));
  const isDirectory = (() => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return url.endsWith('/');
    }
  })();
  return isDirectory ? sqlitePath(path) : path;
}

/**
 * A location as a refusal may repeat it: whatever stands between `//` and the last `@` (a user and password, which
 * may themselves hold `/` or `@`) is left out.
 */
function shown(url: string): string {
  return url.replace(/\/\/.*@/, '//…@');
}

/** A --from or --to URL as a location; anything else is refused. */
export function parseLocation(url: string): StoreLocation {
  if (/^postgres(ql)?:\/\//i.test(url)) return { postgresql: url };
  if (/^file:./i.test(url)) {
    try {
      return { sqlite: sqliteFile(url) };
    } catch (error) {
      throw new StoreJobRefusal(`${shown(url)} is not a file path: ${(error as Error).message}`);
    }
  }
  throw new StoreJobRefusal(`"${shown(url)}" is not a store location: give ${LOCATION_HELP}`);
}

type Role = 'source' | 'target';

export async function openSqlite(file: string, role: Role): Promise<SqliteStoreDatabase> {
  try {
    if (role === 'target') await createOwnerOnly(file);
    return new SqliteStoreDatabase(file, { readonly: role === 'source' });
  } catch (error) {
    const reason = (error as { code?: unknown }).code === 'SQLITE_CANTOPEN' ? 'no such file, or it cannot be opened' : (error as Error).message;
    throw new StoreJobRefusal(`cannot open the SQLite database ${file} as the ${role}: ${reason}`);
  }
}

/**
 * Opens the database at the location. A source (`role: 'source'`) must be there and is opened read-only; a
 * SQLite target is created (owner-only) if it is not there. What stops it is refused with where, without
 * credentials.
 */
export async function openDatabase(location: StoreLocation, role: Role): Promise<StoreDatabase> {
  if ('sqlite' in location) return openSqlite(location.sqlite, role);
  try {
    return await PostgresStoreDatabase.connect(location.postgresql);
  } catch (error) {
    throw new StoreJobRefusal(`cannot reach the PostgreSQL database at ${describeDatabaseUrl(location.postgresql)} (the ${role}): ${connectionFailureReason(error)}`);
  }
}
