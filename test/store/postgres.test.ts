import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { openStore } from '../../src/store/open.js';
import { connectionFailureReason, describeDatabaseUrl } from '../../src/store/postgres/database-url.js';
import type { Migration } from '../../src/store/migration.js';
import { MIGRATIONS, migrate } from '../../src/store/postgres/migrations.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { adminQuery, createTestSchema, describeWithPostgres, POSTGRES_TEST_URL, tempPostgresStore } from '../helpers/postgres.js';
import { storeContract } from './contract.js';
import {
  ADA,
  adaSessions,
  expectConcurrentWritesKept,
  expectReadAnsweredDuringPurge,
  expectUpgradedAda,
  expectUpgradedWithSecondFactors,
  expectWriteKeptBesideRolledBackTransaction,
} from './fixtures.js';

const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));

/** Children before parents, although ON DELETE CASCADE would manage either way. */
const TABLES = ['events', 'saml_requests', 'saml_session_sps', 'saml_keys', 'saml_sps', 'oidc_session_links', 'oidc_payloads', 'oidc_keys', 'oidc_clients', 'provisioning_clients', 'passkey_sessions', 'passkey_challenges', 'passkeys', 'sessions', 'member_recovery_codes', 'member_second_factors', 'members', 'caller_origins', 'caller_passwords', 'callers', 'throttles'];

