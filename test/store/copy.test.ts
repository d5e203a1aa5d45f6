/**
 * store copy between the two dialects, on the stores' own files and databases: every table of a migrated store
 * copied and verified both ways, the source in use meanwhile, --without-sessions, an interrupted copy, and the
 * stores it refuses.
 */
import Database from 'better-sqlite3';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { checkStore, copyStore, parseLocation, StoreJobRefusal, type CopyOptions } from '../../src/store/maintenance/index.js';
import { openStore, sqlitePath, UnfinishedCopyError } from '../../src/store/open.js';
import { SqliteStoreDatabase } from '../../src/store/sqlite/store-database.js';
import { MIGRATIONS, migrate } from '../../src/store/sqlite/migrations.js';
import type { Store } from '../../src/store/store.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/processes.js';
import { fillEveryTable } from './every-table.js';

let dir: string;
let databases: TestDatabase[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asmx-copy-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  for (const database of databases) await database.drop();
  databases = [];
});

/** A SQLite store in a data directory of its own, every table filled; its file. */
async function filledSqlite(name = 'source'): Promise<string> {
  const dataDir = join(dir, name);
  const store = await openStore({ dataDir });
  await fillEveryTable(store);
  await store.close();
  return sqlitePath(dataDir);
}

async function emptyDatabase(): Promise<string> {
  const database = await createTestDatabase('asmx_copy');
  databases.push(database);
  return database.url;
}

function copy(from: CopyOptions['from'], to: CopyOptions['to'], options: Partial<CopyOptions> = {}) {
  return copyStore({ from, to, withoutSessions: false, ...options });
}

async function withStore<T>(options: { dataDir?: string; databaseUrl?: string }, read: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ dataDir: options.dataDir ?? dir, databaseUrl: options.databaseUrl });
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

/** What the Store reads of the filled records: the same on every copy. */
function records(store: Store) {
  return Promise.all([
    store.listCallers(),
    store.getMember('m1'),
    store.getMember('m2'),
    store.getMemberCredentials('m1'),
    store.listCallerOrigins(),
    store.getThrottle('signin:zoë'),
    store.findSessionByTokenHash('token-hash'),
    store.getSecondFactor('m1'),
    store.countRecoveryCodes('m1'),
    store.findRecoveryToken('recovery-hash'),
    store.listProvisioningClients(),
    store.listOidcClients(),
    store.listOidcKeys(),
    store.findOidcPayload('Grant', 'grant-1'),
    store.findOidcSessionLink('uid-1'),
    store.listSamlSps(),
    store.listSamlKeys(),
    store.findSamlParticipants({ memberId: 'm1' }),
    store.findSamlRequest('handle-1'),
    store.listEvents({ limit: 10 }),
    store.listStaffRoles(),
    store.listSessions(),
    store.listPasskeys('m1'),
    store.isPasskeySession('s1'),
    store.getRole('r1'),
  ]);
}

