import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/** A statement a connection ran, with the parameters it was given. */
export interface RanStatement {
  source: string;
  parameters: unknown[];
}

const STATEMENT_METHODS = ['run', 'get', 'all', 'iterate'] as const;

/**
 * Records what every better-sqlite3 connection of this test file runs, until stop(): each prepared statement
 * (a store's own statements are private) with its parameters, and each script given to exec(). Statements
 * share one prototype per realm, so wrapping its methods sees them all.
 */
export function recordSqliteStatements(): { statements: RanStatement[]; scripts: string[]; stop(): void } {
  const statements: RanStatement[] = [];
  const scripts: string[] = [];
  const probe = new Database(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<(typeof STATEMENT_METHODS)[number], (...args: unknown[]) => unknown>;
  probe.close();
  const originals = STATEMENT_METHODS.map((name) => [name, prototype[name]] as const);
  for (const [name, original] of originals) {
    prototype[name] = function (this: Database.Statement, ...parameters: unknown[]) {
      statements.push({ source: this.source, parameters });
      return original.apply(this, parameters);
    };
  }
  const exec = Database.prototype.exec;
  Database.prototype.exec = function (this: Database.Database, source: string) {
    scripts.push(source);
    return exec.call(this, source);
  };
  return {
    statements,
    scripts,
    stop() {
      for (const [name, original] of originals) prototype[name] = original;
      Database.prototype.exec = exec;
    },
  };
}

/** The details of the statement's EXPLAIN QUERY PLAN on db, one per line of the plan. */
export function queryPlan(db: Database.Database, statement: RanStatement): string[] {
  return db
    .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${statement.source}`)
    .all(...statement.parameters)
    .map((row) => row.detail);
}

/**
 * The tables a plan reads whole: SQLite says `SCAN <table>` (with or without an index: a covering index read
 * end to end is a scan too), where reading by key is `SEARCH`.
 */
export function scannedTables(plan: readonly string[]): string[] {
  return plan.flatMap((detail) => /^SCAN (?!CONSTANT ROW)(\w+)/.exec(detail)?.[1] ?? []);
}

/**
 * What `run` makes a fresh store on `file` run, each statement with its plan: the store is migrated and given
 * `setUp` first (unrecorded), and closed before the plans are read on a connection of their own.
 */
export async function plansOf(
  file: string,
  run: (store: SqliteStore) => Promise<unknown>,
  setUp: (store: SqliteStore) => Promise<unknown> = async () => undefined,
): Promise<{ statements: RanStatement[]; plans: string[][] }> {
  const store = new SqliteStore(file);
  await store.migrate();
  await setUp(store);
  const recorder = recordSqliteStatements();
  try {
    await run(store);
  } finally {
    recorder.stop();
    await store.close();
  }
  const db = new Database(file, { readonly: true });
  try {
    return { statements: recorder.statements, plans: recorder.statements.map((statement) => queryPlan(db, statement)) };
  } finally {
    db.close();
  }
}
