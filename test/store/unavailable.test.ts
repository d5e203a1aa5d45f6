/**
 * The errors that mean the store's database cannot be used as it is (a full disk, read-only, locked, …) become one
 * typed error, StoreUnavailableError, with the cause and the database named, on both dialects; any other error
 * goes on as it was. Reads that need no write go on answering, and writes work again once the condition ends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresUnavailableReason } from '../../src/store/postgres/unavailable-reasons.js';
import { sqliteUnavailableReason } from '../../src/store/sqlite/unavailable-reasons.js';
import { openStore, SQLITE_FILENAME } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { STORE_UNAVAILABLE_REASONS, StoreUnavailableError } from '../../src/store/unavailable.js';
import { POSTGRES } from '../helpers/postgres.js';
import { writeRefusingDatabase } from '../helpers/read-only-postgres.js';
import { describeRequiring } from '../helpers/requirements.js';
import { mountSmallTmpfs, TMPFS } from '../helpers/small-tmpfs.js';
import { holdWriteLock, type HeldLock } from '../helpers/sqlite-lock.js';

const coded = (code: string) => Object.assign(new Error(code), { code });

test.each([
  ['SQLITE_FULL', 'disk-full'],
  ['ENOSPC', 'disk-full'],
  ['SQLITE_READONLY', 'read-only'],
  ['SQLITE_READONLY_DBMOVED', 'read-only'],
  ['EROFS', 'read-only'],
  ['SQLITE_BUSY', 'locked'],
  ['SQLITE_BUSY_SNAPSHOT', 'locked'],
  ['SQLITE_LOCKED_SHAREDCACHE', 'locked'],
  ['SQLITE_IOERR_WRITE', 'io-error'],
  ['SQLITE_CANTOPEN', 'cannot-open'],
  ['EACCES', 'cannot-open'],
  ['SQLITE_CONSTRAINT_UNIQUE', undefined],
  ['SQLITE_ERROR', undefined],
  ['SQLITE_FULLNESS', undefined],
])('SQLite %s is %s', (code, reason) => {
  // An I/O error is a full disk only on a file system without a free block; this one has some.
  expect(sqliteUnavailableReason(coded(code), '/tmp/authentication.sqlite')).toBe(reason);
});

test.each([
  ['53100', 'disk-full'],
  ['25006', 'read-only'],
  ['55P03', 'locked'],
  ['58030', 'io-error'],
  ['53200', 'out-of-resources'],
  ['53300', 'out-of-resources'],
  ['57P03', 'unreachable'],
  ['08001', 'unreachable'],
  ['08004', 'unreachable'],
  ['ECONNREFUSED', 'unreachable'],
  ['ENOTFOUND', 'unreachable'],
  ['EHOSTUNREACH', 'unreachable'],
  ['ETIMEDOUT', 'unreachable'],
  ['57P01', 'connection-lost'],
  ['57P02', 'connection-lost'],
  ['08000', 'connection-lost'],
  ['08003', 'connection-lost'],
  ['08006', 'connection-lost'],
  ['ECONNRESET', 'connection-lost'],
  ['EPIPE', 'connection-lost'],
  ['08P01', undefined],
  ['23505', undefined],
  ['57014', undefined],
  ['57P04', undefined],
  ['28P01', undefined],
  ['3D000', undefined],
])('PostgreSQL %s is %s', (code, reason) => {
  expect(postgresUnavailableReason(coded(code))).toBe(reason);
});

test("pg's own errors, which have no code, are told by their message, or by the error they wrap", () => {
  expect(postgresUnavailableReason(new Error('Connection terminated unexpectedly'))).toBe('connection-lost');
  expect(postgresUnavailableReason(new Error('timeout exceeded when trying to connect'))).toBe('unreachable');
  // Node's refusal of a name with several addresses (localhost: ::1 and 127.0.0.1).
  expect(postgresUnavailableReason(new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], ''))).toBe('unreachable');
});

test('an error without a code is not one of them', () => {
  expect(sqliteUnavailableReason(new Error('boom'), '/tmp/authentication.sqlite')).toBeUndefined();
  expect(postgresUnavailableReason(new Error('boom'))).toBeUndefined();
  expect(postgresUnavailableReason(null)).toBeUndefined();
});

test('each cause says what is wrong with which database, with the code, and what to do', () => {
  const messages = STORE_UNAVAILABLE_REASONS.map((reason) => new StoreUnavailableError(reason, '/data/authentication.sqlite', 'CODE').message);
  expect(messages).toEqual([
    'the file system holding /data/authentication.sqlite is full (CODE): free space on it',
    expect.stringMatching(/^\/data\/authentication\.sqlite is read-only \(CODE\): make it writable /),
    expect.stringMatching(/^\/data\/authentication\.sqlite is locked by another program \(CODE\): let that program /),
    expect.stringMatching(/^\/data\/authentication\.sqlite cannot be read or written \(an I\/O error\) \(CODE\): check the disk/),
    expect.stringMatching(/^\/data\/authentication\.sqlite cannot be opened \(CODE\): check that its directory exists/),
    expect.stringMatching(/^the database server of \/data\/authentication\.sqlite is out of resources \(CODE\): check its disk space, memory/),
    expect.stringMatching(/^the database server of \/data\/authentication\.sqlite is stopped, starting, shutting down or out of reach \(CODE\): check that it runs/),
    'the database server of /data/authentication.sqlite, or the network to it, ended the connections (CODE): check the server and its log',
  ]);
});

const BOB = { email: '', firstName: '', lastName: '', enabled: true, createdAt: 1, attributes: {} };

/** A store whose database stops taking writes (start) and takes them again (end). */
interface Refusing {
  store: Store;
  reason: string;
  database: string;
  start(): Promise<void>;
  end(): Promise<void>;
  cleanup(): Promise<void>;
}

