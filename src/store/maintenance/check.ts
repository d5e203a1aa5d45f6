import { UNFINISHED_COPY_SETTING } from '../unfinished-copy.js';
import type { StoreDatabase } from './database.js';
import { openDatabase, type StoreLocation } from './locations.js';
import { migrationProblem, migrationState } from './migration-state.js';

export interface StoreCheck {
  name: 'migrations' | 'unfinished copy' | 'integrity';
  ok: boolean;
  detail: string;
}

export interface CheckReport {
  store: string;
  dialect: StoreDatabase['dialect'];
  ok: boolean;
  checks: StoreCheck[];
  /** Each table's rows, read in one snapshot. */
  tables: Array<{ name: string; rows: number }>;
}

/**
 * What `store check` says of a store, opened read-only: its migrations against this version's, the marker of a
 * copy that did not finish, and the database's own integrity checks (SQLite: every page, record, index and
 * foreign key; PostgreSQL: its catalogue's invalid indexes and unvalidated constraints).
 */
export async function checkStore(location: StoreLocation): Promise<CheckReport> {
  const database = await openDatabase(location, 'source');
  try {
    return await checkDatabase(database);
  } finally {
    await database.close();
  }
}

export async function checkDatabase(database: StoreDatabase): Promise<CheckReport> {
  const state = migrationState(await database.appliedMigrations(), database.knownMigrations);
  const problem = migrationProblem(database, state);
  const checks: StoreCheck[] = [
    { name: 'migrations', ok: problem === null, detail: problem ?? `up to date: ${database.knownMigrations.length} migrations, the latest '${state.state === 'current' ? state.latest : ''}'` },
  ];
  let tables: CheckReport['tables'] = [];
  if (state.state !== 'never-migrated') {
    const marker = await database.setting(UNFINISHED_COPY_SETTING);
    checks.push({
      name: 'unfinished copy',
      ok: marker === null,
      detail: marker === null ? 'none' : `a store copy into it did not finish (${marker}): run store copy again, or keep using its source`,
    });
    const problems = await database.integrity();
    checks.push({ name: 'integrity', ok: problems.length === 0, detail: problems.length === 0 ? 'nothing wrong found' : problems.join('; ') });
    const all = await database.tables();
    tables = await database.snapshot(async (reader) => {
      const counted: CheckReport['tables'] = [];
      for (const table of all) counted.push({ name: table.name, rows: await reader.count(table.name) });
      return counted;
    });
  }
  return { store: database.name, dialect: database.dialect, ok: checks.every((check) => check.ok), checks, tables };
}
