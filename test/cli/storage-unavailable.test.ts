/**
 * A DATA_DIR on a full or read-only file system: the CLI says which database cannot be written, why, and what to
 * do, and exits with its own status (74), not as for a bug (70). Writes work again once space is freed, with
 * nothing else done.
 */
import { join } from 'node:path';
import { createCliContext } from '../../src/cli/context.js';
import { openStore } from '../../src/store/open.js';
import { describeRequiring } from '../helpers/requirements.js';
import { mountSmallTmpfs, TMPFS, type SmallTmpfs } from '../helpers/small-tmpfs.js';
import { runWith } from './harness.js';

const STORAGE_UNAVAILABLE = 74;

describeRequiring([TMPFS], 'the CLI on a data directory that cannot be written', () => {
  let disk: SmallTmpfs;
  let env: Record<string, string>;
  let database: string;

  const run = (...args: string[]) => {
    const { config, withServices } = createCliContext(env);
    return runWith({ config, withServices }, ...args);
  };

  beforeAll(async () => {
    disk = mountSmallTmpfs();
    env = { DATA_DIR: disk.path };
    database = join(disk.path, 'authentication.sqlite');
    expect((await run('members', 'add', '--id', 'm1', '--username', 'ada')).code).toBe(0);
  });
  afterAll(() => disk.remove());

  test('beside a running service, sessions create on a full disk exits 74 naming the database and what to do; reads still answer', async () => {
    // The service's connection, open as while it runs: SQLite's shared files keep their size, as in production.
    const service = await openStore({ dataDir: disk.path });
    try {
      await disk.fill();
      const created = await run('sessions', 'create', 'm1', '--domain', 'example.com');
      expect(created).toEqual({
        code: STORAGE_UNAVAILABLE,
        stdout: '',
        stderr: `error: the file system holding ${database} is full (SQLITE_FULL): free space on it, then run the command again\n`,
      });
      const shown = await run('members', 'show', 'm1', '--json');
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ id: 'm1', username: 'ada' });
      await disk.free();
      expect((await run('sessions', 'create', 'm1', '--domain', 'example.com')).code).toBe(0);
    } finally {
      await disk.free();
      await service.close();
    }
  });

  test('with nothing else open, a full disk stops every command with 74, saying the disk is full', async () => {
    await disk.fill();
    try {
      const listed = await run('members', 'list');
      expect(listed.code).toBe(STORAGE_UNAVAILABLE);
      expect(listed.stderr).toMatch(/^error: the file system holding \S+authentication\.sqlite is full \(SQLITE_[A-Z_]+\): free space on it, then run the command again\n$/);
      expect(listed.stderr).toContain(database);
    } finally {
      await disk.free();
    }
    expect((await run('members', 'list')).code).toBe(0);
  });

  test('a read-only data directory stops every command with 74, saying it is read-only', async () => {
    disk.remount('ro');
    try {
      const listed = await run('members', 'list');
      expect(listed.code).toBe(STORAGE_UNAVAILABLE);
      expect(listed.stderr).toMatch(/^error: \S+authentication\.sqlite is read-only \(EROFS\): .*, then run the command again\n$/);
      expect(listed.stderr).toContain(database);
    } finally {
      disk.remount('rw');
    }
    expect((await run('members', 'list')).code).toBe(0);
  });
});
