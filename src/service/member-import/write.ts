import type { NewMember, NewMemberOutcome } from '../../store/store.js';
import { ServiceError } from '../errors.js';
import { IMPORT_ACTOR } from '../events.js';
import type { MemberService } from '../members.js';
import { importedPasswordHash } from '../passwords.js';
import type { RowUpdate } from './changes.js';
import { refusal, type CheckedRow, type ImportOptions, type ImportReportRow, type SettledRow } from './check.js';

/** A checked row with its password hashed: a new member, which a batch writes. */
export type WritableRow = Omit<CheckedRow, 'clearPassword'>;

/** A stored member that its row changes, which a batch writes. */
export interface UpdatingRow {
  update: RowUpdate;
}

/** What a batch is given per row, once the row is checked and, with the update option, compared. */
export type BatchRow = WritableRow | UpdatingRow | SettledRow;

/** A member stored under the row's id: the row is there already, or its id is another member's. */
function settledByStored(line: number, cellId: string | null, member: NewMember, stored: { id: string; username: string }): SettledRow {
  if (stored.username === member.username) return { settled: { line, id: stored.id, status: 'existing' } };
  return refusal(line, cellId, new ServiceError('MEMBER_EXISTS', member.id));
}

/** The row as a new member is written: its clear password, if any, hashed (argon2id). */
export async function newMember(row: CheckedRow, options: ImportOptions): Promise<WritableRow | SettledRow> {
  const { clearPassword, ...writable } = row;
  if (clearPassword === null) return writable;
  try {
    return { ...writable, member: { ...row.member, passwordHash: await importedPasswordHash('clear', clearPassword, '', options) } };
  } catch (error) {
    return refusal(row.line, row.cellId, error);
  }
}

/** Hashes a clear password (argon2id), unless a member with the row's id is stored already. */
export async function withPasswordHashed(row: CheckedRow, members: MemberService, options: ImportOptions): Promise<WritableRow | SettledRow> {
  const { line, cellId, member } = row;
  if (row.clearPassword === null || cellId === null) return newMember(row, options);
  try {
    // An argon2id hash takes tens of milliseconds: none is spent on a row a previous run imported.
    const stored = await members.find(member.id);
    if (stored) return settledByStored(line, cellId, member, stored);
  } catch (error) {
    return refusal(line, cellId, error);
  }
  return newMember(row, options);
}

/**
 * Writes a stored member's changes as `members update` and `members enable`/`disable` do (MemberService.update
 * and setEnabled, which also forget the cached sessions, so that sign-in and verification see them at once).
 */
async function written(update: RowUpdate, members: MemberService): Promise<ImportReportRow> {
  const { line, id, changes, enabled, fields } = update;
  try {
    if (Object.keys(changes).length > 0) await members.update(id, changes, { actor: IMPORT_ACTOR });
    if (enabled !== undefined) await members.setEnabled(id, enabled, IMPORT_ACTOR);
    return { line, id, status: 'updated', fields };
  } catch (error) {
    return refusal(line, id, error).settled;
  }
}

/** What became of a new member's row, from the outcome of its insert (Store.createMembers). */
async function added(row: WritableRow, outcome: NewMemberOutcome | undefined, members: MemberService): Promise<ImportReportRow> {
  const { line, cellId, member } = row;
  if (outcome === 'created') return { line, id: member.id, status: 'imported' };
  if (outcome === 'existing') return { line, id: member.id, status: 'existing' };
  if (outcome === 'idTaken') return refusal(line, cellId, new ServiceError('MEMBER_EXISTS', member.id)).settled;
  // An issued id (the row has none) is new each run: a member with exactly this username is this row, imported before.
  const stored = cellId === null ? await members.findByUsername(member.username) : null;
  return stored ? { line, id: stored.id, status: 'existing' } : refusal(line, cellId, new ServiceError('MEMBER_EXISTS', member.username)).settled;
}

/**
 * Writes a batch's new members in one transaction, then its updates, each member's in writes of its own, and
 * tells what became of each row, in file order. An update is whole values, not a difference, so that writing
 * it again (a run resumed after one that died) changes nothing.
 */
export async function writeBatch(batch: ReadonlyArray<Promise<BatchRow>>, members: MemberService): Promise<ImportReportRow[]> {
  const rows = await Promise.all(batch);
  const pending = rows.flatMap((row) => ('member' in row ? [row] : []));
  const outcomes = pending.length === 0 ? [] : await members.addMany(pending.map((row) => row.member), IMPORT_ACTOR);
  const outcomeOf = new Map(pending.map((row, index) => [row, outcomes[index]]));
  return Promise.all(
    rows.map((row) => {
      if ('settled' in row) return row.settled;
      if ('update' in row) return written(row.update, members);
      return added(row, outcomeOf.get(row), members);
    }),
  );
}

/** At most `size` tasks at once; acquire() waits for a free slot, which holds the reading of the file back. */
export class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  async acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free += 1;
  }

  /** The task, once a slot is free; the slot is freed when it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await task();
    } finally {
      this.release();
    }
  }
}
