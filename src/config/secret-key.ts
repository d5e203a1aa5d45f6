import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';

/** The key file in the data directory (not SECRET_KEY_FILE, the variable that names a file of the key). */
export const KEY_FILE_NAME = 'secret.key';

/**
 * The configured SECRET_KEY, or the key file in the data directory, created on first start. The file sits
 * beside the SQLite database but is not part of it: a copy of the database alone reveals no secret. A store
 * that several instances share (PostgreSQL: `shared`) needs one key for all of them, which a file of each
 * instance's own is not: there the key must be set, or a key file be there already.
 */
export function loadOrCreateSecretKey(configured: Buffer | undefined, dataDir: string, options: { shared?: boolean } = {}): Buffer {
  if (configured) return configured;
  const path = join(dataDir, KEY_FILE_NAME);
  try {
    return decode(readFileSync(path, 'utf8'), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (options.shared) {
    throw new ConfigError([
      `SECRET_KEY: required with DATABASE_URL, so that every instance on the database has the same key (neither SECRET_KEY nor SECRET_KEY_FILE is set and ${path} does not exist; make one with: openssl rand -base64 32)`,
    ]);
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another process (the CLI, a second start) created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return decode(readFileSync(path, 'utf8'), path);
    throw error;
  }
}

function decode(text: string, path: string): Buffer {
  const trimmed = text.trim();
  const key = /^[A-Za-z0-9+/]{43}=$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : null;
  if (key?.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
  return key;
}
