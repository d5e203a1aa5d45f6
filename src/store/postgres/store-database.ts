import pg from 'pg';
import {
  MIGRATION_TABLES,
  quoted,
  SETTINGS_TABLE,
  type Column,
  type ColumnKind,
  type RawRow,
  type SnapshotReader,
  type StoreDatabase,
  type Table,
  type Value,
} from '../maintenance/database.js';
import { describeDatabaseUrl } from './database-url.js';
import { MIGRATIONS, migrate } from './migrations.js';

/** The Bind message counts its parameters in 16 bits: one statement takes at most this many. */
const MAX_PARAMETERS = 65_535;
const CONNECTION_TIMEOUT_MS = 5_000;

function kindOf(dataType: string): ColumnKind {
  if (['smallint', 'integer', 'bigint'].includes(dataType)) return 'integer';
  if (dataType === 'boolean') return 'boolean';
  if (dataType === 'bytea') return 'blob';
  if (dataType === 'json' || dataType === 'jsonb') return 'json';
  if (['real', 'double precision', 'numeric'].includes(dataType)) return 'real';
  return 'text';
}

/** pg takes whole numbers past 2^53 as text, which PostgreSQL reads exactly; JSON columns take their text. */
const sent = (value: Value): unknown => (typeof value === 'bigint' ? value.toString() : value);

/** JSON is read as its text, which the copy compares and writes as it is; every other column as pg reads it. */
const selected = (column: Column) => (column.kind === 'json' ? `${quoted(column.name)}::text` : quoted(column.name));

const TABLES_SQL = `
  SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname`;
const COLUMNS_SQL = `
  SELECT table_name, column_name, data_type, is_identity = 'YES' OR column_default LIKE 'nextval(%' AS sequenced
  FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`;
const REFERENCES_SQL = `
  SELECT DISTINCT t.relname AS table, r.relname AS referenced FROM pg_constraint c
    JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid JOIN pg_namespace n ON n.oid = t.relnamespace
  WHERE c.contype = 'f' AND n.nspname = current_schema()`;
const IDENTITY_SQL = `SELECT coalesce((SELECT system_identifier::text FROM pg_control_system()), '') || ':' || current_database() || ':' || current_schema() AS identity`;
const INVALID_INDEXES_SQL = `
  SELECT i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace
  WHERE n.nspname = current_schema() AND NOT (x.indisvalid AND x.indisready)`;
const UNVALIDATED_CONSTRAINTS_SQL = `
  SELECT c.conname AS name, t.relname AS table FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
  WHERE n.nspname = current_schema() AND NOT c.convalidated`;

/**
 * A PostgreSQL store's database as `store copy` and `store check` use it: one connection of its own. Its
 * snapshot is a REPEATABLE READ, READ ONLY transaction, read through a cursor: the instances go on reading and
 * writing meanwhile.
 */
export class PostgresStoreDatabase implements StoreDatabase {
  readonly dialect = 'postgresql';
  readonly knownMigrations = MIGRATIONS.map((migration) => migration.name);
  readonly name: string;
  readonly #client: pg.Client;
  #cursors = 0;

  private constructor(
    readonly url: string,
    client: pg.Client,
  ) {
    this.name = describeDatabaseUrl(url);
    this.#client = client;
  }

