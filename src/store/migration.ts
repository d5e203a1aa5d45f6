/** A schema change: append-only per store, a released one is never edited. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A database migrated by a newer release is refused rather than used with a schema this code does not know. */
export function refuseNewerSchema(applied: Set<number>, migrations: readonly Migration[]): void {
  const newestApplied = Math.max(0, ...applied);
  const newestKnown = Math.max(0, ...migrations.map((m) => m.version));
  if (newestApplied > newestKnown) {
    throw new Error(
      `database schema version ${newestApplied} is newer than this build supports (${newestKnown}); upgrade authentication-asmx`,
    );
  }
}

/** Whether every migration is applied already; a database migrated by a newer release is refused first. */
export function allApplied(applied: Set<number>, migrations: readonly Migration[]): boolean {
  refuseNewerSchema(applied, migrations);
  return migrations.every((migration) => applied.has(migration.version));
}