describeWithPostgres('store copy', () => {
  test('copies every table of a migrated store to PostgreSQL and back to SQLite, each verified by its rows and checksum, alike both ways', async () => {
    const file = await filledSqlite();
    const url = await emptyDatabase();
    const there = await copy({ sqlite: file }, { postgresql: url }, { batchSize: 2 });
    const back = join(dir, 'back');
    await mkdir(back);
    const again = await copy({ postgresql: url }, { sqlite: sqlitePath(back) });

    const catalogue = new SqliteStoreDatabase(file, { readonly: true });
    const tables = await catalogue.tables();
    const counts = await catalogue.snapshot(async (reader) => Promise.all(tables.map(async (table) => ({ name: table.name, rows: await reader.count(table.name) }))));
    await catalogue.close();
    // A table a migration adds fails here until test/store/every-table.ts writes a row of it.
    expect(counts.filter((table) => table.rows === 0).map((table) => table.name)).toEqual([]);
    expect(there.tables.map((table) => [table.name, table.rows]).sort()).toEqual(counts.map((table) => [table.name, table.rows]).sort());
    expect(there.tables.every((table) => !table.skipped)).toBe(true);
    expect(again.tables).toEqual(there.tables);

    const original = await withStore({ dataDir: join(dir, 'source') }, records);
    expect(await withStore({ databaseUrl: url }, records)).toEqual(original);
    expect(await withStore({ dataDir: back }, records)).toEqual(original);
    // The sequences go on after the copied ids, on both.
    expect((await withStore({ databaseUrl: url }, (store) => store.createCaller('after the copy', 0))).id).toBe(3);
    expect((await withStore({ dataDir: back }, (store) => store.createCaller('after the copy', 0))).id).toBe(3);
  });

  test('copies the source as it was when the copy began, while the source is written meanwhile, SQLite and PostgreSQL alike', async () => {
    const file = await filledSqlite();
    const url = await emptyDatabase();
    const live = await openStore({ dataDir: join(dir, 'source') });
    let written: Promise<unknown> | undefined;
    try {
      const report = await copy({ sqlite: file }, { postgresql: url }, { batchSize: 1, onProgress: () => (written ??= live.createCaller('written during the copy', 1)) });
      await written;
      expect(report.tables.find((table) => table.name === 'callers')?.rows).toBe(2);
      expect((await live.listCallers()).map((caller) => caller.name)).toContain('written during the copy');
    } finally {
      await live.close();
    }
    expect((await withStore({ databaseUrl: url }, (store) => store.listCallers())).map((caller) => caller.name)).not.toContain('written during the copy');

    const livePostgres = await openStore({ dataDir: dir, databaseUrl: url });
    written = undefined;
    try {
      const report = await copy({ postgresql: url }, { sqlite: join(dir, 'back.sqlite') }, { batchSize: 1, onProgress: () => (written ??= livePostgres.createCaller('written during the copy back', 1)) });
      await written;
      expect(report.tables.find((table) => table.name === 'callers')?.rows).toBe(2);
    } finally {
      await livePostgres.close();
    }
  });

  test('--without-sessions leaves the sessions out, and their OpenID and SAML links with them; the rest is copied', async () => {
    const url = await emptyDatabase();
    const report = await copy({ sqlite: await filledSqlite() }, { postgresql: url }, { withoutSessions: true });
    const skipped = report.tables.filter((table) => table.skipped).map((table) => table.name);
    expect(skipped.sort()).toEqual(['oidc_session_links', 'passkey_sessions', 'saml_session_sps', 'sessions']);
    await withStore({ databaseUrl: url }, async (store) => {
      expect(await store.listSessions()).toEqual([]);
      expect(await store.getMember('m1')).toMatchObject({ username: 'zoë' });
      expect(await store.getSecondFactor('m1')).not.toBeNull();
    });
  });

  test('a copy interrupted half way leaves its target marked unfinished: the service and store check refuse it, and the copy run again starts over and finishes', async () => {
    const file = await filledSqlite();
    const url = await emptyDatabase();
    const stop = new AbortController();
    const interrupted = copy({ sqlite: file }, { postgresql: url }, { batchSize: 1, signal: stop.signal, onProgress: (progress) => progress.rowsDone === 5 && stop.abort() });
    await expect(interrupted).rejects.toThrow(/interrupted: the target stays marked unfinished; run store copy again to start over/);
    await expect(openStore({ dataDir: dir, databaseUrl: url })).rejects.toThrow(UnfinishedCopyError);
    const check = await checkStore({ postgresql: url });
    expect(check.ok).toBe(false);
    expect(check.checks).toContainEqual(expect.objectContaining({ name: 'unfinished copy', ok: false, detail: expect.stringContaining(`from ${file}`) }));
    await expect(copy({ postgresql: url }, { sqlite: join(dir, 'onwards.sqlite') })).rejects.toThrow(/holds a store copy that did not finish: it cannot be the source/);

    const notes: string[] = [];
    const report = await copy({ sqlite: file }, { postgresql: url }, { onNote: (note) => notes.push(note) });
    expect(report.startedOver).toBe(true);
    expect(notes).toEqual([expect.stringContaining('held a copy that did not finish: it is emptied and the copy starts over')]);
    expect((await checkStore({ postgresql: url })).ok).toBe(true);
    expect(await withStore({ databaseUrl: url }, (store) => store.listCallers())).toHaveLength(2);

    // Into SQLite the same, from the PostgreSQL copy.
    const back = join(dir, 'back');
    await mkdir(back);
    const halfway = new AbortController();
    const stopped = copy({ postgresql: url }, { sqlite: sqlitePath(back) }, { batchSize: 1, signal: halfway.signal, onProgress: (progress) => progress.rowsDone === 5 && halfway.abort() });
    await expect(stopped).rejects.toThrow(/interrupted/);
    await expect(openStore({ dataDir: back })).rejects.toThrow(UnfinishedCopyError);
    expect((await copy({ postgresql: url }, { sqlite: sqlitePath(back) })).startedOver).toBe(true);
    expect(await withStore({ dataDir: back }, records)).toEqual(await withStore({ dataDir: join(dir, 'source') }, records));
  });

  test('a copy that does not match its source stays marked unfinished', async () => {
    const file = await filledSqlite();
    const url = await emptyDatabase();
    // A trigger of the target's changes what is inserted, as a faulty conversion would.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await withStore({ databaseUrl: url }, async () => {});
      await client.query(`CREATE FUNCTION alter_email() RETURNS trigger AS $$ BEGIN NEW.email := 'changed@example.org'; RETURN NEW; END $$ LANGUAGE plpgsql`);
      await client.query('CREATE TRIGGER alter_email BEFORE INSERT ON members FOR EACH ROW EXECUTE FUNCTION alter_email()');
    } finally {
      await client.end();
    }
    await expect(copy({ sqlite: file }, { postgresql: url })).rejects.toThrow(/does not match its source in members \(source: 2 rows, checksum [0-9a-f]{64}; target: 2 rows, checksum [0-9a-f]{64}\): the target stays marked unfinished/);
    await expect(openStore({ dataDir: dir, databaseUrl: url })).rejects.toThrow(UnfinishedCopyError);
  });

  describe('refuses, writing nothing into the target', () => {
    test('a target that holds data', async () => {
      const target = await filledSqlite('target');
      await expect(copy({ sqlite: await filledSqlite() }, { sqlite: target })).rejects.toThrow(new RegExp(`^${target} holds data \\(.*members: 2.*\\): copy into an empty database$`));
      const url = await emptyDatabase();
      await withStore({ databaseUrl: url }, (store) => store.claimSetting('secret_key_fingerprint', 'another key'));
      await expect(copy({ sqlite: await filledSqlite('third') }, { postgresql: url })).rejects.toThrow(/holds data \(deployment_settings: 1\)/);
    });

    test('the same database as source and target', async () => {
      const file = await filledSqlite();
      await expect(copy({ sqlite: file }, parseLocation(`file:${join(dir, 'source')}`))).rejects.toThrow(`the source and the target are the same database (${file})`);
      const url = await emptyDatabase();
      await withStore({ databaseUrl: url }, async () => {});
      await expect(copy({ postgresql: url }, { postgresql: url.replace('127.0.0.1', 'localhost') })).rejects.toThrow(/^the source and the target are the same database/);
    });

    test('a source never migrated, behind this version, or not there', async () => {
      const empty = join(dir, 'empty.sqlite');
      await writeFile(empty, '');
      await expect(copy({ sqlite: empty }, { sqlite: join(dir, 't1.sqlite') })).rejects.toThrow(`cannot copy from it: ${empty} holds no store: it was never migrated`);
      await expect(copy({ postgresql: await emptyDatabase() }, { sqlite: join(dir, 't2.sqlite') })).rejects.toThrow(/holds no store: it was never migrated/);
      const older = join(dir, 'older.sqlite');
      const db = new Database(older);
      migrate(db, MIGRATIONS.slice(0, 3));
      db.close();
      await expect(copy({ sqlite: older }, { sqlite: join(dir, 't3.sqlite') })).rejects.toThrow(/is behind this version: it lacks the migrations 'member attributes and sealed login cookies', .*start this version's service \(or any command\) on it once/);
      await expect(copy({ sqlite: join(dir, 'missing.sqlite') }, { sqlite: join(dir, 't4.sqlite') })).rejects.toThrow(/^cannot open the SQLite database .*missing.sqlite as the source: no such file, or it cannot be opened$/);
      // The SQLite targets were not even created.
      expect((await readdir(dir)).sort()).toEqual(['empty.sqlite', 'older.sqlite']);
    });

    test('a target migrated by a newer version', async () => {
      const url = await emptyDatabase();
      await withStore({ databaseUrl: url }, async () => {});
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'a migration of a later version', 0)");
        await expect(copy({ sqlite: await filledSqlite() }, { postgresql: url })).rejects.toThrow(/^cannot copy into it: .* was migrated by a newer version \(migrations 'a migration of a later version' are unknown here\): use that version$/);
        expect((await client.query('SELECT count(*)::int AS n FROM members')).rows[0]).toEqual({ n: 0 });
      } finally {
        await client.end();
      }
    });

    test('a database that cannot be reached, and a location that is not one, without their credentials', async () => {
      const file = await filledSqlite();
      const unreachable = copy({ sqlite: file }, { postgresql: 'postgres://admin:secret-password@127.0.0.1:1/nowhere' });
      await expect(unreachable).rejects.toThrow(/^cannot reach the PostgreSQL database at 127\.0\.0\.1:1\/nowhere \(the target\): connect ECONNREFUSED/);
      await expect(unreachable).rejects.not.toThrow(/secret-password/);
      expect(() => parseLocation('mysql://admin:secret-password@db/store')).toThrow(new StoreJobRefusal('"mysql://…@db/store" is not a store location: give file:PATH (a SQLite file, or a data directory holding authentication.sqlite) or postgres://… (a PostgreSQL database)'));
      // A mistyped scheme, with a password holding the characters that end a user part: nothing of it shown.
      for (const url of ['postgress://admin:se/cret@db/store', 'postgre://admin:se@cret@db/store']) {
        expect(() => parseLocation(url)).toThrow(/^"postgres?s?:\/\/…@db\/store" is not a store location/);
      }
      await expect(copy({ sqlite: file }, { sqlite: join(dir, 'no', 'such', 'directory', 'x.sqlite') })).rejects.toThrow(/^cannot open the SQLite database .*x\.sqlite as the target: /);
    });
  });
});
