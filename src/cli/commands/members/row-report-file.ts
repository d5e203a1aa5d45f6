import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import type { ImportReportRow, MissingMember } from '../../../service/member-import.js';

/** A CSV field, quoted when it has a quote, a comma or a line end. */
function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The report's fourth column: why a row was refused, or the columns an update changed, separated by spaces. */
function detailOf(row: ImportReportRow): string | null {
  return row.reason ?? row.fields?.join(' ') ?? null;
}

/**
 * `members import --report FILE`: every row's outcome as CSV (line,id,status,reason), written as the rows are
 * settled, the import waiting whenever the file falls behind, then a line per member --disable-missing
 * disabled (no line number; status `disabled`). It gives the ids as stored, which the terminal report does not:
 * GUIDs lower-cased, or the one issued for an empty cell.
 */
export class RowReportFile {
  readonly #out: WriteStream;
  #failed: Error | undefined;

  private constructor(out: WriteStream) {
    this.#out = out;
    this.#out.on('error', (error) => (this.#failed = error));
    this.#out.write('line,id,status,reason\n');
  }

  /** Opened before the import starts, so that a path it cannot write fails before anything is imported. */
  static async create(path: string): Promise<RowReportFile> {
    const handle = await open(path, 'w', 0o600);
    return new RowReportFile(handle.createWriteStream());
  }

  async row(row: ImportReportRow): Promise<void> {
    await this.#write([row.line, row.id, row.status === 'existing' ? 'already there' : row.status, detailOf(row)]);
  }

  async disabled(member: MissingMember): Promise<void> {
    await this.#write([null, member.id, 'disabled', 'not in the file']);
  }

  async #write(fields: Array<string | number | null>): Promise<void> {
    if (this.#failed) throw this.#failed;
    if (!this.#out.write(`${fields.map(csvField).join(',')}\n`)) await once(this.#out, 'drain');
  }

  /** Harmless to call again. */
  async close(): Promise<void> {
    if (!this.#out.writableEnded) this.#out.end();
    await finished(this.#out);
    if (this.#failed) throw this.#failed;
  }
}
