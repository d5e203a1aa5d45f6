/**
 * A DATA_DIR on a full or read-only file system, a SQLite database another program holds locked, a PostgreSQL
 * database that refuses writes: the CLI says which database cannot be written, why, and what to do, and exits
 * with its own status (74), not as for a bug (70). Writes work again once the condition ends, with nothing else
 * done.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCliContext } from '../../src/cli/context.js';
import { openStore, SQLITE_FILENAME } from '../../src/store/open.js';
import { runWith } from '../helpers/cli-harness.js';
import { POSTGRES } from '../helpers/postgres.js';
import { writeRefusingDatabase, type WriteRefusingDatabase } from '../helpers/read-only-postgres.js';
import { describeRequiring } from '../helpers/requirements.js';
import { mountSmallTmpfs, TMPFS, type SmallTmpfs } from '../helpers/small-tmpfs.js';
import { holdWriteLock } from '../helpers/sqlite-lock.js';

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

  test('a read-only data directory stops every command with 74, saying it is read-only, and the start of the service too', async () => {
    disk.remount('ro');
    try {
      const listed = await run('members', 'list');
      expect(listed.code).toBe(STORAGE_UNAVAILABLE);
      expect(listed.stderr).toMatch(/^error: \S+authentication\.sqlite is read-only \(EROFS\): .*, then run the command again\n$/);
      expect(listed.stderr).toContain(database);
      const { config, withServices } = createCliContext({ ...env, PORT: '0' });
      expect(await runWith({ config, withServices }, 'serve')).toEqual({
        code: STORAGE_UNAVAILABLE,
        stdout: '',
        stderr: listed.stderr.replace(/^error: /, 'error: cannot open the store: '),
      });
    } finally {
      disk.remount('rw');
    }
    expect((await run('members', 'list')).code).toBe(0);
  });
});

/** The CLI as the admin runs it, with this environment. */
const cliIn = (env: Record<string, string>) => (...args: string[]) => {
  const { config, withServices } = createCliContext(env);
  return runWith({ config, withServices }, ...args);
};

describe('the CLI on a SQLite database another program holds locked', () => {
  let dataDir: string;
  let run: ReturnType<typeof cliIn>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-'));
    run = cliIn({ DATA_DIR: dataDir });
    expect((await run('members', 'add', '--id', 'm1', '--username', 'ada')).code).toBe(0);
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  test('members add exits 74 naming the database and what to do, once it has waited for the lock; reads still answer', async () => {
    const database = join(dataDir, SQLITE_FILENAME);
    const lock = await holdWriteLock(database);
    try {
      const added = await run('members', 'add', '--id', 'm2', '--username', 'bob');
      expect(added).toEqual({
        code: STORAGE_UNAVAILABLE,
        stdout: '',
        stderr: `error: ${database} is locked by another program (SQLITE_BUSY): let that program (a backup, a copy, another service on the same file) finish, then run the command again\n`,
      });
      const shown = await run('members', 'show', 'm1', '--json');
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ id: 'm1', username: 'ada' });
    } finally {
      await lock.release();
    }
    expect((await run('members', 'add', '--id', 'm2', '--username', 'bob')).code).toBe(0);
  });
});

describeRequiring([POSTGRES], 'the CLI on a PostgreSQL database that refuses writes', () => {
  let database: WriteRefusingDatabase;
  let run: ReturnType<typeof cliIn>;
  let dataDir: string;

  beforeAll(async () => {
    database = await writeRefusingDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-'));
    run = cliIn({ DATABASE_URL: database.url, SECRET_KEY: randomBytes(32).toString('base64'), DATA_DIR: dataDir });
    expect((await run('members', 'add', '--id', 'm1', '--username', 'ada')).code).toBe(0);
  });
  afterAll(async () => {
    await database.acceptWrites();
    await database.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('sessions create exits 74 naming the database, that it is read-only and what to do; reads still answer; writes work again after', async () => {
    await database.refuseWrites();
    try {
      const created = await run('sessions', 'create', 'm1', '--domain', 'example.com');
      expect(created.code).toBe(STORAGE_UNAVAILABLE);
      expect(created.stdout).toBe('');
      expect(created.stderr).toMatch(/^error: \S+ is read-only \(25006\): make it writable .*a primary server that accepts writes.*, then run the command again\n$/);
      expect(created.stderr).toContain(database.where);
      expect(created.stderr).not.toContain(database.url);
      const shown = await run('members', 'show', 'm1', '--json');
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ id: 'm1', username: 'ada' });
    } finally {
      await database.acceptWrites();
    }
    expect((await run('sessions', 'create', 'm1', '--domain', 'example.com')).code).toBe(0);
  });
});

describe('the CLI on a PostgreSQL server that is not running', () => {
  test('a command exits 74 as it starts, naming where the server was to be and what to do, never the password', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-'));
    try {
      // Port 1 on loopback: nothing listens there, so the connection is refused at once.
      const run = cliIn({ DATA_DIR: dataDir, DATABASE_URL: 'postgres://asmx:s3cret-password@127.0.0.1:1/auth', SECRET_KEY: randomBytes(32).toString('base64') });
      expect(await run('members', 'show', 'm1')).toEqual({
        code: STORAGE_UNAVAILABLE,
        stdout: '',
        stderr:
          "error: the database server of 127.0.0.1:1/auth is stopped, starting, shutting down or out of reach (ECONNREFUSED): check that it runs and that DATABASE_URL's host and port reach it, then run the command again\n",
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
