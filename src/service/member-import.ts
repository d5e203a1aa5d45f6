import { availableParallelism } from 'node:os';
import { FirstSeen } from './first-seen.js';
import type { MemberService } from './members.js';
import { checkFile, RowChecker, type ImportCheckProgress, type ImportOptions, type ImportReportRow } from './member-import/check.js';
import { comparedBatch, type RowToCompare } from './member-import/compare.js';
import { disableMissing, type MissingMember } from './member-import/missing.js';
import { csvRows, type ImportSource } from './member-import/read.js';
import { Slots, withPasswordHashed, writeBatch, type BatchRow } from './member-import/write.js';

export { IMPORT_HEADER, type ImportCheckProgress, type ImportOptions, type ImportReportRow } from './member-import/check.js';
export type { MissingMember } from './member-import/missing.js';
export type { ImportSource } from './member-import/read.js';

/** Where an import stands; a batch's rows count once the batch is committed. */
export interface ImportProgress {
  /** The file's data rows, counted by the check that reads the file first. */
  rowsTotal: number;
  /** Data rows whose outcome is known: imported + existing + refused, and the summary's updated + unchanged. */
  rowsDone: number;
  imported: number;
  existing: number;
  refused: number;
}

export interface ImportSummary extends ImportProgress {
  /** Data rows whose stored member was changed (with the update option). */
  updated: number;
  /** Data rows whose stored member was as the row has it (with the update option). */
  unchanged: number;
  /** Members disabled because the file does not list them (with the disableMissing option). */
  disabled: number;
  /**
   * With the disableMissing option, why no member was disabled: a row was refused, or the import was
   * interrupted. Null when the members missing were disabled, and without the option.
   */
  notDisabledBecause: 'refused' | 'interrupted' | null;
  /** The signal stopped the import before the end of the file: run it again to import the rest. */
  interrupted: boolean;
}

export interface FileImportOptions extends ImportOptions {
  /**
   * A stored member whose row differs is updated, in the columns the file has (`updated`, or `unchanged`),
   * rather than reported `existing` and left as it is.
   */
  update?: boolean;
  /**
   * Once the whole file is imported, disables the enabled members it does not list; not when a row was refused
   * or the import was interrupted (notDisabledBecause says which).
   */
  disableMissing?: boolean;
  /** Writes nothing: the report and the summary tell what the import would do. */
  dryRun?: boolean;
  /** Rows written per transaction; 1,000 unless given. */
  batchSize?: number;
  /** Clear passwords hashed at once (argon2id, 19 MiB each); the CPUs, at most 4, unless given. */
  hashConcurrency?: number;
  /** Stops the import after the rows read so far are written; the summary says it was interrupted. */
  signal?: AbortSignal;
  /** Hears of every data row, in file order, once its batch is committed; the import waits for it. */
  onRow?: (row: ImportReportRow) => void | Promise<void>;
  /** Called during the check, every 1,000 rows, and at its end. */
  onCheck?: (progress: ImportCheckProgress) => void;
  /** Called after each batch. */
  onProgress?: (progress: ImportProgress) => void;
  /** Hears of each member disabled by disableMissing (to be disabled, in a dry run), after every row. */
  onDisabled?: (member: MissingMember) => void | Promise<void>;
}

/** Rows written in one transaction. */
const DEFAULT_BATCH_SIZE = 1000;
/** A batch is also written once this old, so that rows with clear passwords (slow to hash) show progress. */
const MAX_BATCH_MS = 1000;

function defaultHashConcurrency(): number {
  return Math.min(4, availableParallelism());
}

/**
 * Imports members exported from the old membership store, one CSV row each, streamed: the file is read twice,
 * first whole to check its syntax and header (a file that cannot be read as a whole throws
 * MEMBER_IMPORT_INVALID before anything is imported), then row by row (read.ts), each row checked (check.ts),
 * its clear password hashed and each batch of rows written in one transaction (write.ts). Memory holds a
 * batch, and the ids and usernames seen (RowChecker), never the file. Members already stored with the row's id
 * and username are `existing`, so that a run interrupted anywhere, even killed, is finished by running it
 * again. Batches are timed by the services' clock (MemberService.clock).
 *
 * With the update or dryRun option, each row is first compared with its stored member (compare.ts; a batch's
 * members are read at once), and a changed one updated (changes.ts): a run resumed after an interruption compares every row again, so it finds
 * the rows updated before unchanged and updates the others. disableMissing comes after the last row
 * (missing.ts), and only after a whole file without a refused row.
 */
export async function importMemberFile(source: ImportSource, members: MemberService, options: FileImportOptions = {}): Promise<ImportSummary> {
  const startedAt = members.clock();
  const file = await checkFile(source, options.onCheck);
  const checker = new RowChecker(file, members, options);
  const summary: ImportSummary = {
    rowsTotal: file.rows,
    rowsDone: 0,
    imported: 0,
    existing: 0,
    updated: 0,
    unchanged: 0,
    refused: 0,
    disabled: 0,
    notDisabledBecause: null,
    interrupted: false,
  };
  const listed = options.disableMissing ? new FirstSeen() : undefined;
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
  const slots = new Slots(options.hashConcurrency ?? defaultHashConcurrency());
  const compare = { ...options, update: options.update === true, dryRun: options.dryRun === true, hashing: slots };
  let batch: Array<Promise<BatchRow | RowToCompare>> = [];
  let batchStartedAt = members.clock();

  const flush = async (): Promise<void> => {
    const written = batch;
    batch = [];
    for (const row of await writeBatch(await comparedBatch(written, file, members, compare), members)) {
      summary.rowsDone += 1;
      summary[row.status] += 1;
      if (row.status !== 'refused' && row.id !== null) listed?.firstLine(row.id, row.line);
      await options.onRow?.(row);
    }
    batchStartedAt = members.clock();
    options.onProgress?.({ ...summary });
  };

  let isHeader = true;
  for await (const row of csvRows(source())) {
    if (isHeader) {
      isHeader = false;
      continue;
    }
    if (options.signal?.aborted) {
      summary.interrupted = true;
      break;
    }
    const ordered = checker.inOrder(row);
    if ('settled' in ordered) batch.push(Promise.resolve(ordered));
    else {
      let ready: Promise<BatchRow | RowToCompare>;
      if (compare.update || compare.dryRun) {
        // Compared once the batch is complete, with the batch's stored members read at once; no hash waits here.
        ready = checker.member(row, ordered.cells).then((checked) => ('settled' in checked ? checked : { toCompare: checked }));
      } else {
        await slots.acquire();
        ready = checker
          .member(row, ordered.cells)
          .then((checked) => ('settled' in checked ? checked : withPasswordHashed(checked, members, options)))
          .finally(() => slots.release());
      }
      // Awaited when the batch is written; until then, a rejection is not an unhandled one.
      ready.catch(() => {});
      batch.push(ready);
    }
    if (batch.length >= batchSize || members.clock() - batchStartedAt >= MAX_BATCH_MS) await flush();
  }
  if (batch.length > 0) await flush();
  if (listed) {
    if (summary.interrupted) summary.notDisabledBecause = 'interrupted';
    else if (summary.refused > 0) summary.notDisabledBecause = 'refused';
    else summary.disabled = await disableMissing(listed, members, startedAt, { dryRun: compare.dryRun, onDisabled: options.onDisabled });
  }
  return summary;
}
