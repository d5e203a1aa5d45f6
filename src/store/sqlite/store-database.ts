import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
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
import { MIGRATIONS, migrate } from './migrations.js';

/** A column's kind by SQLite's rules of type affinity, with BOOLEAN and JSON told apart first. */
function kindOf(declared: string): ColumnKind {
  const type = declared.toUpperCase();
  if (type.includes('BOOL')) return 'boolean';
  if (type.includes('JSON')) return 'json';
  if (type.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'text';
  if (type === '' || type.includes('BLOB')) return 'blob';
  return 'real';
}

/** SQLite has no boolean type: flags are 0 or 1. */
const stored = (value: Value): unknown => (typeof value === 'boolean' ? (value ? 1n : 0n) : value);

const TABLES_SQL = `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`;
const HAS_TABLE_SQL = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?";

/**
 * The embedded store's file as `store copy`, `store backup` and `store check` use it: one connection of its own,
 * beside the service's (WAL: a reader sees one snapshot while the service writes). A source is opened read-only,
 * and must exist.
 */
export class SqliteStoreDatabase implements StoreDatabase {
  readonly dialect = 'sqlite';
  readonly knownMigrations = MIGRATIONS.map((migration) => migration.name);
  readonly #db: Database.Database;

  constructor(
    readonly name: string,
    options: { readonly: boolean },
  ) {
    this.#db = new Database(name, { readonly: options.readonly, fileMustExist: options.readonly, timeout: 5000 });
    if (!options.readonly) this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('foreign_keys = ON');
  }

  async identity(): Promise<string> {
    const { dev, ino } = statSync(this.name);
    return `sqlite:${dev}:${ino}`;
  }

  #hasTable(name: string): boolean {
    return this.#db.prepare(HAS_TABLE_SQL).get(name) !== undefined;
  }

  async appliedMigrations(): Promise<string[] | null> {
    if (!this.#hasTable('schema_migrations')) return null;
    return this.#db.prepare<[], { name: string }>('SELECT name FROM schema_migrations ORDER BY version').all().map((row) => row.name);
  }

  async migrate(): Promise<void> {
    migrate(this.#db);
  }

  async tables(): Promise<Table[]> {
    const tables = this.#db.prepare<[], { name: string; sql: string }>(TABLES_SQL).all();
    return tables
      .filter((table) => !MIGRATION_TABLES.includes(table.name))
      .map(({ name, sql }) => {
        const info = this.#db.pragma(`table_info(${quoted(name)})`) as Array<{ name: string; type: string; pk: number }>;
        const keys = this.#db.pragma(`foreign_key_list(${quoted(name)})`) as Array<{ table: string }>;
        const primaryKey = info.filter((column) => column.pk > 0);
        const autoincrement = /\bAUTOINCREMENT\b/i.test(sql) && primaryKey.length === 1;
        return {
          name,
          columns: info.map((column) => ({ name: column.name, kind: kindOf(column.type) })),
          references: [...new Set(keys.map((key) => key.table))].filter((table) => table !== name),
          sequenceColumn: autoincrement ? (primaryKey[0]?.name ?? null) : null,
        };
      });
  }

  async snapshot<T>(work: (reader: SnapshotReader) => Promise<T>): Promise<T> {
    const db = this.#db;
    db.exec('BEGIN');
    try {
      // The snapshot is taken at the first read, not at BEGIN.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      const result = await work(this.#reader());
      db.exec('COMMIT');
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }

  #reader(): SnapshotReader {
    const db = this.#db;
    return {
      count: async (table) => (db.prepare<[], { rows: number }>(`SELECT count(*) AS rows FROM ${quoted(table)}`).get()?.rows ?? 0),
      async *rows(table: Table, columns: readonly Column[], batchSize: number, skip?: { column: string; value: string }) {
        const where = skip ? ` WHERE ${quoted(skip.column)} IS NOT ?` : '';
        const statement = db.prepare(`SELECT ${columns.map((column) => quoted(column.name)).join(', ')} FROM ${quoted(table.name)}${where}`);
        // Whole integers as bigint, so that none past 2^53 loses a digit on the way.
        const rows = statement.raw(true).safeIntegers(true).iterate(...(skip ? [skip.value] : [])) as IterableIterator<RawRow>;
        let batch: RawRow[] = [];
        for (const row of rows) {
          batch.push(row);
          if (batch.length >= batchSize) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      },
      sequenceValue: async (table) => {
        const row = db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').safeIntegers(true).get(table.name) as { seq: bigint } | undefined;
        return row?.seq ?? 0n;
      },
    };
  }

  async insert(table: Table, columns: readonly Column[], rows: readonly Value[][]): Promise<void> {
    const names = columns.map((column) => quoted(column.name)).join(', ');
    const statement = this.#db.prepare(`INSERT INTO ${quoted(table.name)} (${names}) VALUES (${columns.map(() => '?').join(', ')})`);
    this.#db.transaction(() => {
      for (const row of rows) statement.run(...row.map(stored));
    })();
  }

  async setSequence(table: Table, value: bigint): Promise<void> {
    const changed = this.#db.prepare('UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?').run(value, table.name).changes;
    if (changed === 0) this.#db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(table.name, value);
  }

  async empty(tables: readonly Table[], keepSetting: string): Promise<void> {
    this.#db.transaction(() => {
      for (const table of tables) {
        if (table.name === SETTINGS_TABLE) this.#db.prepare(`DELETE FROM ${SETTINGS_TABLE} WHERE name <> ?`).run(keepSetting);
        else this.#db.exec(`DELETE FROM ${quoted(table.name)}`);
      }
      if (this.#hasTable('sqlite_sequence')) this.#db.exec('DELETE FROM sqlite_sequence');
    })();
  }

  async setting(name: string): Promise<string | null> {
    if (!this.#hasTable(SETTINGS_TABLE)) return null;
    return this.#db.prepare<[string], { value: string }>(`SELECT value FROM ${SETTINGS_TABLE} WHERE name = ?`).get(name)?.value ?? null;
  }

  async writeSetting(name: string, value: string): Promise<void> {
    this.#db.prepare(`INSERT INTO ${SETTINGS_TABLE} (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`).run(name, value);
  }

  async deleteSetting(name: string): Promise<void> {
    this.#db.prepare(`DELETE FROM ${SETTINGS_TABLE} WHERE name = ?`).run(name);
  }

  /** SQLite's integrity_check (every page, record and index) and foreign_key_check. */
  async integrity(): Promise<string[]> {
    const pages = (this.#db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check).filter((line) => line !== 'ok');
    const orphans = (this.#db.pragma('foreign_key_check') as Array<{ table: string; rowid: number | null; parent: string }>).map(
      (row) => `a row of ${row.table}${row.rowid === null ? '' : ` (rowid ${row.rowid})`} refers to a missing row of ${row.parent}`,
    );
    return [...pages, ...orphans];
  }

  /**
   * A consistent copy of the whole database into `destination`, with SQLite's online backup: the service goes
   * on reading and writing meanwhile. SQLite starts over when another connection writes between two steps, so
   * each step copies many pages.
   */
  async backup(destination: string): Promise<{ pages: number }> {
    const result = await this.#db.backup(destination, { progress: () => BACKUP_PAGES_PER_STEP });
    return { pages: result.totalPages };
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}

/** Pages copied a step: few steps, so that few writes of the service fall between two of them. */
const BACKUP_PAGES_PER_STEP = 4096;
