import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { storeError, type InsertedMembers, type SessionTouch, type SqlDialect, type SqlDriver, type SqlRunner } from '../sql/driver.js';
import { MEMBER_COLUMNS, type FlagCodec, memberValues, type NewMemberRecord } from '../sql/records.js';
import { SqlStore } from '../sql/sql-store.js';
import type { StoreUnavailableReason } from '../unavailable.js';
import { migrate } from './migrations.js';
import { sqliteUnavailableReason } from './unavailable-reasons.js';

/**
 * How long a statement waits for a lock another process holds (its write lock, most often) before failing with
 * SQLITE_BUSY, and the longest pause between its tries. The driver waits between turns of the event loop:
 * SQLite's own busy timeout would sleep inside the call, and every other request of the process with it.
 */
const BUSY_TIMEOUT_MS = 5000;
const MAX_BUSY_PAUSE_MS = 100;

/** SQLITE_BUSY and its extended codes: another connection holds the lock the statement needs. */
const isBusy = (error: unknown) => String((error as { code?: unknown } | null)?.code).startsWith('SQLITE_BUSY');

/** SQLite has no boolean type: flags are stored as 0 or 1. */
const FLAGS: FlagCodec = { toBoolean: (flag) => flag === 1, fromBoolean: (value) => (value ? 1 : 0) };

/** SQLite's JSON1 functions; its text comparisons are by code point already (the BINARY collation). */
const DIALECT: SqlDialect = {
  jsonText: (column, path) => `json_extract(${column}, '$.${path.join('.')}')`,
  // JSON's true and false come out as 1 and 0: the flags' own values.
  jsonFlag: (column, key) => `json_extract(${column}, '$.${key}')`,
  jsonElements: (column, path, alias) => `json_each(${column}, '$.${path.join('.')}') AS ${alias}`,
  elementText: (alias, key) => `json_extract(${alias}.value, '$.${key}')`,
  elementFlag: (alias, key) => `json_extract(${alias}.value, '$.${key}')`,
  position: (text, needle) => `instr(${text}, ${needle})`,
  byCodePoint: (expression) => expression,
  sessionKey: 'rowid',
};

/**
 * The most statements kept prepared. The store's own are a few hundred; searches compile a client's filter to
 * statements of their own, which past this bound are prepared for each call rather than kept for ever.
 */
const MAX_PREPARED = 2000;

/** By code, not instanceof: better-sqlite3 registers its error class once per process, not per module load. */
const CONFLICT_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

const NO_VALUES: readonly unknown[] = [];

/**
 * createMembers' insert: skipped, not failing, when the id or the username is taken, the username ignoring
 * case as findMembersByLogin folds it. The members_lower_username index serves the NOT EXISTS. (The WHERE also
 * keeps SQLite from reading ON CONFLICT as a join's ON.)
 */
const INSERT_MEMBER_IF_FREE_SQL = `
  INSERT INTO members (${MEMBER_COLUMNS}, password_hash)
    SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13
    WHERE NOT EXISTS (SELECT 1 FROM members WHERE lower(username) = lower($2))
  ON CONFLICT DO NOTHING`;
const MEMBER_USERNAME_SQL = 'SELECT username FROM members WHERE id = $1';
const TOUCH_SESSION_SQL = 'UPDATE sessions SET last_seen_at = MAX(last_seen_at, $1) WHERE id = $2';

/** SQLite's lower() without ICU, as better-sqlite3 builds it: ASCII letters only. */
function sqliteLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * A statement prepared once per SQL text. better-sqlite3 binds values by position to anonymous placeholders only,
 * so $1, $2… become ? and `order` says which value each takes, or is null when they take the values in order.
 * The values are spread into the call: better-sqlite3 binds an array given as one argument more slowly.
 */
interface Prepared {
  statement: Database.Statement<unknown[]>;
  order: number[] | null;
}

