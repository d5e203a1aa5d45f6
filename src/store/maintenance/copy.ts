import { UNFINISHED_COPY_SETTING } from '../unfinished-copy.js';
import { SETTINGS_TABLE, type Column, type SnapshotReader, type StoreDatabase, type Table, type Value } from './database.js';
import { openDatabase, type StoreLocation } from './locations.js';
import { migrationProblem, migrationState, sharedMigrations } from './migration-state.js';
import { StoreJobRefusal } from './refusal.js';
import { referencedFirst, withDependents } from './table-order.js';
import { converted, pairedKind, TableChecksum } from './values.js';

/** Rows read, converted and inserted at a time: one transaction of the target's each. */
export const COPY_BATCH_ROWS = 1000;

export interface CopyOptions {
  from: StoreLocation;
  to: StoreLocation;
  /** Leaves the member sessions out, and what goes with them (their OpenID and SAML links): members sign in again. */
  withoutSessions: boolean;
  batchSize?: number;
  /** Aborted: the copy stops after the batch in progress, and the target stays marked unfinished. */
  signal?: AbortSignal;
  onProgress?: (progress: CopyProgress) => void;
  /** What the operator should know on the way (an unfinished copy started over). */
  onNote?: (message: string) => void;
  now?: () => number;
}

export interface CopyProgress {
  table: string;
  rowsDone: number;
  rowsTotal: number;
}

export interface CopiedTable {
  name: string;
  rows: number;
  /** The rows' checksum, the same on both sides (src/store/maintenance/values.ts). */
  checksum: string;
  /** Left out (--without-sessions): the target's table is empty. */
  skipped: boolean;
}

export interface CopyReport {
  source: string;
  target: string;
  /** The target held an unfinished copy, which was emptied and started over. */
  startedOver: boolean;
  tables: CopiedTable[];
}

/** A column as both sides copy and compare it. */
interface ColumnPlan {
  columns: Column[];
  kinds: Column['kind'][];
}

/**
 * Copies everything the source store keeps into the target, an empty database (migrated first), and verifies
 * it. The source is read in one snapshot, so the copy is the store at one moment while the service goes on using
 * it. The target is marked unfinished before its first row and unmarked only once every table's count and
 * checksum matched: a target the copy did not finish is refused by the service, and a copy run again on it
 * empties it and starts over, from a new snapshot (a resumed copy would join two moments of a store in use).
 */
