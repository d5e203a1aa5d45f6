import { StoreConflictError } from '../store.js';
import { StoreUnavailableError, type StoreUnavailableReason } from '../unavailable.js';
import type { FlagCodec, NewMemberRecord } from './records.js';

/**
 * Runs the shared store's statements. Each statement is written once, for every dialect, with PostgreSQL's
 * numbered placeholders ($1, $2…, a number used as often as needed); `values` are given in that numbering, and
 * a driver translates the placeholders as its database needs.
 */
export interface SqlRunner {
  /** Every row the statement returns. */
  rows<R>(sql: string, values?: readonly unknown[]): Promise<R[]>;
  /** The first row the statement returns, if any. */
  row<R>(sql: string, values?: readonly unknown[]): Promise<R | undefined>;
  /** How many rows the statement inserted, changed or deleted. */
  changes(sql: string, values?: readonly unknown[]): Promise<number>;
}

/** What createMembers' inserts did; src/store/sql/records.ts (newMemberOutcomes) tells the outcomes from it. */
export interface InsertedMembers {
  /** Per member of the list, in its order: whether it was inserted. */
  created: boolean[];
  /** The username stored under each id of the list that was not inserted, read after the inserts. */
  storedUsernames: Map<string, string>;
}

export interface SessionTouch {
  id: string;
  lastSeenAt: number;
}

/**
 * A database as the shared store (src/store/sql/sql-store.ts) uses it: a connection or a pool to run statements
 * on, and what the dialects do differently. Everything else, the SQL included, is the shared store's.
 */
export interface SqlDriver extends SqlRunner, UnavailableErrors {
  /** How flag columns are stored. */
  readonly flags: FlagCodec;
  /** What the dialect writes its own way: in searchMembers' statements, and how a session is found. */
  readonly dialect: SqlDialect;
  /**
   * Runs work in one transaction: committed when it resolves, rolled back when it rejects. Only the statements
   * work runs on `tx` are in the transaction: no other statement of this driver runs inside it. Work runs every
   * statement on `tx`: one on the driver itself may wait for the transaction to end (SQLite's does).
   */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /**
   * The first row of a statement whose text is one of a few fixed ones, run on most calls (a partner call's one
   * read): kept prepared on each connection where the dialect would otherwise send and plan the text every time
   * (PostgreSQL: a named statement). Never for SQL built from input, whose texts have no bound.
   */
  preparedRow<R>(sql: string, values: readonly unknown[]): Promise<R | undefined>;
  /** Whether the error is a unique constraint's (or primary key's) violation. */
  isUniqueViolation(error: unknown): boolean;
  /** How many rows one INSERT … VALUES of this many columns carries at most. */
  rowsPerInsert(columns: number): number;
  /**
   * createMembers' inserts, in one transaction: a member is inserted unless its id, or its username ignoring case
   * as the database's lower() folds it, is stored or belongs to an earlier member of the list.
   */
  insertMembersIfFree(records: readonly NewMemberRecord[]): Promise<InsertedMembers>;
  /** touchSessions of a list that is not empty. */
  touchSessions(touches: readonly SessionTouch[]): Promise<void>;
  /** Applies the dialect's pending migrations. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The expressions the dialects write differently: searchMembers' (src/store/sql/member-filter.ts), and the key a
 * session's row is found by. `column`, `key` and `alias` are the store's own names, never a client's text; a JSON
 * column holds an object's text.
 */
export interface SqlDialect {
  /** The text at the object's path of keys; NULL when absent. */
  jsonText(column: string, path: readonly string[]): string;
  /** The flag of the object's key, as the driver's flags compare; NULL when absent. */
  jsonFlag(column: string, key: string): string;
  /** A FROM item: the elements of the array at the object's path of keys (none when absent), each named `alias`. */
  jsonElements(column: string, path: readonly string[], alias: string): string;
  /** The text of the key of an element that jsonElements named `alias`. */
  elementText(alias: string, key: string): string;
  /** The flag of the key of an element, as the driver's flags compare. */
  elementFlag(alias: string, key: string): string;
  /** Where `needle` first occurs in `text`, counted from 1; 0 when nowhere. */
  position(text: string, needle: string): string;
  /** The text expression, compared and sorted by code point whatever the database's collation. */
  byCodePoint(expression: string): string;
  /**
   * The column a row of the sessions table is found by most cheaply from one of its unique indexes: SQLite's
   * rowid, which each index entry holds (so that the index alone answers which row), PostgreSQL's primary key.
   */
  readonly sessionKey: string;
}

/** How a driver tells the errors that mean its database cannot be used as it is (src/store/unavailable.ts). */
export interface UnavailableErrors {
  /** The database, named for the operator without credentials: the SQLite file's path, PostgreSQL's host:port/name. */
  readonly database: string;
  /** Why the driver's error means its database cannot be used (a full disk, read-only, locked…); undefined for any other error. */
  unavailableReason(error: unknown): StoreUnavailableReason | undefined;
}

/** The error as the store throws it: StoreUnavailableError in place of a driver's error that means so, any other as it is. */
export function storeError(driver: UnavailableErrors, error: unknown): unknown {
  const reason = driver.unavailableReason(error);
  if (reason === undefined) return error;
  // An error without a code (pg's "Connection terminated unexpectedly") is named by its message.
  const { code, message } = error as { code?: unknown; message?: unknown };
  return new StoreUnavailableError(reason, driver.database, typeof code === 'string' ? code : typeof message === 'string' ? message : 'unknown', { cause: error });
}

/** The write's result, or StoreConflictError with the message when it violated a unique constraint. */
export async function rethrowConflict<T>(driver: SqlDriver, write: Promise<T>, message: () => string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (driver.isUniqueViolation(error)) throw new StoreConflictError(message());
    throw error;
  }
}
