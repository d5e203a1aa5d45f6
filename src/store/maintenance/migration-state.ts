import type { StoreDatabase } from './database.js';

/**
 * The first migration both dialects name alike: SQLite's numbers and PostgreSQL's differ (PostgreSQL's first
 * migration is SQLite's first two), and from this one on their names match, one for one.
 */
const FIRST_SHARED_MIGRATION = 'deployment settings (the server key fingerprint)';

/** Where a database's migrations stand against this build's, by their names. */
export type MigrationState =
  | { state: 'current'; latest: string }
  | { state: 'never-migrated' }
  | { state: 'older'; missing: string[] }
  | { state: 'newer'; unknown: string[] }
  | { state: 'different'; applied: string[] };

export function migrationState(applied: readonly string[] | null, known: readonly string[]): MigrationState {
  if (applied === null || applied.length === 0) return { state: 'never-migrated' };
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) return { state: 'newer', unknown };
  if (applied.some((name, index) => known[index] !== name)) return { state: 'different', applied: [...applied] };
  if (applied.length < known.length) return { state: 'older', missing: known.slice(applied.length) };
  return { state: 'current', latest: applied[applied.length - 1] ?? '' };
}

/** What the state says, in a sentence about `database`, and what to do; null when it is current. */
export function migrationProblem(database: StoreDatabase, state: MigrationState): string | null {
  switch (state.state) {
    case 'current':
      return null;
    case 'never-migrated':
      return `${database.name} holds no store: it was never migrated`;
    case 'older':
      return `${database.name} is behind this version: it lacks the migrations ${state.missing.map((name) => `'${name}'`).join(', ')}; start this version's service (or any command) on it once, which migrates it`;
    case 'newer':
      return `${database.name} was migrated by a newer version (migrations ${state.unknown.map((name) => `'${name}'`).join(', ')} are unknown here): use that version`;
    case 'different':
      return `${database.name} has migrations this version did not apply in this order: ${state.applied.map((name) => `'${name}'`).join(', ')}`;
  }
}

/** The migrations from the first both dialects share on: two stores at the same point list the same names. */
export function sharedMigrations(applied: readonly string[]): string[] {
  const first = applied.indexOf(FIRST_SHARED_MIGRATION);
  return first < 0 ? [...applied] : applied.slice(first);
}
