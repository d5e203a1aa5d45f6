import type { ImportReportRow, ImportSummary, MissingMember } from '../../../service/member-import.js';
import type { CliIo } from '../../context.js';
import { StreamedJsonObject } from '../../output.js';
import { count, type RowProgressDisplay } from '../../progress.js';

/** The options of `members import` that change what it reports. */
export interface ImportMode {
  update: boolean;
  disableMissing: boolean;
  dryRun: boolean;
}

/**
 * The counts: `N imported, K already there, J refused`, with `U updated` and `C unchanged` in place of the rows
 * there already under --update (which counts them only when the store had a row before it was compared), and
 * `D disabled` under --disable-missing. A dry run says what it would do: `N to import, U to update, D to disable`.
 */
function countsText(summary: ImportSummary, mode: ImportMode): string {
  const verb = (done: string, planned: string) => (mode.dryRun ? planned : done);
  const counts = [`${count(summary.imported)} ${verb('imported', 'to import')}`];
  if (mode.update) counts.push(`${count(summary.updated)} ${verb('updated', 'to update')}`);
  if (mode.disableMissing) counts.push(`${count(summary.disabled)} ${verb('disabled', 'to disable')}`);
  if (mode.update) counts.push(`${count(summary.unchanged)} unchanged`);
  if (!mode.update || summary.existing > 0) counts.push(`${count(summary.existing)} already there`);
  counts.push(`${count(summary.refused)} refused`);
  return counts.join(', ');
}

/** Why --disable-missing disabled nobody, as a sentence; empty when it ran. */
function notDisabledText(summary: ImportSummary, mode: ImportMode): string {
  const nobody = mode.dryRun ? 'No member would be disabled' : 'No member was disabled';
  if (summary.notDisabledBecause === 'interrupted') return ` ${nobody}: --disable-missing waits for the end of the file.`;
  if (summary.notDisabledBecause !== 'refused') return '';
  const rows = summary.refused === 1 ? 'a row was refused' : `${count(summary.refused)} rows were refused`;
  return ` ${nobody}: ${rows}, and --disable-missing disables members only after a file without a refused row. Fix the file and run the command again.`;
}

/** What to do after an interruption. */
function againText(summary: ImportSummary, mode: ImportMode): string {
  if (mode.dryRun) return 'Run the same command again to go through the whole file.';
  const left = count(summary.rowsTotal - summary.rowsDone);
  const reported = mode.update ? 'the rows imported or updated will be reported as unchanged' : 'the rows imported will be reported as already there';
  return `Run the same command again to import the other ${left}: ${reported}.`;
}

/** The summary line: `N imported, K already there, J refused, in S s.`, and what the mode adds to it. */
function importSummaryText(summary: ImportSummary, seconds: number, mode: ImportMode): string {
  const counts = `${countsText(summary, mode)}, in ${seconds.toFixed(1)} s.`;
  const notDisabled = notDisabledText(summary, mode);
  if (!summary.interrupted) return `${mode.dryRun ? 'Dry run, nothing written: ' : ''}${counts}${notDisabled}`;
  const dryRun = mode.dryRun ? ' (dry run, nothing written)' : '';
  return `Interrupted after ${count(summary.rowsDone)} of ${count(summary.rowsTotal)} rows${dryRun}: ${counts} ${againText(summary, mode)}${notDisabled}`;
}

/** The summary with --json: the counts of the options given. */
function summaryJson(summary: ImportSummary, seconds: number, mode: ImportMode): Record<string, unknown> {
  const { rowsTotal, rowsDone, imported, existing, updated, unchanged, refused, disabled, notDisabledBecause, interrupted } = summary;
  return {
    rowsTotal,
    rowsDone,
    imported,
    existing,
    ...(mode.update ? { updated, unchanged } : {}),
    refused,
    ...(mode.disableMissing ? { disabled, notDisabledBecause } : {}),
    interrupted,
    ...(mode.dryRun ? { dryRun: true } : {}),
    seconds: Number(seconds.toFixed(1)),
  };
}

/**
 * The report of `members import`, written as the rows are settled, never held whole: the refused rows (line,
 * id, reason), the members disabled by --disable-missing, and the summary. With --json, one JSON document on
 * stdout, { "refused": [...], "disabled": [...], "summary": {...} }, its refused rows written as they come
 * ("disabled" with --disable-missing only), and the summary line on stderr.
 */
export class ImportReport {
  readonly #json: StreamedJsonObject | undefined;
  readonly #disabled: MissingMember[] = [];

  constructor(
    private readonly io: CliIo,
    asJson: boolean,
    private readonly display: RowProgressDisplay,
    private readonly mode: ImportMode,
  ) {
    this.#json = asJson ? new StreamedJsonObject(io, 'refused') : undefined;
  }

  row(row: ImportReportRow): void {
    if (row.status !== 'refused') return;
    this.display.clear();
    if (this.#json) return this.#json.item({ line: row.line, id: row.id, reason: row.reason ?? null });
    this.io.out(`refused line ${row.line} (${row.id === null ? 'no id' : `id ${row.id}`}): ${row.reason ?? ''}\n`);
  }

  /** A member --disable-missing disabled; with --json, held for the end (they come after the last row). */
  disabled(member: MissingMember): void {
    this.display.clear();
    if (this.#json) return void this.#disabled.push(member);
    this.io.out(`${this.mode.dryRun ? 'would disable' : 'disabled'} member ${member.id} (${member.username}): not in the file\n`);
  }

  end(summary: ImportSummary, seconds: number): void {
    this.display.clear();
    const text = importSummaryText(summary, seconds, this.mode);
    if (!this.#json) return this.io.out(`${text}\n`);
    this.#json.end({ ...(this.mode.disableMissing ? { disabled: this.#disabled } : {}), summary: summaryJson(summary, seconds, this.mode) });
    this.io.err(`${text}\n`);
  }
}