/**
 * The embedded database: one connection, whose calls are synchronous. A single-file database answers these small
 * indexed queries in microseconds, so blocking the event loop for them costs less than a worker hop would.
 *
 * The store's methods are asynchronous, and a transaction's work awaits between its statements: there another
 * call's statement could run on the connection, inside the open transaction (rolled back with it, or committed
 * with it half done). So while a transaction is open, every other statement and transaction waits for its end.
 * Outside transactions a statement runs at once, in the call.
 */
class SqliteDriver implements SqlDriver {
  readonly flags = FLAGS;
  readonly dialect = DIALECT;
  readonly #db: Database.Database;
  readonly #prepared = new Map<string, Prepared>();
  /**
   * Settles when the open transaction ends; null when none is open. A statement or a transaction outside it
   * checks it right before it starts, with nothing awaited in between: of several waiting ones, the first to
   * wake may open the next transaction, and the others wait again.
   */
  #openTransaction: Promise<void> | null = null;
  /** The statements of the open transaction, which alone run while it is open. */
  readonly #transactionRunner: SqlRunner = {
    rows: async <R>(sql: string, values = NO_VALUES) => this.#all(sql, values) as R[],
    row: async <R>(sql: string, values = NO_VALUES) => this.#get(sql, values) as R | undefined,
    changes: async (sql: string, values = NO_VALUES) => this.#run(sql, values),
  };

  constructor(readonly database: string) {
    let db: Database.Database | undefined;
    try {
      // No busy timeout of SQLite's (better-sqlite3 sets 5 s): #whenUnlocked waits for locks.
      db = new Database(database, { timeout: 0 });
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
    } catch (error) {
      // Opened but not set up (on a full disk, the shared-memory file cannot grow): closed, not left holding the files.
      db?.close();
      throw storeError(this, error);
    }
    this.#db = db;
  }

  /** Prepared on first use, because preparing needs the migrated tables. */
  #prepare(sql: string): Prepared {
    let prepared = this.#prepared.get(sql);
    if (prepared === undefined) {
      const order: number[] = [];
      const statement = this.#db.prepare<unknown[]>(
        sql.replace(/\$(\d+)/g, (_, number: string) => {
          order.push(Number(number) - 1);
          return '?';
        }),
      );
      prepared = { statement, order: order.every((index, position) => index === position) ? null : order };
      if (this.#prepared.size < MAX_PREPARED) this.#prepared.set(sql, prepared);
    }
    return prepared;
  }

  #bind(prepared: Prepared, values: readonly unknown[]): unknown[] {
    return (prepared.order === null ? values : prepared.order.map((index) => values[index])) as unknown[];
  }

  #get(sql: string, values: readonly unknown[]): unknown {
    const prepared = this.#prepare(sql);
    const { statement } = prepared;
    // A write's first row (INSERT … RETURNING) is read to the end: get() stops after the first row, and the commit
    // that comes when the statement ends then fails unheard (on a full disk, the row is returned and not stored).
    if (!statement.readonly) return statement.all(...this.#bind(prepared, values))[0];
    return statement.get(...this.#bind(prepared, values));
  }

  #all(sql: string, values: readonly unknown[]): unknown[] {
    const prepared = this.#prepare(sql);
    return prepared.statement.all(...this.#bind(prepared, values));
  }

  #run(sql: string, values: readonly unknown[]): number {
    const prepared = this.#prepare(sql);
    return prepared.statement.run(...this.#bind(prepared, values)).changes;
  }

  /**
   * Runs `run` (synchronous: nothing else runs on the connection meanwhile) once no transaction is open, and again
   * after a pause, longer each time, while another process holds the lock it needs, for up to BUSY_TIMEOUT_MS in
   * all; then its SQLITE_BUSY goes on. Every other call is answered meanwhile.
   */
  async #whenUnlocked<T>(run: () => T): Promise<T> {
    let waited = 0;
    for (let pause = 1; ; pause = Math.min(pause * 2, MAX_BUSY_PAUSE_MS)) {
      while (this.#openTransaction !== null) await this.#openTransaction;
      try {
        return run();
      } catch (error) {
        if (!isBusy(error) || waited >= BUSY_TIMEOUT_MS) throw error;
      }
      await sleep(pause);
      waited += pause;
    }
  }

  rows<R>(sql: string, values = NO_VALUES): Promise<R[]> {
    return this.#whenUnlocked(() => this.#all(sql, values) as R[]);
  }

  row<R>(sql: string, values = NO_VALUES): Promise<R | undefined> {
    return this.#whenUnlocked(() => this.#get(sql, values) as R | undefined);
  }

  changes(sql: string, values = NO_VALUES): Promise<number> {
    return this.#whenUnlocked(() => this.#run(sql, values));
  }

  /** Every statement is prepared once per SQL text already. */
  preparedRow<R>(sql: string, values: readonly unknown[]): Promise<R | undefined> {
    return this.row(sql, values);
  }

  async transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    let end = () => {};
    // IMMEDIATE: the write lock is taken at BEGIN, where waiting for it is safe, not at the first write inside,
    // where another process's lock would fail the transaction (SQLITE_BUSY_SNAPSHOT once it has read).
    await this.#whenUnlocked(() => {
      this.#run('BEGIN IMMEDIATE', NO_VALUES);
      this.#openTransaction = new Promise((resolve) => (end = resolve));
    });
    try {
      const result = await work(this.#transactionRunner);
      this.#run('COMMIT', NO_VALUES);
      return result;
    } catch (error) {
      // A failed COMMIT, or an error SQLite rolled back already, leaves nothing to roll back.
      if (this.#db.inTransaction) this.#run('ROLLBACK', NO_VALUES);
      throw error;
    } finally {
      this.#openTransaction = null;
      end();
    }
  }

  unavailableReason(error: unknown): StoreUnavailableReason | undefined {
    return sqliteUnavailableReason(error, this.database);
  }

  isUniqueViolation(error: unknown): boolean {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && CONFLICT_CODES.has(code);
  }

  /** One row per INSERT: SQLite has no round trips to save, and one statement text is one prepared statement. */
  rowsPerInsert(): number {
    return 1;
  }

  /** lower() folds ASCII letters only in SQLite: the list's repeats are found with the same fold. */
  insertMembersIfFree(records: readonly NewMemberRecord[]): Promise<InsertedMembers> {
    return this.transaction(async (tx) => {
      // A repeat of an earlier member of the list is never inserted, even when that one was skipped.
      const ids = new Set<string>();
      const usernames = new Set<string>();
      const created: boolean[] = [];
      for (const record of records) {
        const username = sqliteLower(record.username);
        const repeat = ids.has(record.id) || usernames.has(username);
        ids.add(record.id);
        usernames.add(username);
        created.push(!repeat && (await tx.changes(INSERT_MEMBER_IF_FREE_SQL, memberValues(record))) > 0);
      }
      const storedUsernames = new Map<string, string>();
      for (const [index, record] of records.entries()) {
        if (created[index] || storedUsernames.has(record.id)) continue;
        const stored = await tx.row<{ username: string }>(MEMBER_USERNAME_SQL, [record.id]);
        if (stored) storedUsernames.set(record.id, stored.username);
      }
      return { created, storedUsernames };
    });
  }

  touchSessions(touches: readonly SessionTouch[]): Promise<void> {
    return this.transaction(async (tx) => {
      for (const { id, lastSeenAt } of touches) await tx.changes(TOUCH_SESSION_SQL, [lastSeenAt, id]);
    });
  }

  migrate(): Promise<void> {
    return this.#whenUnlocked(() => migrate(this.#db));
  }

  async close(): Promise<void> {
    while (this.#openTransaction !== null) await this.#openTransaction;
    this.#db.close();
  }
}

/** The embedded store, in one SQLite file. */
export class SqliteStore extends SqlStore {
  /** `filename` may be ':memory:'. The schema is not touched until migrate(). */
  constructor(filename: string) {
    super(new SqliteDriver(filename));
  }
}
