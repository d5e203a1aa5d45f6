import type { ImportCheckProgress, ImportProgress } from '../service/member-import.js';
import type { CliIo } from './context.js';

/** A terminal line is redrawn at most this often. */
const REDRAW_MS = 200;
/** Without a terminal (a log, CI), a plain line after this long, or after PLAIN_EVERY_ROWS more rows. */
const PLAIN_EVERY_MS = 10_000;
const PLAIN_EVERY_ROWS = 100_000;
/** The rate is the one of the last seconds, so that a resumed run's fast skipping of rows there does not last. */
const RATE_WINDOW_MS = 10_000;
/** Erases the terminal line: back to its start, then clear it. */
const ERASE_LINE = '\r\x1b[2K';

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** 42 s, 3 min 20 s, 1 h 05 min. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** Rows done of a known total. */
export type RowProgress = Pick<ImportProgress, 'rowsDone' | 'rowsTotal'>;

/**
 * The progress of a long command over rows (`members import`, `store copy`) on stderr: on a terminal, one line
 * redrawn in place (`imported N of M rows (R rows/s, about T left)`, and an import's check's percentage before
 * it); otherwise a plain line now and then, so that a log is not flooded. clear() takes the terminal line away
 * before anything else is written.
 */
export class RowProgressDisplay {
  readonly #io: CliIo;
  readonly #terminal: boolean;
  readonly #now: () => number;
  /** What is done to the rows: `imported`, `copied`. */
  readonly #verb: string;
  #drawn = false;
  #lastDrawAt = -Infinity;
  #lastPlainAt: number;
  #lastPlainRows = 0;
  #samples: Array<{ at: number; rows: number }> = [];

  constructor(io: CliIo, options: { now?: () => number; verb?: string } = {}) {
    this.#io = io;
    this.#terminal = io.errIsTerminal === true;
    this.#now = options.now ?? Date.now;
    this.#verb = options.verb ?? 'imported';
    this.#lastPlainAt = this.#now();
  }

  /** The check that reads the whole file first; shown on a terminal only. */
  checking(progress: ImportCheckProgress, fileBytes: number): void {
    if (!this.#terminal || !this.#due()) return;
    const percent = fileBytes > 0 ? Math.min(100, Math.floor((progress.bytesRead / fileBytes) * 100)) : 100;
    this.#draw(`checking the file: ${percent}% (${count(progress.rows)} rows)`);
  }

  advanced(progress: RowProgress): void {
    const now = this.#now();
    this.#samples.push({ at: now, rows: progress.rowsDone });
    while (this.#samples.length > 2 && (this.#samples[1]?.at ?? now) <= now - RATE_WINDOW_MS) this.#samples.shift();
    if (this.#terminal) {
      if (this.#due() || progress.rowsDone === progress.rowsTotal) this.#draw(this.line(progress));
    } else if (now - this.#lastPlainAt >= PLAIN_EVERY_MS || progress.rowsDone - this.#lastPlainRows >= PLAIN_EVERY_ROWS) {
      this.#lastPlainAt = now;
      this.#lastPlainRows = progress.rowsDone;
      this.#io.err(`${this.line(progress)}\n`);
    }
  }

  /** `imported N of M rows (R rows/s, about T left)`; the rate and time left once there are two samples. */
  line(progress: RowProgress): string {
    const head = `${this.#verb} ${count(progress.rowsDone)} of ${count(progress.rowsTotal)} rows`;
    const first = this.#samples[0];
    const last = this.#samples[this.#samples.length - 1];
    if (!first || !last || last.at <= first.at) return head;
    const rate = ((last.rows - first.rows) * 1000) / (last.at - first.at);
    if (rate <= 0) return head;
    return `${head} (${count(Math.round(rate))} rows/s, about ${duration((progress.rowsTotal - progress.rowsDone) / rate)} left)`;
  }

  /** A message of its own line on stderr. */
  note(message: string): void {
    this.clear();
    this.#io.err(`${message}\n`);
  }

  /** Erases the terminal line, if one is drawn. */
  clear(): void {
    if (!this.#drawn) return;
    this.#io.err(ERASE_LINE);
    this.#drawn = false;
  }

  #due(): boolean {
    return this.#now() - this.#lastDrawAt >= REDRAW_MS;
  }

  #draw(text: string): void {
    this.#lastDrawAt = this.#now();
    this.#drawn = true;
    this.#io.err(`${ERASE_LINE}${text}`);
  }
}
