import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEY_FILE_NAME, loadOrCreateSecretKey } from '../../src/config/secret-key.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'authentication-asmx-key-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

it('creates a 32-byte key file with mode 0600 in a new directory', async () => {
  const dataDir = join(root, 'new', 'data');
  const key = loadOrCreateSecretKey(undefined, dataDir);
  expect(key).toBeInstanceOf(Buffer);
  expect(key).toHaveLength(32);
  const path = join(dataDir, KEY_FILE_NAME);
  expect(KEY_FILE_NAME).toBe('secret.key');
  expect((await stat(path)).mode & 0o777).toBe(0o600);
  const text = await readFile(path, 'utf8');
  expect(text).toBe(`${key.toString('base64')}\n`);
});

it('returns the same key the next time', () => {
  const dataDir = join(root, 'data');
  const first = loadOrCreateSecretKey(undefined, dataDir);
  const second = loadOrCreateSecretKey(undefined, dataDir);
  expect(second.equals(first)).toBe(true);
});

it('creates a different key in another directory', () => {
  const a = loadOrCreateSecretKey(undefined, join(root, 'a'));
  const b = loadOrCreateSecretKey(undefined, join(root, 'b'));
  expect(a.equals(b)).toBe(false);
});

it('reads an existing key file written by hand, with surrounding white space', async () => {
  const dataDir = join(root, 'data');
  const key = randomBytes(32);
  await mkdir(dataDir);
  await writeFile(join(dataDir, KEY_FILE_NAME), `  ${key.toString('base64')}\r\n`);
  expect(loadOrCreateSecretKey(undefined, dataDir).equals(key)).toBe(true);
});

it('prefers a configured key and then neither reads nor creates the file', async () => {
  const dataDir = join(root, 'data');
  const configured = randomBytes(32);
  expect(loadOrCreateSecretKey(configured, dataDir)).toBe(configured);
  expect(existsSync(join(dataDir, KEY_FILE_NAME))).toBe(false);

  const stored = loadOrCreateSecretKey(undefined, dataDir);
  expect(loadOrCreateSecretKey(configured, dataDir)).toBe(configured);
  expect(stored.equals(configured)).toBe(false);
});

it.each<[string, string]>([
  ['not a key', 'this is not a key\n'],
  ['an empty file', ''],
  ['a truncated key', `${randomBytes(32).toString('base64').slice(0, 20)}\n`],
  ['a key of 33 bytes', `${randomBytes(33).toString('base64')}\n`],
])('refuses a corrupt key file (%s), naming it, and leaves it alone', async (_label, content) => {
  const dataDir = join(root, 'data');
  await mkdir(dataDir);
  const path = join(dataDir, KEY_FILE_NAME);
  await writeFile(path, content);
  expect(() => loadOrCreateSecretKey(undefined, dataDir)).toThrow(`${path} does not hold a 32-byte base64 key`);
  expect(await readFile(path, 'utf8')).toBe(content);
});

describe('a store that several instances share (PostgreSQL)', () => {
  it('refuses to create a key file of its own, naming SECRET_KEY', () => {
    const dataDir = join(root, 'shared');
    expect(() => loadOrCreateSecretKey(undefined, dataDir, { shared: true })).toThrow(/SECRET_KEY: required with DATABASE_URL/);
    expect(existsSync(join(dataDir, KEY_FILE_NAME))).toBe(false);
  });

  it('takes the configured key, or a key file that is there already', () => {
    const configured = randomBytes(32);
    expect(loadOrCreateSecretKey(configured, join(root, 'x'), { shared: true }).equals(configured)).toBe(true);
    const dataDir = join(root, 'existing');
    const created = loadOrCreateSecretKey(undefined, dataDir);
    expect(loadOrCreateSecretKey(undefined, dataDir, { shared: true }).equals(created)).toBe(true);
  });
});
