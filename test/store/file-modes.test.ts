import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, SQLITE_FILENAME } from '../../src/store/open.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asmx-modes-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const modeOf = async (file: string) => (await stat(join(dir, file))).mode & 0o777;
const FILES = [SQLITE_FILENAME, `${SQLITE_FILENAME}-wal`, `${SQLITE_FILENAME}-shm`];

/** Opens the embedded store in `dir`, writes to it (SQLite then creates its WAL and shared memory) and closes it. */
async function openAndWrite(): Promise<void> {
  const store = await openStore({ dataDir: dir });
  try {
    await store.createCaller('modes', Date.now());
    expect(await Promise.all(FILES.map(modeOf))).toEqual([0o600, 0o600, 0o600]);
  } finally {
    await store.close();
  }
}

test('the database, its WAL and its shared-memory file are created readable by their owner only, whatever the umask', async () => {
  const previous = process.umask(0o022);
  try {
    await openAndWrite();
  } finally {
    process.umask(previous);
  }
});

test('database files an earlier version left readable by others are made owner-only when the store opens', async () => {
  await openAndWrite();
  // The last connection's close removed the WAL; an empty one is what a crashed instance leaves.
  await chmod(join(dir, SQLITE_FILENAME), 0o644);
  await writeFile(join(dir, `${SQLITE_FILENAME}-wal`), '');
  await chmod(join(dir, `${SQLITE_FILENAME}-wal`), 0o644);
  const store = await openStore({ dataDir: dir });
  try {
    expect(await modeOf(SQLITE_FILENAME)).toBe(0o600);
    expect(await modeOf(`${SQLITE_FILENAME}-wal`)).toBe(0o600);
  } finally {
    await store.close();
  }
});