/** DATABASE_URL with the schema as every connection's search_path, as an operator could write it. */
function urlWithSchema(schema: string): string {
  const url = new URL(POSTGRES_TEST_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

async function appliedMigrations(schema: string): Promise<Array<{ version: number; name: string }>> {
  const result = await adminQuery('SELECT version, name FROM schema_migrations ORDER BY version', schema);
  return result.rows as Array<{ version: number; name: string }>;
}

async function tableNames(schema: string): Promise<string[]> {
  const result = await adminQuery(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY table_name`,
  );
  return result.rows.map((row: { table_name: string }) => row.table_name);
}

function poolIn(schema: string): pg.Pool {
  return new pg.Pool({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${schema}`, max: 2 });
}


describeWithPostgres('PostgresStore', () => {
  // The contract's tests share one migrated schema for the run; each starts from empty tables, which is much
  // faster than migrating a schema per test.
  let run: { schema: string; drop: () => Promise<void> };
  let admin: pg.Client;

  beforeAll(async () => {
    run = await createTestSchema();
    const store = new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: run.schema });
    await store.migrate();
    await store.close();
    admin = new pg.Client({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${run.schema}` });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await run?.drop();
  });

  storeContract('postgresql', async () => {
    await admin.query(TABLES.map((table) => `DELETE FROM ${table};`).join('\n'));
    return new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: run.schema });
  });

  describe('openStore() with a DATABASE_URL', () => {
    let dataDir: string;
    let schema: { schema: string; drop: () => Promise<void> };

    beforeEach(async () => {
      dataDir = join(mkdtempSync(join(tmpdir(), 'authentication-asmx-pg-')), 'data');
      schema = await createTestSchema();
    });

    afterEach(async () => {
      await schema.drop();
      rmSync(dirname(dataDir), { recursive: true, force: true });
    });

    test('opens a PostgreSQL store with every migration applied, and creates nothing in the data directory', async () => {
      const store = await openStore({ dataDir, databaseUrl: urlWithSchema(schema.schema) });
      await store.createMember(ADA);
      expect(await store.getMember('m1')).toEqual(ADA);
      await store.close();
      expect(existsSync(dataDir)).toBe(false);
      expect(await appliedMigrations(schema.schema)).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
      expect(await tableNames(schema.schema)).toEqual(
        [
          'caller_origins', 'caller_passwords', 'callers', 'deployment_settings', 'events', 'member_recovery_codes', 'member_second_factors', 'members',
          'oidc_clients', 'oidc_keys', 'oidc_payloads', 'oidc_session_links', 'passkey_challenges', 'passkey_sessions', 'passkeys', 'provisioning_clients', 'recovery_tokens', 'roles', 'saml_keys', 'saml_requests', 'saml_session_sps', 'saml_sps',
          'schema_migrations', 'schema_migrations_lock', 'sessions', 'staff_roles', 'throttles',
        ],
      );
    });

    test('reopening keeps the data', async () => {
      const first = await openStore({ dataDir, databaseUrl: urlWithSchema(schema.schema) });
      await first.createMember(ADA);
      const caller = await first.createCaller('partner', ADA.createdAt);
      await first.close();

      const second = await openStore({ dataDir, databaseUrl: urlWithSchema(schema.schema) });
      expect(await second.getMember('m1')).toEqual(ADA);
      expect(await second.listCallers()).toEqual([caller]);
      await second.close();
      expect(await appliedMigrations(schema.schema)).toHaveLength(MIGRATIONS.length);
    });

    test('a database whose schema version is newer than this build is refused with a clear message', async () => {
      await (await openStore({ dataDir, databaseUrl: urlWithSchema(schema.schema) })).close();
      await adminQuery(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${LATEST + 1}, 'from the future', 0)`, schema.schema);

      await expect(openStore({ dataDir, databaseUrl: urlWithSchema(schema.schema) })).rejects.toThrow(
        `database schema version ${LATEST + 1} is newer than this build supports (${LATEST}); upgrade authentication-asmx`,
      );
    });

    test('a database that does not exist is reported as such, without the password', async () => {
      const url = new URL(POSTGRES_TEST_URL);
      url.password = 's3cret-password';
      url.pathname = '/asmx_no_such_database';
      const error = await openStore({ dataDir, databaseUrl: url.toString() }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toBe(
        `cannot reach the PostgreSQL database at ${url.hostname}:${url.port || 5432}/asmx_no_such_database: ` +
          'database "asmx_no_such_database" does not exist',
      );
      expect(error?.message).not.toContain('s3cret');
    });
  });

  describe('migrations', () => {
    let schema: { schema: string; drop: () => Promise<void> };

    beforeEach(async () => {
      schema = await createTestSchema();
    });

    afterEach(async () => {
      await schema.drop();
    });

    const extra: Migration = { version: LATEST + 1, name: 'notes', sql: 'CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT)' };

    test('MIGRATIONS are numbered 1, 2, 3... in order', () => {
      expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, index) => index + 1));
    });

    test('migrate() twice is harmless: each migration is recorded once', async () => {
      const store = new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: schema.schema });
      await store.migrate();
      await store.createMember(ADA);
      await store.migrate();
      expect(await store.getMember('m1')).toEqual(ADA);
      await store.close();
      expect(await appliedMigrations(schema.schema)).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    });

    test('several stores migrating one empty schema at once all succeed, and each migration is applied once', async () => {
      const stores = Array.from({ length: 5 }, () => new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: schema.schema }));
      try {
        await Promise.all(stores.map((store) => store.migrate()));
        await stores[0]?.createMember(ADA);
        for (const store of stores) expect(await store.listMembers()).toEqual([ADA]);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
      expect(await appliedMigrations(schema.schema)).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
      expect((await adminQuery('SELECT id FROM schema_migrations_lock', schema.schema)).rows).toEqual([{ id: 1 }]);
    });

    test('a schema recorded at a newer version is refused with a clear message, and left as it was', async () => {
      const store = new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: schema.schema });
      await store.migrate();
      await adminQuery(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${LATEST + 2}, 'from the future', 0)`, schema.schema);
      await expect(store.migrate()).rejects.toThrow(
        `database schema version ${LATEST + 2} is newer than this build supports (${LATEST}); upgrade authentication-asmx`,
      );
      await store.close();
      expect((await appliedMigrations(schema.schema)).map((m) => m.version)).toEqual([...MIGRATIONS.map((m) => m.version), LATEST + 2]);
    });

    test('migrate() applies only the pending migrations and records when', async () => {
      const pool = poolIn(schema.schema);
      try {
        await migrate(pool, MIGRATIONS, () => 1000);
        await migrate(pool, [...MIGRATIONS, extra], () => 2000);
        await migrate(pool, [...MIGRATIONS, extra], () => 3000);
      } finally {
        await pool.end();
      }
      const rows = (await adminQuery('SELECT version, applied_at FROM schema_migrations ORDER BY version', schema.schema)).rows;
      expect(rows).toEqual([
        ...MIGRATIONS.map((m) => ({ version: m.version, applied_at: '1000' })),
        { version: extra.version, applied_at: '2000' },
      ]);
      expect(await tableNames(schema.schema)).toContain('notes');
    });

    test('a schema at version 2 is upgraded: its members get {} as attributes, its sessions no sealed cookie', async () => {
      const pool = poolIn(schema.schema);
      try {
        await migrate(pool, MIGRATIONS.filter((m) => m.version <= 2));
      } finally {
        await pool.end();
      }
      const t0 = ADA.createdAt;
      await adminQuery(
        `INSERT INTO members (id, username, email, first_name, last_name, enabled, created_at)
          VALUES ('m1', 'ada', 'ada@example.org', 'Ada', 'Lovelace', TRUE, ${t0});
        INSERT INTO sessions (id, member_id, cookie_domain, cookie_hash, token_hash, token_sealed, created_at, last_seen_at, expires_at)
          VALUES ('s1', 'm1', 'example.org', 'cookie-hash', 'token-hash', 'sealed-token', ${t0}, ${t0}, ${t0})`,
        schema.schema,
      );

      const store = new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: schema.schema });
      try {
        await store.migrate();
        await expectUpgradedAda(store);
      } finally {
        await store.close();
      }
      expect(await appliedMigrations(schema.schema)).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    });

    test('a schema at version 3 is upgraded: its sessions get no client address or browser, its members no second factor', async () => {
      const pool = poolIn(schema.schema);
      try {
        await migrate(pool, MIGRATIONS.filter((m) => m.version <= 3));
      } finally {
        await pool.end();
      }
      expect(await tableNames(schema.schema)).not.toContain('member_second_factors');
      const t0 = ADA.createdAt;
      await adminQuery(
        `INSERT INTO members (id, username, email, first_name, last_name, enabled, created_at)
          VALUES ('m1', 'ada', 'ada@example.org', 'Ada', 'Lovelace', TRUE, ${t0});
        INSERT INTO sessions (id, member_id, cookie_domain, cookie_hash, token_hash, token_sealed, cookie_sealed,
            created_at, last_seen_at, expires_at)
          VALUES ('s1', 'm1', 'example.org', 'cookie-hash', 'token-hash', 'sealed-token', 'sealed-cookie', ${t0}, ${t0}, ${t0})`,
        schema.schema,
      );

      const store = new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: schema.schema });
      try {
        await store.migrate();
        await expectUpgradedWithSecondFactors(store);
      } finally {
        await store.close();
      }
      expect(await appliedMigrations(schema.schema)).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
      expect(await tableNames(schema.schema)).toEqual(expect.arrayContaining(['member_recovery_codes', 'member_second_factors']));
    });

    test('a failing migration is rolled back entirely', async () => {
      const pool = poolIn(schema.schema);
      const broken: Migration = { ...extra, sql: 'CREATE TABLE notes (id BIGINT PRIMARY KEY); CREATE TABLE broken (' };
      try {
        await migrate(pool);
        const tablesBefore = await tableNames(schema.schema);
        await expect(migrate(pool, [...MIGRATIONS, broken])).rejects.toBeDefined();
        expect(await tableNames(schema.schema)).toEqual(tablesBefore);
      } finally {
        await pool.end();
      }
      expect((await appliedMigrations(schema.schema)).map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
    });
  });

  describe('PostgreSQL specifics', () => {
    let temp: Awaited<ReturnType<typeof tempPostgresStore>>;

    beforeEach(async () => {
      temp = await tempPostgresStore();
    });

    afterEach(async () => {
      await temp.cleanup();
    });

    test('a write made while a transaction is open is no part of it: the transaction has a connection of its own', async () => {
      await temp.store.createMember(ADA);
      await expectWriteKeptBesideRolledBackTransaction(temp.store);
    });

    test('transactions and single writes started at once all take effect, each whole, and the failing ones leave nothing', async () => {
      await temp.store.createMember(ADA);
      await expectConcurrentWritesKept(temp.store);
    });

    test('two instances moving the same sessions in opposite orders at once wait for each other rather than deadlock', async () => {
      const t0 = ADA.createdAt;
      await temp.store.createMember(ADA);
      const sessions = adaSessions(200, t0 + 3_600_000);
      await temp.store.createSessions(sessions);
      const other = new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: temp.schema });
      try {
        for (let round = 1; round <= 10; round += 1) {
          const touches = sessions.map((session, index) => ({ id: session.id, lastSeenAt: t0 + round * 1000 + index }));
          await Promise.all([
            ...Array.from({ length: 4 }, () => temp.store.touchSessions(touches)),
            ...Array.from({ length: 4 }, () => other.touchSessions([...touches].reverse())),
          ]);
        }
      } finally {
        await other.close();
      }
      const lastSeen = new Map((await temp.store.listSessions()).map((session) => [session.id, session.lastSeenAt]));
      expect(sessions.map((session) => lastSeen.get(session.id))).toEqual(sessions.map((_, index) => t0 + 10_000 + index));
    });

    test('ids and epoch milliseconds come back as numbers', async () => {
      const caller = await temp.store.createCaller('partner', ADA.createdAt);
      const [listed] = await temp.store.listCallers();
      expect(typeof caller.id).toBe('number');
      expect(typeof listed?.id).toBe('number');
      expect(typeof listed?.createdAt).toBe('number');
      expect(listed).toEqual(caller);
    });

    test('purges delete in batches until nothing is left, and count every row', async () => {
      const t0 = ADA.createdAt;
      await temp.store.createMember(ADA);
      await adminQuery(
        `INSERT INTO sessions (id, member_id, cookie_domain, cookie_hash, token_hash, token_sealed,
            created_at, last_seen_at, expires_at, revoked_at)
          SELECT 's' || n, 'm1', 'example.org', 'c' || n, 't' || n, 'x', ${t0}, ${t0}, ${t0} + n, NULL
          FROM generate_series(1, 2500) AS n;
        INSERT INTO throttles (key, failures, window_started_at, locked_until)
          SELECT 'k' || n, 1, ${t0}, NULL FROM generate_series(1, 1200) AS n`,
        temp.schema,
      );
      expect(await temp.store.purgeSessions(t0 + 2400, t0 - 1)).toBe(2400);
      expect(await temp.store.listSessions()).toHaveLength(100);
      expect(await temp.store.purgeThrottles(t0)).toBe(1200);
      expect(await temp.store.purgeThrottles(t0)).toBe(0);
    });

    test('a batch of purgeSessions reads three indexes (a BitmapOr) and one of purgeThrottles its own; neither scans the table', async () => {
      // Live rows, and the statistics autovacuum would have gathered: the planner picks what it would in service.
      const t0 = ADA.createdAt;
      await temp.store.createMember(ADA);
      await temp.store.createSessions(adaSessions(20_000, t0 + 3_600_000));
      await adminQuery(
        `INSERT INTO throttles (key, failures, window_started_at, locked_until)
          SELECT 'k' || n, 1, ${t0} + n, NULL FROM generate_series(1, 2000) AS n;
        ANALYZE sessions;
        ANALYZE throttles`,
        temp.schema,
      );
      // The statements the store runs, as it runs them: its SQL is its own.
      const query = jest.spyOn(pg.Pool.prototype, 'query');
      let purges: Array<[string, unknown[]]> = [];
      try {
        await temp.store.purgeSessions(t0 - 1, t0 - 1);
        await temp.store.purgeThrottles(t0 - 1);
      } finally {
        purges = query.mock.calls.map(([sql, values]) => [String(sql), values as unknown[]]);
        query.mockRestore();
      }
      const client = new pg.Client({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${temp.schema}` });
      await client.connect();
      const plans: string[] = [];
      try {
        for (const [sql, values] of purges) {
          const explained = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values);
          plans.push(explained.rows.map((row) => row['QUERY PLAN']).join('\n'));
        }
      } finally {
        await client.end();
      }

      expect(purges.map(([sql]) => sql.split(' WHERE')[0])).toEqual(['DELETE FROM sessions', 'DELETE FROM throttles']);
      const [sessions, throttles] = plans;
      expect(sessions).toContain('BitmapOr');
      for (const index of ['sessions_expires_at', 'sessions_revoked_at', 'sessions_last_seen_at']) {
        expect(sessions).toContain(`Bitmap Index Scan on ${index}`);
      }
      expect(throttles).toMatch(/Index Scan on throttles_window_started_at|Index Scan using throttles_window_started_at/);
      expect(plans.join('\n')).not.toMatch(/Seq Scan/);
    });

    test('a store in a schema works there only', async () => {
      await temp.store.createMember(ADA);
      const other = await tempPostgresStore();
      try {
        expect(await other.store.listMembers()).toEqual([]);
        expect(await temp.store.listMembers()).toEqual([ADA]);
      } finally {
        await other.cleanup();
      }
    });

    test('close() twice is harmless', async () => {
      const store = new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: temp.schema });
      await store.ping();
      await store.close();
      await expect(store.close()).resolves.toBeUndefined();
    });

    test('a schema name that is not a plain lower-case identifier is refused', () => {
      for (const schema of ['Public', 'a b', 'a;drop', '"x"', '1abc', '']) {
        expect(() => new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema })).toThrow(/lower-case identifier/);
      }
    });
  });
});

