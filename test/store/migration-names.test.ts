import { migrationState, sharedMigrations } from '../../src/store/maintenance/migration-state.js';
import { MIGRATIONS as POSTGRES } from '../../src/store/postgres/migrations.js';
import { MIGRATIONS as SQLITE } from '../../src/store/sqlite/migrations.js';

const names = (migrations: ReadonlyArray<{ name: string }>) => migrations.map((migration) => migration.name);

test("the two dialects' migrations have the same names, one for one, from the deployment settings on: store copy compares stores by them", () => {
  const shared = sharedMigrations(names(SQLITE));
  expect(shared[0]).toBe('deployment settings (the server key fingerprint)');
  expect(sharedMigrations(names(POSTGRES))).toEqual(shared);
});

test("a store's migrations against this version's, by name", () => {
  const known = ['a', 'b', 'c'];
  expect(migrationState(null, known)).toEqual({ state: 'never-migrated' });
  expect(migrationState([], known)).toEqual({ state: 'never-migrated' });
  expect(migrationState(['a', 'b', 'c'], known)).toEqual({ state: 'current', latest: 'c' });
  expect(migrationState(['a'], known)).toEqual({ state: 'older', missing: ['b', 'c'] });
  expect(migrationState(['a', 'b', 'c', 'd'], known)).toEqual({ state: 'newer', unknown: ['d'] });
  expect(migrationState(['a', 'c'], known)).toEqual({ state: 'different', applied: ['a', 'c'] });
});
