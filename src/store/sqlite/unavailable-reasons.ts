import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StoreUnavailableReason } from '../unavailable.js';

/**
 * SQLite's result codes (an extended code starts with its primary's name: SQLITE_READONLY_DBMOVED) and the file
 * system's, met while opening the data directory, that mean the database cannot be used as it is.
 */
const REASONS: ReadonlyArray<readonly [string, StoreUnavailableReason]> = [
  ['SQLITE_FULL', 'disk-full'],
  ['ENOSPC', 'disk-full'],
  ['EDQUOT', 'disk-full'],
  ['SQLITE_READONLY', 'read-only'],
  ['EROFS', 'read-only'],
  ['SQLITE_BUSY', 'locked'],
  ['SQLITE_LOCKED', 'locked'],
  ['SQLITE_IOERR', 'io-error'],
  ['EIO', 'io-error'],
  ['SQLITE_CANTOPEN', 'cannot-open'],
  ['EACCES', 'cannot-open'],
  ['EPERM', 'cannot-open'],
];

function hasNoFreeBlock(directory: string): boolean {
  try {
    return statfsSync(directory).bavail === 0;
  } catch {
    return false;
  }
}

/**
 * Why this error means that the database in `filename` cannot be used, or undefined. SQLite reports a write the
 * file system refused for want of space as an I/O error when the file is not the database itself (the shared
 * memory file, which grows when a connection opens): on a file system without a free block, that is a full disk.
 */
export function sqliteUnavailableReason(error: unknown, filename: string): StoreUnavailableReason | undefined {
  // By code, not instanceof: better-sqlite3 registers its error class once per process, not per module load.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const reason = REASONS.find(([prefix]) => code === prefix || code.startsWith(`${prefix}_`))?.[1];
  return reason === 'io-error' && hasNoFreeBlock(dirname(filename)) ? 'disk-full' : reason;
}
