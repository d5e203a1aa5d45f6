import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, SQLITE_FILENAME } from '../../src/store/open.js';
import { MIGRATIONS, migrate } from '../../src/store/sqlite/migrations.js';
import type { Migration } from '../../src/store/migration.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { plansOf, scannedTables } from '../helpers/sqlite-statements.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { storeContract } from './contract.js';
import {
  ADA,
  expectConcurrentWritesKept,
  expectReadAnsweredDuringPurge,
  expectUpgradedAda,
  expectUpgradedWithSecondFactors,
  expectWriteKeptBesideRolledBackTransaction,
} from './fixtures.js';

let dir: string;
let files = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authentication-asmx-store-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function freshPath(label: string): string {
  files += 1;
  return join(dir, `${label}-${files}`);
}

storeContract('sqlite', async () => {
  const store = new SqliteStore(`${freshPath('contract')}.sqlite`);
  await store.migrate();
  return store;
});

const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));

function appliedMigrations(file: string): Array<{ version: number; name: string }> {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare<[], { version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version').all();
  } finally {
    db.close();
  }
}

function tableNames(db: Database.Database): string[] {
  return db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => row.name);
}

describe('SqliteStore', () => {
  test('openStore() creates the data directory and the database file, and applies every migration', async () => {
    const dataDir = join(freshPath('data'), 'nested', 'dir');
    const store = await openStore({ dataDir });
    await store.createMember(ADA);
    await store.close();
    const file = join(dataDir, SQLITE_FILENAME);
    expect(existsSync(file)).toBe(true);
    expect(appliedMigrations(file)).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
  });

  test('openStore() opens the database in WAL journal mode', async () => {
    const dataDir = freshPath('data');
    const store = await openStore({ dataDir });
    await store.close();
    const db = new Database(join(dataDir, SQLITE_FILENAME), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  test('reopening the data directory keeps the data', async () => {
    const dataDir = freshPath('data');
    const first = await openStore({ dataDir });
    await first.createMember(ADA);
    const caller = await first.createCaller('partner', ADA.createdAt);
    await first.close();

    const second = await openStore({ dataDir });
    expect(await second.getMember('m1')).toEqual(ADA);
    expect(await second.listCallers()).toEqual([caller]);
    await second.close();
    expect(appliedMigrations(join(dataDir, SQLITE_FILENAME))).toHaveLength(MIGRATIONS.length);
  });

  test('a database whose schema version is newer than this build is refused with a clear message', async () => {
    const dataDir = freshPath('data');
    await (await openStore({ dataDir })).close();
    const file = join(dataDir, SQLITE_FILENAME);
    const db = new Database(file);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(LATEST + 1, 'from the future', 0);
    db.close();

    await expect(openStore({ dataDir })).rejects.toThrow(
      `database schema version ${LATEST + 1} is newer than this build supports (${LATEST}); upgrade authentication-asmx`,
    );
  });

  test('a store opened on ":memory:" works once migrated', async () => {
    const store = new SqliteStore(':memory:');
    await store.migrate();
    await store.createMember(ADA);
    expect(await store.listMembers()).toEqual([ADA]);
    await store.close();
  });
});

describe('transactions on the one connection', () => {
  let store: SqliteStore;

  beforeEach(async () => {
    store = new SqliteStore(`${freshPath('transactions')}.sqlite`);
    await store.migrate();
    await store.createMember(ADA);
  });

  afterEach(async () => {
    await store.close();
  });

  test('a write made while a transaction is open waits for its end: it is kept when the transaction rolls back', async () => {
    await expectWriteKeptBesideRolledBackTransaction(store);
  });

  test('transactions and single writes started at once all take effect, each whole, and the failing ones leave nothing', async () => {
    await expectConcurrentWritesKept(store);
  });
});

describe('the purge at scale', () => {
  test('deletes 20,000 ended sessions in batches, and a read made meanwhile is answered before it ends', async () => {
    const file = `${freshPath('purge')}.sqlite`;
    const store = new SqliteStore(file);
    await store.migrate();
    await store.createMember(ADA);
    await expectReadAnsweredDuringPurge(store);
    await store.close();
  });
});

describe('the purges read through indexes', () => {
  test('a batch of purgeSessions searches an index per condition (a MULTI-INDEX OR) and one of purgeThrottles its own; neither scans the table', async () => {
    const { statements, plans } = await plansOf(`${freshPath('purge-plan')}.sqlite`, async (store) => {
      await store.purgeSessions(ADA.createdAt, ADA.createdAt);
      await store.purgeThrottles(ADA.createdAt);
    });

    expect(statements.map((statement) => statement.source.split(' WHERE')[0])).toEqual([
      'DELETE FROM sessions',
      'DELETE FROM throttles',
    ]);
    const [sessions, throttles] = plans;
    expect(sessions).toEqual(
      expect.arrayContaining([
        'MULTI-INDEX OR',
        expect.stringMatching(/^SEARCH sessions USING INDEX sessions_expires_at \(expires_at<\?\)/),
        expect.stringMatching(/^SEARCH sessions USING INDEX sessions_revoked_at \(revoked_at<\?\)/),
        expect.stringMatching(/^SEARCH sessions USING INDEX sessions_last_seen_at \(last_seen_at<\?\)/),
      ]),
    );
    expect(throttles).toEqual(
      expect.arrayContaining([expect.stringMatching(/^SEARCH throttles USING INDEX throttles_window_started_at \(window_started_at<\?\)/)]),
    );
    expect(scannedTables(plans.flat())).toEqual([]);
  });
});

describe('the events read through indexes', () => {
  test("one member's history newest first is read backwards through events_member, the export and the purge through events_time; none scans the table", async () => {
    const { plans } = await plansOf(`${freshPath('events-plan')}.sqlite`, async (store) => {
      await store.listEvents({ memberId: 'm1', limit: 50 });
      await store.listEvents({ memberId: 'm1', type: 'signin-failed', since: 0, limit: 50 });
      await store.exportEvents(0, { time: 1, id: 'a' }, 100);
      await store.purgeEvents(0);
    });
    const [member, filtered, exported, purged] = plans;
    for (const plan of [member, filtered]) {
      expect(plan).toEqual([expect.stringMatching(/^SEARCH events USING INDEX events_member \(member_id=\?/)]);
    }
    expect(exported).toEqual([expect.stringMatching(/^SEARCH events USING INDEX events_time/)]);
    expect(purged).toEqual(expect.arrayContaining([expect.stringMatching(/^SEARCH events USING (COVERING )?INDEX events_time/)]));
    expect(scannedTables(plans.flat())).toEqual([]);
  });
});

describe('a session is read by the rowid its hash index holds', () => {
  test("the call read and the lookups by token and by login cookie take the session's rowid from the hash's index alone, then its row by rowid; none reads the index of its id or scans", async () => {
    const { plans } = await plansOf(`${freshPath('session-plan')}.sqlite`, async (store) => {
      await store.readCall({ throttleKey: 'caller-address:192.0.2.1', callerPasswordHash: 'p', session: { tokenHash: 't' } });
      await store.readCall({ throttleKey: null, callerPasswordHash: null, session: { cookieHash: 'c' } });
      await store.findSessionByTokenHash('t');
      await store.findSessionByCookieHash('c');
    });

    expect(plans).toHaveLength(4);
    for (const plan of plans) {
      expect(plan).toEqual(expect.arrayContaining([expect.stringMatching(/^SEARCH s USING INTEGER PRIMARY KEY \(rowid=\?\)/)]));
      const hashReads = plan.filter((detail) => /^SEARCH sessions /.test(detail));
      expect(hashReads.length).toBeGreaterThan(0);
      for (const detail of hashReads) expect(detail).toMatch(/^SEARCH sessions USING COVERING INDEX \w+ \((token_hash|cookie_hash|previous_cookie_hash)=\?\)/);
      expect(plan.filter((detail) => /^SEARCH s USING (COVERING )?INDEX/.test(detail))).toEqual([]);
    }
    // The one row of values asked (the call read's `asked`) is all a scan reads.
    expect(scannedTables(plans.flat()).filter((table) => table !== 'asked')).toEqual([]);
  });
});

describe('tempSqliteStore()', () => {
  test('gives a fresh migrated store each time', async () => {
    const first = await tempSqliteStore();
    const second = await tempSqliteStore();
    await first.store.createMember(ADA);
    expect(await second.store.listMembers()).toEqual([]);
    await first.cleanup();
    await second.cleanup();
  });
});

describe('SQLite migrations', () => {
  const extra: Migration = { version: LATEST + 1, name: 'notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)' };

  test('MIGRATIONS are numbered 1, 2, 3... in order', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, index) => index + 1));
  });

  test('migrate() applies only the pending migrations and records when', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS, () => 1000);
    migrate(db, [...MIGRATIONS, extra], () => 2000);
    migrate(db, [...MIGRATIONS, extra], () => 3000);
    const rows = db.prepare<[], { version: number; applied_at: number }>('SELECT version, applied_at FROM schema_migrations ORDER BY version').all();
    expect(rows).toEqual([
      ...MIGRATIONS.map((m) => ({ version: m.version, applied_at: 1000 })),
      { version: extra.version, applied_at: 2000 },
    ]);
    expect(tableNames(db)).toContain('notes');
    db.close();
  });

  test('a database at schema version 1 is upgraded, its members kept without a password hash', async () => {
    const file = `${freshPath('v1')}.sqlite`;
    const db = new Database(file);
    migrate(db, MIGRATIONS.filter((m) => m.version === 1));
    db.prepare(
      `INSERT INTO members (id, username, email, first_name, last_name, enabled, created_at)
        VALUES (@id, @username, @email, @firstName, @lastName, @enabled, @createdAt)`,
    ).run({ ...ADA, enabled: 1 });
    db.close();

    const store = new SqliteStore(file);
    await store.migrate();
    expect(await store.getMember('m1')).toEqual(ADA);
    expect(await store.getMemberCredentials('m1')).toEqual({ member: ADA, passwordHash: null });
    expect(await store.findMembersByLogin('ADA@example.org')).toEqual([{ member: ADA, passwordHash: null }]);
    expect(await store.setMemberPassword('m1', 'argon2:hash-1', Date.now())).toBe(true);
    expect((await store.getMemberCredentials('m1'))?.passwordHash).toBe('argon2:hash-1');
    await store.close();
    expect(appliedMigrations(file)).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
  });

  test('a database at schema version 3 is upgraded: its members get {} as attributes, its sessions no sealed cookie', async () => {
    const file = `${freshPath('v3')}.sqlite`;
    const db = new Database(file);
    migrate(db, MIGRATIONS.filter((m) => m.version <= 3));
    db.prepare(
      `INSERT INTO members (id, username, email, first_name, last_name, enabled, created_at)
        VALUES (@id, @username, @email, @firstName, @lastName, 1, @createdAt)`,
    ).run(ADA);
    db.prepare(
      `INSERT INTO sessions (id, member_id, cookie_domain, cookie_hash, token_hash, token_sealed, created_at, last_seen_at, expires_at)
        VALUES ('s1', 'm1', 'example.org', 'cookie-hash', 'token-hash', 'sealed-token', @createdAt, @createdAt, @createdAt)`,
    ).run(ADA);
    db.close();

    const store = new SqliteStore(file);
    await store.migrate();
    await expectUpgradedAda(store);
    await store.close();
    expect(appliedMigrations(file)).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
  });

  test('a database at schema version 4 is upgraded: its sessions get no client address or browser, its members no second factor', async () => {
    const file = `${freshPath('v4')}.sqlite`;
    const db = new Database(file);
    migrate(db, MIGRATIONS.filter((m) => m.version <= 4));
    db.prepare(
      `INSERT INTO members (id, username, email, first_name, last_name, enabled, created_at)
        VALUES (@id, @username, @email, @firstName, @lastName, 1, @createdAt)`,
    ).run(ADA);
    db.prepare(
      `INSERT INTO sessions (id, member_id, cookie_domain, cookie_hash, token_hash, token_sealed, cookie_sealed,
          created_at, last_seen_at, expires_at)
        VALUES ('s1', 'm1', 'example.org', 'cookie-hash', 'token-hash', 'sealed-token', 'sealed-cookie',
          @createdAt, @createdAt, @createdAt)`,
    ).run(ADA);
    expect(tableNames(db)).not.toContain('member_second_factors');
    db.close();

    const store = new SqliteStore(file);
    await store.migrate();
    await expectUpgradedWithSecondFactors(store);
    await store.close();
    expect(appliedMigrations(file)).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    const upgraded = new Database(file, { readonly: true });
    expect(tableNames(upgraded)).toEqual(expect.arrayContaining(['member_recovery_codes', 'member_second_factors']));
    upgraded.close();
  });

  test('a failing migration is rolled back entirely', () => {
    const db = new Database(':memory:');
    migrate(db);
    const broken: Migration = { ...extra, sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY); CREATE TABLE broken (' };
    const tablesBefore = tableNames(db);
    expect(() => migrate(db, [...MIGRATIONS, broken])).toThrow();
    expect(tableNames(db)).toEqual(tablesBefore);
    expect(db.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual(MIGRATIONS.map((m) => m.version));
    db.close();
  });

  test('a failing first migration leaves an empty database', () => {
    const db = new Database(':memory:');
    expect(() => migrate(db, [{ version: 1, name: 'broken', sql: 'CREATE TABLE t (a); NOT SQL' }])).toThrow();
    expect(tableNames(db)).toEqual([]);
    db.close();
  });
});