describeWithPostgres('the purge at scale', () => {
  let schema: { schema: string; drop: () => Promise<void> };

  beforeEach(async () => {
    schema = await createTestSchema();
  });

  afterEach(async () => {
    await schema.drop();
  });

  test('deletes 20,000 ended sessions in batches, and a read made meanwhile through the same pool is answered before it ends', async () => {
    // One connection: a purge of one statement over every row would hold it until the purge was done.
    const store = new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: schema.schema, maxConnections: 1 });
    try {
      await store.migrate();
      await store.createMember(ADA);
      await expectReadAnsweredDuringPurge(store);
    } finally {
      await store.close();
    }
  });
});

describe('openStore() with an unreachable DATABASE_URL', () => {
  test('fails as the store being unavailable, with where it tried and why, without the password, and creates no data directory', async () => {
    const dataDir = join(tmpdir(), `authentication-asmx-pg-unreachable-${process.pid}`);
    const error = await openStore({ dataDir, databaseUrl: 'postgres://asmx:s3cret-password@127.0.0.1:1/auth' }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ reason: 'unreachable', database: '127.0.0.1:1/auth', code: 'ECONNREFUSED' });
    expect(error?.message).toBe(
      "the database server of 127.0.0.1:1/auth is stopped, starting, shutting down or out of reach (ECONNREFUSED): check that it runs and that DATABASE_URL's host and port reach it",
    );
    expect(error?.message).not.toContain('s3cret');
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('describeDatabaseUrl()', () => {
  test.each([
    ['postgres://user:secret@db.example.org:6543/auth?sslmode=require&password=x', 'db.example.org:6543/auth'],
    ['postgresql://db.example.org/auth', 'db.example.org:5432/auth'],
    ['postgres://user:secret@[::1]:5433/auth', '[::1]:5433/auth'],
    ['postgres:///auth?host=/var/run/postgresql', '/var/run/postgresql:5432/auth'],
    ['postgres://user:secret@db.example.org', 'db.example.org:5432'],
    ['postgres://user:secret@db.example.org/my%20db', 'db.example.org:5432/my db'],
    ['not a url, secret', 'the configured DATABASE_URL (not a valid URL)'],
  ])('%s → %s', (url, expected) => {
    expect(describeDatabaseUrl(url)).toBe(expected);
  });
});

describe('connectionFailureReason()', () => {
  test('joins the distinct reasons of an AggregateError, which has no message of its own', () => {
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const error = new AggregateError([refused('::1:5432'), refused('127.0.0.1:5432')], '');
    expect(connectionFailureReason(error)).toBe('connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432');
  });

  test('falls back to the code of an error without a message', () => {
    expect(connectionFailureReason(Object.assign(new Error(''), { code: 'ETIMEDOUT' }))).toBe('ETIMEDOUT');
  });
});
