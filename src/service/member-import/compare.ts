import type { MemberRow } from '../../store/store.js';
import { ServiceError } from '../errors.js';
import type { MemberService } from '../members.js';
import { updateOf } from './changes.js';
import { refusal, RowRefused, type CheckedFile, type CheckedRow, type ImportOptions, type SettledRow } from './check.js';
import { newMember, type BatchRow, type Slots } from './write.js';

/** How rows are compared with the stored members: the import's update and dry-run options. */
export interface CompareOptions extends ImportOptions {
  /** A stored member whose row differs is updated (`updated`, or `unchanged`) rather than left (`existing`). */
  update: boolean;
  /** Nothing is written: each row is settled as what a real run would make of it. */
  dryRun: boolean;
  /** Where a new member's clear password waits for its argon2id hash: a few at once, each of 19 MiB. */
  hashing: Slots;
}

/** A checked row to compare with its stored member, once its batch is complete (comparedBatch). */
export interface RowToCompare {
  toCompare: CheckedRow;
}

function settled(row: CheckedRow, id: string, status: 'imported' | 'existing' | 'unchanged'): SettledRow {
  return { settled: { line: row.line, id, status } };
}

/**
 * A new member's row in a dry run: imported, unless a stored member has its username. A stored username that
 * differs only in letter case is found by the real run alone (MemberService finds usernames exactly).
 */
async function newInDryRun(row: CheckedRow, members: MemberService, usernameLookedUp: boolean): Promise<SettledRow> {
  if (!usernameLookedUp && (await members.findByUsername(row.member.username))) {
    return refusal(row.line, row.cellId, new ServiceError('MEMBER_EXISTS', row.member.username));
  }
  return settled(row, row.member.id, 'imported');
}

/**
 * The row compared with the member stored under its id (under its exact username for a row without id, whose
 * id MEMBER_ID_FORMAT=guid issues anew each run, as writeBatch takes it), which `storedMember` reads: a new
 * member to write, an update to write, or settled. The password cells of a stored member's row are not used
 * (updateOf tells why), so no clear password is hashed for it.
 */
async function comparedWithStored(
  row: CheckedRow,
  storedMember: () => Promise<MemberRow | null>,
  file: CheckedFile,
  members: MemberService,
  options: CompareOptions,
): Promise<BatchRow> {
  const { line, cellId, member } = row;
  try {
    const stored = await storedMember();
    if (!stored) {
      if (options.dryRun) return await newInDryRun(row, members, cellId === null);
      return row.clearPassword === null ? await newMember(row, options) : await options.hashing.run(() => newMember(row, options));
    }
    if (stored.username !== member.username) {
      const reason = options.update
        ? new RowRefused(`member ${stored.id} is stored with another username, and an import does not change usernames`)
        : new ServiceError('MEMBER_EXISTS', member.id);
      return refusal(line, cellId, reason);
    }
    if (!options.update) return settled(row, stored.id, 'existing');
    const update = updateOf(file, row, stored);
    if (!update) return settled(row, stored.id, 'unchanged');
    return options.dryRun ? { settled: { line, id: stored.id, status: 'updated', fields: update.fields } } : { update };
  } catch (error) {
    return refusal(line, cellId, error);
  }
}

/**
 * A batch's rows, in their order, with each row to compare compared with its stored member: the members stored
 * under the rows' ids are read in one call (MemberService.findMany), not one call per row, which on PostgreSQL
 * would be a round trip each. A row without id is looked up by its username on its own.
 */
export async function comparedBatch(
  batch: ReadonlyArray<Promise<BatchRow | RowToCompare>>,
  file: CheckedFile,
  members: MemberService,
  options: CompareOptions,
): Promise<Array<Promise<BatchRow>>> {
  const rows = await Promise.all(batch);
  const ids = rows.flatMap((row) => ('toCompare' in row && row.toCompare.cellId !== null ? [row.toCompare.member.id] : []));
  const stored = new Map((ids.length === 0 ? [] : await members.findMany(ids)).map((member) => [member.id, member]));
  return rows.map(async (row) => {
    if (!('toCompare' in row)) return row;
    const { cellId, member } = row.toCompare;
    const storedMember = cellId === null ? () => members.findByUsername(member.username) : async () => stored.get(member.id) ?? null;
    return comparedWithStored(row.toCompare, storedMember, file, members, options);
  });
}