export async function copyStore(options: CopyOptions): Promise<CopyReport> {
  const source = await openDatabase(options.from, 'source');
  try {
    // Before the target is opened: a SQLite target is created as it opens.
    const sourceApplied = await checkSource(source);
    const target = await openDatabase(options.to, 'target');
    try {
      return await copyBetween(source, sourceApplied, target, options);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** The source's migrations, once they are found to be this version's, and the source no unfinished copy. */
async function checkSource(source: StoreDatabase): Promise<string[]> {
  const applied = await source.appliedMigrations();
  const problem = migrationProblem(source, migrationState(applied, source.knownMigrations));
  if (problem !== null) throw new StoreJobRefusal(`cannot copy from it: ${problem}`);
  if ((await source.setting(UNFINISHED_COPY_SETTING)) !== null) {
    throw new StoreJobRefusal(`${source.name} holds a store copy that did not finish: it cannot be the source`);
  }
  return applied ?? [];
}

async function copyBetween(source: StoreDatabase, sourceApplied: readonly string[], target: StoreDatabase, options: CopyOptions): Promise<CopyReport> {
  if ((await source.identity()) === (await target.identity())) throw new StoreJobRefusal(`the source and the target are the same database (${target.name})`);

  const startedOver = await prepareTarget(target);
  const shared = { source: sharedMigrations(sourceApplied), target: sharedMigrations((await target.appliedMigrations()) ?? []) };
  if (shared.source.join('\n') !== shared.target.join('\n')) {
    throw new StoreJobRefusal(`${source.name} and ${target.name} are at different migrations ('${shared.source.at(-1)}' and '${shared.target.at(-1)}')`);
  }
  const tables = referencedFirst(await target.tables());
  const sourceTables = new Map((await source.tables()).map((table) => [table.name, table]));
  const plans = new Map(tables.map((table) => [table.name, columnPlan(table, sourceTables.get(table.name))]));
  refuseOtherTables(tables, sourceTables);
  const skipped = options.withoutSessions ? withDependents(tables, ['sessions']) : new Set<string>();
  const now = options.now ?? Date.now;
  // The marker first, and kept while an unfinished copy is emptied: the target never looks whole meanwhile.
  await target.writeSetting(UNFINISHED_COPY_SETTING, `from ${source.name}, started ${new Date(now()).toISOString()}`);
  if (startedOver) {
    options.onNote?.(`${target.name} held a copy that did not finish: it is emptied and the copy starts over`);
    await target.empty([...tables].reverse(), UNFINISHED_COPY_SETTING);
  }
  try {
    const copied = await source.snapshot((reader) => copyTables(reader, target, tables, plans, skipped, options, sourceTables));
    await verify(target, tables, plans, copied);
    await target.deleteSetting(UNFINISHED_COPY_SETTING);
    return {
      source: source.name,
      target: target.name,
      startedOver,
      tables: tables.map((table) => ({ name: table.name, ...(copied.get(table.name) as Omit<CopiedTable, 'name'>) })),
    };
  } catch (error) {
    if (error instanceof StoreJobRefusal) throw error;
    throw new StoreJobRefusal(`the copy stopped: ${(error as Error).message}; ${target.name} stays marked unfinished: run store copy again to start over`, { cause: error });
  }
}

/**
 * Migrates the target once it is found empty, or holding only an unfinished copy (then true: it is emptied
 * once its tables are known). A target at a newer or another version, or holding data, is refused untouched.
 */
async function prepareTarget(target: StoreDatabase): Promise<boolean> {
  const state = migrationState(await target.appliedMigrations(), target.knownMigrations);
  if (state.state === 'newer' || state.state === 'different') throw new StoreJobRefusal(`cannot copy into it: ${migrationProblem(target, state)}`);
  const unfinished = (await target.setting(UNFINISHED_COPY_SETTING)) !== null;
  if (!unfinished) {
    const existing = await target.tables();
    const holding = await target.snapshot(async (reader) => {
      const found: string[] = [];
      for (const table of existing) {
        const rows = await reader.count(table.name);
        if (rows > 0) found.push(`${table.name}: ${rows}`);
      }
      return found;
    });
    if (holding.length > 0) throw new StoreJobRefusal(`${target.name} holds data (${holding.join(', ')}): copy into an empty database`);
  }
  await target.migrate();
  return unfinished;
}

/** The target's columns, each with the kind the two sides' types pair to; a column the source lacks is refused. */
function columnPlan(table: Table, source: Table | undefined): ColumnPlan {
  const kinds = table.columns.map((column) => {
    const sourceColumn = source?.columns.find((candidate) => candidate.name === column.name);
    return sourceColumn ? pairedKind(sourceColumn.kind, column.kind) : column.kind;
  });
  return { columns: table.columns.map((column, index) => ({ name: column.name, kind: kinds[index] ?? column.kind })), kinds };
}

/** The two stores must hold the same tables with the same columns: a row is never left behind. */
function refuseOtherTables(tables: readonly Table[], sourceTables: ReadonlyMap<string, Table>): void {
  const targetNames = new Set(tables.map((table) => table.name));
  const differences = [
    ...[...sourceTables.keys()].filter((name) => !targetNames.has(name)).map((name) => `table ${name} is only in the source`),
    ...tables.filter((table) => !sourceTables.has(table.name)).map((table) => `table ${table.name} is only in the target`),
    ...tables.flatMap((table) => {
      const source = sourceTables.get(table.name);
      if (!source) return [];
      const names = (t: Table) => t.columns.map((column) => column.name).sort().join(', ');
      return names(source) === names(table) ? [] : [`table ${table.name} has columns (${names(source)}) in the source and (${names(table)}) in the target`];
    }),
  ];
  if (differences.length > 0) throw new StoreJobRefusal(`the two stores differ: ${differences.join('; ')}`);
}

async function copyTables(
  reader: SnapshotReader,
  target: StoreDatabase,
  tables: readonly Table[],
  plans: ReadonlyMap<string, ColumnPlan>,
  skipped: ReadonlySet<string>,
  options: CopyOptions,
  sourceTables: ReadonlyMap<string, Table>,
): Promise<Map<string, Omit<CopiedTable, 'name'>>> {
  const copied = tables.filter((table) => !skipped.has(table.name));
  const totals = new Map<string, number>();
  for (const table of copied) totals.set(table.name, await reader.count(table.name));
  const rowsTotal = [...totals.values()].reduce((sum, rows) => sum + rows, 0);
  const batchSize = options.batchSize ?? COPY_BATCH_ROWS;
  const results = new Map<string, Omit<CopiedTable, 'name'>>();
  let rowsDone = 0;
  for (const table of tables) {
    const plan = plans.get(table.name) as ColumnPlan;
    const checksum = new TableChecksum(plan.kinds);
    if (!skipped.has(table.name)) {
      const source = sourceTables.get(table.name) as Table;
      const sequenceIndex = table.sequenceColumn === null ? -1 : plan.columns.findIndex((column) => column.name === table.sequenceColumn);
      let sequence = source.sequenceColumn === null ? 0n : await reader.sequenceValue(source);
      for await (const batch of reader.rows(source, plan.columns, batchSize)) {
        const rows = batch.map((raw) => raw.map((value, index) => converted(value, plan.kinds[index] ?? 'text')));
        await target.insert(table, plan.columns, rows);
        for (const row of rows) {
          checksum.add(row);
          const value = row[sequenceIndex];
          if (typeof value === 'bigint' && value > sequence) sequence = value;
        }
        rowsDone += rows.length;
        options.onProgress?.({ table: table.name, rowsDone, rowsTotal });
        if (options.signal?.aborted) throw new StoreJobRefusal('the copy was interrupted: the target stays marked unfinished; run store copy again to start over');
      }
      if (table.sequenceColumn !== null) await target.setSequence(table, sequence);
    }
    results.set(table.name, { rows: checksum.rows, checksum: checksum.digest, skipped: skipped.has(table.name) });
  }
  return results;
}

/** Reads the target back, in a snapshot of its own, and compares each table's count and checksum with the source's. */
async function verify(target: StoreDatabase, tables: readonly Table[], plans: ReadonlyMap<string, ColumnPlan>, copied: ReadonlyMap<string, Omit<CopiedTable, 'name'>>): Promise<void> {
  const marker = { column: 'name', value: UNFINISHED_COPY_SETTING };
  const mismatches = await target.snapshot(async (reader) => {
    const found: string[] = [];
    for (const table of tables) {
      const plan = plans.get(table.name) as ColumnPlan;
      const checksum = new TableChecksum(plan.kinds);
      for await (const batch of reader.rows(table, plan.columns, COPY_BATCH_ROWS, table.name === SETTINGS_TABLE ? marker : undefined)) {
        for (const raw of batch) checksum.add(raw.map((value, index): Value => converted(value, plan.kinds[index] ?? 'text')));
      }
      const expected = copied.get(table.name);
      if (expected?.rows !== checksum.rows || expected.checksum !== checksum.digest) {
        found.push(`${table.name} (source: ${expected?.rows} rows, checksum ${expected?.checksum}; target: ${checksum.rows} rows, checksum ${checksum.digest})`);
      }
    }
    return found;
  });
  if (mismatches.length > 0) {
    throw new StoreJobRefusal(`the copy does not match its source in ${mismatches.join('; ')}: the target stays marked unfinished`);
  }
}
