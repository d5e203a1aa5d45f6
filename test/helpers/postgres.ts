import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describeDatabaseUrl } from '../../src/store/postgres/database-url.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { describeRequiring, type Requirement } from './requirements.js';

/** The database the PostgreSQL tests use: DATABASE_URL, or this machine's (trust auth). */
export const POSTGRES_TEST_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Long enough for a local server under load, short enough that a machine without one skips quickly. */
const PROBE_TIMEOUT_MS = 3000;

async function probe(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return (error as Error).message || (error as { code?: string }).code || String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const unreachable = await probe(POSTGRES_TEST_URL);

/**
 * The PostgreSQL server at POSTGRES_TEST_URL, probed once, when a test file first imports this module, because
 * describe() cannot wait.
 */
export const POSTGRES: Requirement = {
  what: 'PostgreSQL',
  missing:
    unreachable === undefined
      ? undefined
      : `cannot reach PostgreSQL at ${describeDatabaseUrl(POSTGRES_TEST_URL)} (${unreachable}); start it or set DATABASE_URL`,
};

/** describe() for suites that need the PostgreSQL server (test/helpers/requirements.ts: CI fails where it is missing). */
export function describeWithPostgres(name: string, suite: () => void): void {
  describeRequiring([POSTGRES], name, suite);
}

/** A schema of its own for one test run or one test, named asmx_test_<random>; drop() removes it and its tables. */
export async function createTestSchema(): Promise<{ schema: string; drop: () => Promise<void> }> {
  const schema = `asmx_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  return {
    schema,
    drop: async () => {
      await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/** One statement on a connection of its own, outside any store. */
export async function adminQuery(sql: string, schema?: string): Promise<pg.QueryResult> {
  const client = new pg.Client({
    connectionString: POSTGRES_TEST_URL,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  client.on('error', () => {});
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The store, migrated; when that fails, it is closed and `drop` removes what was made for it. */
export async function migratedOrDropped(store: PostgresStore, drop: () => Promise<unknown>): Promise<PostgresStore> {
  try {
    await store.migrate();
    return store;
  } catch (error) {
    await store.close();
    await drop();
    throw error;
  }
}

/** A fresh, migrated PostgreSQL store in a schema of its own; cleanup() closes it and drops the schema. */
export async function tempPostgresStore(): Promise<{ store: PostgresStore; schema: string; cleanup: () => Promise<void> }> {
  const { schema, drop } = await createTestSchema();
  const store = await migratedOrDropped(new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema }), drop);
  return {
    store,
    schema,
    cleanup: async () => {
      await store.close();
      await drop();
    },
  };
}
