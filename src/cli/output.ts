import type { CliIo } from './context.js';

export type Cell = string | number | boolean | null;
export type Fields = Record<string, Cell>;

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoTimeOrNull(ms: number | null): string | null {
  return ms === null ? null : isoTime(ms);
}

/**
 * `--json` prints one JSON document and nothing else on stdout, so that the output pipes into jq. Records whose
 * JSON holds more than table cells (nested objects) print it themselves.
 */
export function printJson(io: CliIo, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

function text(cell: Cell): string {
  if (cell === null) return '-';
  if (typeof cell === 'boolean') return cell ? 'yes' : 'no';
  return String(cell);
}

/** firstName → "first name": the JSON keys double as the human headings. */
function label(key: string): string {
  return key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

function aligned(lines: string[][]): string {
  // A loop, not Math.max(...cells): spreading 200,000 rows' cells as arguments overflows the stack.
  const widths = lines[0]?.map((_, column) => lines.reduce((widest, line) => Math.max(widest, line[column]?.length ?? 0), 0)) ?? [];
  return lines.map((line) => `${line.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()}\n`).join('');
}

/** Rows as a JSON array, or as aligned columns headed by their keys; `empty` when there is none. */
export function printList(io: CliIo, json: boolean, rows: Fields[], empty: string): void {
  if (json) return printJson(io, rows);
  const first = rows[0];
  if (!first) return io.out(`${empty}\n`);
  const keys = Object.keys(first);
  io.out(aligned([keys.map((key) => label(key).toUpperCase()), ...rows.map((row) => keys.map((key) => text(row[key] ?? null)))]));
}

/** One record as a JSON object, or as aligned "name  value" lines. */
export function printRecord(io: CliIo, json: boolean, fields: Fields): void {
  if (json) return printJson(io, fields);
  io.out(aligned(Object.entries(fields).map(([key, value]) => [label(key), text(value)])));
}

/** Warnings and hints go to stderr, so that stdout carries only the result. */
export function warn(io: CliIo, message: string): void {
  io.err(`warning: ${message}\n`);
}

export function printDone(io: CliIo, message: string): void {
  io.out(`${message}\n`);
}
