/**
 * A store's database as the operator's whole-store jobs see it (copy, backup, check): not the Store's methods
 * but its catalogue, its migrations and its rows, table by table. Each dialect implements it
 * (src/store/sqlite/store-database.ts, src/store/postgres/store-database.ts); the jobs know no SQL dialect.
 * Tables and columns are read from the database's own catalogue, so that a table or column a migration adds is
 * copied, counted and checked with no change here.
 */

/**
 * What a column holds, as the copy converts and compares it: read from its declared type (SQLite's BOOLEAN
 * flags are INTEGER columns; src/store/maintenance/values.ts pairs the two sides' kinds).
 */
export type ColumnKind = 'integer' | 'boolean' | 'real' | 'text' | 'json' | 'blob';

export interface Column {
  name: string;
  kind: ColumnKind;
}

export interface Table {
  name: string;
  /** In the table's order. */
  columns: Column[];
  /** The tables its foreign keys refer to (itself excluded). */
  references: string[];
  /** The column whose values a sequence hands out (SQLite's AUTOINCREMENT, PostgreSQL's identity), if any. */
  sequenceColumn: string | null;
}

/** A value as the copy hands it to a database: integers as bigint, booleans, numbers, text (JSON too), bytes. */
export type Value = bigint | boolean | number | string | Buffer | null;

/** A row of a table: the values of `columns`, in that order, as the database's driver returns them. */
export type RawRow = unknown[];

/** Reads rows in one consistent snapshot of the database (a read transaction). */
export interface SnapshotReader {
  /** How many rows the table holds in the snapshot. */
  count(table: string): Promise<number>;
  /**
   * The table's rows, `columns` of each, in batches of about `batchSize`, in no particular order; a row whose
   * `skip.column` equals `skip.value` is left out.
   */
  rows(table: Table, columns: readonly Column[], batchSize: number, skip?: { column: string; value: string }): AsyncIterable<RawRow[]>;
  /** The value the table's sequence handed out last (0 when none yet). */
  sequenceValue(table: Table): Promise<bigint>;
}

/** What the check found wrong in the database's structure, one line each; none when it is sound. */
export type IntegrityProblems = string[];

export interface StoreDatabase {
  readonly dialect: 'sqlite' | 'postgresql';
  /** Named for the operator, without credentials: the file's path, or host:port/database. */
  readonly name: string;
  /** The names of this build's migrations of the dialect, in order. */
  readonly knownMigrations: readonly string[];
  /** What tells this database from any other: two handles with the same identity reach one database. */
  identity(): Promise<string>;
  /** The names of the migrations applied, in order; null when the database was never migrated. */
  appliedMigrations(): Promise<string[] | null>;
  migrate(): Promise<void>;
  /** The store's tables (schema_migrations and the like excepted). */
  tables(): Promise<Table[]>;
  /** Runs `work` over one consistent read snapshot; the database stays readable and writable by others meanwhile. */
  snapshot<T>(work: (reader: SnapshotReader) => Promise<T>): Promise<T>;
  /** Inserts the rows (values of `columns`, converted for this database) in one transaction. */
  insert(table: Table, columns: readonly Column[], rows: readonly Value[][]): Promise<void>;
  /** Sets the table's sequence to hand out values after `value`. */
  setSequence(table: Table, value: bigint): Promise<void>;
  /** Deletes every row of these tables, in this order, in one transaction, but the deployment setting `keepSetting`. */
  empty(tables: readonly Table[], keepSetting: string): Promise<void>;
  /** A deployment setting's value, or null (also when the table is not there yet). */
  setting(name: string): Promise<string | null>;
  writeSetting(name: string, value: string): Promise<void>;
  deleteSetting(name: string): Promise<void>;
  /** The database's own checks of its structure: its pages, indexes and foreign keys. */
  integrity(): Promise<IntegrityProblems>;

  close(): Promise<void>;
}

/** The tables the migrations keep for themselves: the copy's target has its own, written by its migration. */
export const MIGRATION_TABLES: readonly string[] = ['schema_migrations', 'schema_migrations_lock'];

/** The table of the deployment settings (the server key's fingerprint, the unfinished copy's marker). */
export const SETTINGS_TABLE = 'deployment_settings';

/** An identifier quoted for SQL, in either dialect. */
export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
