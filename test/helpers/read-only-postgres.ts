import { randomBytes } from 'node:crypto';
import { describeDatabaseUrl } from '../../src/store/postgres/database-url.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { adminQuery, migratedOrDropped, POSTGRES_TEST_URL } from './postgres.js';
import { waitUntil } from './wait.js';

export interface WriteRefusingDatabase {
  /** A migrated store on the database. */
  store: PostgresStore;
  /** The database as the service names it: host:port/name. */
  where: string;
  /** Its DATABASE_URL, for the CLI. */
  url: string;
  /**
   * Makes the database refuse writes, as a server turned read-only does (a primary become a standby): every new
   * session starts read-only (default_transaction_read_only), and the store's connections are ended, as a
   * failover ends them, so that the ones it opens next are read-only.
   */
  refuseWrites(): Promise<void>;
  /**
   * Lets new sessions write again. Connections opened meanwhile stay read-only: the store has to replace them by
   * itself.
   */
  acceptWrites(): Promise<void>;
  /** Closes the store and drops the database. */
  cleanup(): Promise<void>;
}

async function backendsOf(database: string): Promise<number> {
  const { rows } = await adminQuery(`SELECT count(*)::INT AS count FROM pg_stat_activity WHERE datname = '${database}'`);
  return (rows[0] as { count: number }).count;
}

/**
 * A database of its own (ALTER DATABASE … SET changes the whole database: the tests' shared database is not
 * touched), for one test file.
 */
export async function writeRefusingDatabase(): Promise<WriteRefusingDatabase> {
  const database = `asmx_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${database}`);
  const url = new URL(POSTGRES_TEST_URL);
  url.pathname = `/${database}`;
  const drop = () => adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  const store = await migratedOrDropped(new PostgresStore({ connectionString: String(url) }), drop);
  return {
    store,
    where: describeDatabaseUrl(String(url)),
    url: String(url),
    async refuseWrites() {
      await adminQuery(`ALTER DATABASE ${database} SET default_transaction_read_only = on`);
      await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`);
      await waitUntil(async () => (await backendsOf(database)) === 0, `the connections to ${database} to end`);
    },
    async acceptWrites() {
      await adminQuery(`ALTER DATABASE ${database} RESET default_transaction_read_only`);
    },
    async cleanup() {
      await store.close();
      await drop();
    },
  };
}