function refusingWrites(name: string, open: () => Promise<Refusing>): void {
  test(`${name}: a write throws StoreUnavailableError naming the cause and the database; reads answer; writes work again after`, async () => {
    const refusing = await open();
    const { store } = refusing;
    let members = 0;
    // More than SQLite's files have room for in their blocks already taken: the write needs new ones.
    const attributes = { extra: { notes: 'x'.repeat(300_000) } };
    const write = () => store.createMember({ ...BOB, id: `m${(members += 1)}`, username: `bob-${members}`, attributes });
    try {
      await store.createMember({ ...BOB, id: 'ada', username: 'ada' });
      await refusing.start();
      const error = await write().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(await store.getMember(`m${members}`)).toBeNull();
      expect(error).toMatchObject({ reason: refusing.reason, database: refusing.database, cause: expect.objectContaining({ code: expect.any(String) }) });
      expect((await store.getMember('ada'))?.username).toBe('ada');
      await refusing.end();
      let written = await write().then(() => true, () => false);
      // PostgreSQL: each connection opened while it refused writes is closed by the write it refuses.
      for (let tries = 0; !written && tries < 10; tries += 1) written = await write().then(() => true, () => false);
      expect(written).toBe(true);
    } finally {
      await refusing.end();
      await refusing.cleanup();
    }
  });
}

describeRequiring([TMPFS], 'SQLite on a full file system', () => {
  refusingWrites('SQLite', async () => {
    const disk = mountSmallTmpfs();
    const store = await openStore({ dataDir: disk.path });
    return {
      store,
      reason: 'disk-full',
      database: `${disk.path}/authentication.sqlite`,
      start: () => disk.fill(),
      end: () => disk.free(),
      cleanup: async () => {
        await store.close();
        disk.remove();
      },
    };
  });
});

describe('SQLite locked by another program', () => {
  async function lockable() {
    const dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-'));
    const database = join(dataDir, SQLITE_FILENAME);
    const store = await openStore({ dataDir });
    let lock: HeldLock | undefined;
    return {
      store,
      reason: 'locked',
      database,
      start: async () => {
        lock = await holdWriteLock(database);
      },
      end: async () => {
        await lock?.release();
        lock = undefined;
      },
      cleanup: async () => {
        await store.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  }

  refusingWrites('SQLite', lockable);

  test('a write waiting for the lock holds up nobody: reads answer meanwhile, and a store opened then (as at a start) answers them too', async () => {
    const locked = await lockable();
    const { store } = locked;
    try {
      await store.createMember({ ...BOB, id: 'ada', username: 'ada' });
      expect(await store.claimSetting('key-fingerprint', 'first')).toBe('first');
      await locked.start();
      let settled = false;
      const waiting = store.createMember({ ...BOB, id: 'bob', username: 'bob' }).finally(() => (settled = true));
      expect((await store.getMember('ada'))?.username).toBe('ada');
      const another = await openStore({ dataDir: join(locked.database, '..') });
      try {
        expect((await another.getMember('ada'))?.username).toBe('ada');
        // As every start and command checks the deployment's key: a setting recorded already is read, not written.
        expect(await another.claimSetting('key-fingerprint', 'second')).toBe('first');
      } finally {
        await another.close();
      }
      expect(settled).toBe(false);
      await locked.end();
      await waiting;
      expect((await store.getMember('bob'))?.username).toBe('bob');
    } finally {
      await locked.end();
      await locked.cleanup();
    }
  });
});

describeRequiring([POSTGRES], 'PostgreSQL refusing writes', () => {
  refusingWrites('PostgreSQL', async () => {
    const database = await writeRefusingDatabase();
    return {
      store: database.store,
      reason: 'read-only',
      database: database.where,
      start: () => database.refuseWrites(),
      end: () => database.acceptWrites(),
      cleanup: () => database.cleanup(),
    };
  });
});