  /** Connected, or rejected with the driver's error (an unreachable server, an unknown database, a refused login). */
  static async connect(url: string): Promise<PostgresStoreDatabase> {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS, application_name: 'authentication-asmx store' });
    // A connection lost between queries is reported here too; the next query fails with it.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    return new PostgresStoreDatabase(url, client);
  }

  async #rows<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    return (await this.#client.query<R>(sql, values)).rows;
  }

  async identity(): Promise<string> {
    const [row] = await this.#rows<{ identity: string }>(IDENTITY_SQL);
    return `postgresql:${row?.identity ?? ''}`;
  }

  async #hasTable(name: string): Promise<boolean> {
    const [row] = await this.#rows<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [quoted(name)]);
    return row?.found === true;
  }

  async appliedMigrations(): Promise<string[] | null> {
    if (!(await this.#hasTable('schema_migrations'))) return null;
    return (await this.#rows<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version')).map((row) => row.name);
  }

  /** The store's own migration, on a pool of one connection to the same URL. */
  async migrate(): Promise<void> {
    const pool = new pg.Pool({ connectionString: this.url, max: 1, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS });
    pool.on('error', () => {});
    try {
      await migrate(pool);
    } finally {
      await pool.end();
    }
  }

  async tables(): Promise<Table[]> {
    const names = (await this.#rows<{ name: string }>(TABLES_SQL)).map((row) => row.name).filter((name) => !MIGRATION_TABLES.includes(name));
    const columns = await this.#rows<{ table_name: string; column_name: string; data_type: string; sequenced: boolean }>(COLUMNS_SQL);
    const references = await this.#rows<{ table: string; referenced: string }>(REFERENCES_SQL);
    return names.map((name) => {
      const own = columns.filter((column) => column.table_name === name);
      return {
        name,
        columns: own.map((column) => ({ name: column.column_name, kind: kindOf(column.data_type) })),
        references: references.filter((reference) => reference.table === name && reference.referenced !== name).map((reference) => reference.referenced),
        sequenceColumn: own.find((column) => column.sequenced)?.column_name ?? null,
      };
    });
  }

  async #inTransaction<T>(begin: string, work: () => Promise<T>): Promise<T> {
    await this.#client.query(begin);
    try {
      const result = await work();
      await this.#client.query('COMMIT');
      return result;
    } catch (error) {
      await this.#client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  snapshot<T>(work: (reader: SnapshotReader) => Promise<T>): Promise<T> {
    return this.#inTransaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', () => work(this.#reader()));
  }

  #reader(): SnapshotReader {
    const client = this.#client;
    const database = this;
    return {
      count: async (table) => Number((await this.#rows<{ rows: string }>(`SELECT count(*) AS rows FROM ${quoted(table)}`))[0]?.rows ?? 0),
      async *rows(table: Table, columns: readonly Column[], batchSize: number, skip?: { column: string; value: string }) {
        const cursor = `store_copy_${(database.#cursors += 1)}`;
        const where = skip ? ` WHERE ${quoted(skip.column)} IS DISTINCT FROM $1` : '';
        await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${columns.map(selected).join(', ')} FROM ${quoted(table.name)}${where}`, skip ? [skip.value] : []);
        try {
          for (;;) {
            const batch = (await client.query<RawRow>({ text: `FETCH ${batchSize} FROM ${cursor}`, rowMode: 'array' })).rows;
            if (batch.length > 0) yield batch;
            if (batch.length < batchSize) break;
          }
        } finally {
          await client.query(`CLOSE ${cursor}`);
        }
      },
      sequenceValue: async (table) => {
        const sql = 'SELECT pg_sequence_last_value(pg_get_serial_sequence($1, $2)::regclass)::text AS value';
        const [row] = await this.#rows<{ value: string | null }>(sql, [quoted(table.name), table.sequenceColumn]);
        return BigInt(row?.value ?? 0);
      },
    };
  }

  /** As many rows a statement as its parameters allow, in one transaction. */
  async insert(table: Table, columns: readonly Column[], rows: readonly Value[][]): Promise<void> {
    const perStatement = Math.floor(MAX_PARAMETERS / columns.length);
    const names = columns.map((column) => quoted(column.name)).join(', ');
    await this.#inTransaction('BEGIN', async () => {
      for (let start = 0; start < rows.length; start += perStatement) {
        const chunk = rows.slice(start, start + perStatement);
        const tuples = chunk.map((_, row) => `(${columns.map((__, column) => `$${row * columns.length + column + 1}`).join(', ')})`);
        await this.#client.query(`INSERT INTO ${quoted(table.name)} (${names}) VALUES ${tuples.join(', ')}`, chunk.flat().map(sent));
      }
    });
  }

  /** setval: the next value is value + 1 (1 when value is 0: none handed out yet). */
  async setSequence(table: Table, value: bigint): Promise<void> {
    const sql = 'SELECT setval(pg_get_serial_sequence($1, $2), $3, $4)';
    await this.#client.query(sql, [quoted(table.name), table.sequenceColumn, (value > 0n ? value : 1n).toString(), value > 0n]);
  }

  async empty(tables: readonly Table[], keepSetting: string): Promise<void> {
    await this.#inTransaction('BEGIN', async () => {
      for (const table of tables) {
        if (table.name === SETTINGS_TABLE) await this.#client.query(`DELETE FROM ${SETTINGS_TABLE} WHERE name <> $1`, [keepSetting]);
        else await this.#client.query(`DELETE FROM ${quoted(table.name)}`);
      }
    });
  }

  async setting(name: string): Promise<string | null> {
    if (!(await this.#hasTable(SETTINGS_TABLE))) return null;
    return (await this.#rows<{ value: string }>(`SELECT value FROM ${SETTINGS_TABLE} WHERE name = $1`, [name]))[0]?.value ?? null;
  }

  async writeSetting(name: string, value: string): Promise<void> {
    await this.#client.query(`INSERT INTO ${SETTINGS_TABLE} (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value`, [name, value]);
  }

  async deleteSetting(name: string): Promise<void> {
    await this.#client.query(`DELETE FROM ${SETTINGS_TABLE} WHERE name = $1`, [name]);
  }

  /**
   * What PostgreSQL's catalogue says is unfinished: an index a failed CREATE INDEX CONCURRENTLY left invalid, a
   * constraint added NOT VALID and never validated. (The server keeps its pages' integrity itself.)
   */
  async integrity(): Promise<string[]> {
    const indexes = await this.#rows<{ name: string }>(INVALID_INDEXES_SQL);
    const constraints = await this.#rows<{ name: string; table: string }>(UNVALIDATED_CONSTRAINTS_SQL);
    return [
      ...indexes.map((index) => `index ${index.name} is not valid: rebuild it (REINDEX INDEX ${quoted(index.name)})`),
      ...constraints.map((constraint) => `constraint ${constraint.name} of ${constraint.table} was never validated: ALTER TABLE … VALIDATE CONSTRAINT it`),
    ];
  }

  async close(): Promise<void> {
    await this.#client.end();
  }
}
