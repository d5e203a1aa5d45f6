import { open, rm, stat } from 'node:fs/promises';
import { checkDatabase, type CheckReport } from './check.js';
import { openSqlite, type StoreLocation } from './locations.js';
import { StoreJobRefusal } from './refusal.js';

export interface BackupReport {
  file: string;
  pages: number;
  bytes: number;
  /** The backup, opened and checked as `store check` checks a store. */
  check: CheckReport;
}

/** The backup file, created owner-only (it holds every hash the store does); one that exists is not overwritten. */
async function createBackupFile(file: string): Promise<void> {
  try {
    await (await open(file, 'wx', 0o600)).close();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EEXIST' ? 'it exists already: name a new file' : code === 'ENOENT' ? 'its directory does not exist' : (error as Error).message;
    throw new StoreJobRefusal(`cannot write the backup to ${file}: ${why}`);
  }
}

/**
 * `store backup FILE`: a consistent copy of the live SQLite store, taken with SQLite's online backup while the
 * service runs, then opened and checked. PostgreSQL is refused: its own tools back it up. A backup that fails
 * half way leaves no file.
 */
export async function backupStore(location: StoreLocation, file: string): Promise<BackupReport> {
  if ('postgresql' in location) {
    throw new StoreJobRefusal('store backup copies the embedded SQLite store, and this store is PostgreSQL: back it up with pg_dump (docs/operations.md, Backup and restore)');
  }
  const source = await openSqlite(location.sqlite, 'source');
  try {
    await createBackupFile(file);
    try {
      const { pages } = await source.backup(file);
      const copy = await openSqlite(file, 'source');
      try {
        return { file, pages, bytes: (await stat(file)).size, check: await checkDatabase(copy) };
      } finally {
        await copy.close();
      }
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
  } finally {
    await source.close();
  }
}
