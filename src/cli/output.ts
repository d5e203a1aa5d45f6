import type { CliIo } from './context.js';

export type Cell = string | number | boolean | null;
export type Fields = Record<string, Cell>;

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoTimeOrNull(ms: number | null): string | null {
  return ms === null ? null : isoTime(ms);
}

const JSON_INDENT = 2;

/** The value as printJson writes it, its lines after the first indented `depth` levels to sit inside a document. */
function jsonText(value: unknown, depth = 0): string {
  const text = JSON.stringify(value, null, JSON_INDENT);
  return depth === 0 ? text : text.replace(/\n/g, `\n${' '.repeat(JSON_INDENT * depth)}`);
}

/**
 * Every command's `--json` output: one JSON document and nothing else on stdout, so that the output pipes
 * into jq. Warnings and progress go to stderr meanwhile.
 */
export function printJson(io: CliIo, value: unknown): void {
  io.out(`${jsonText(value)}\n`);
}

/**
 * The document printJson prints of `{ [key]: items, ...rest }`, the same text, but written as it comes: the
 * items one by one, then the other fields. For reports too long to hold whole (members import). Nothing is
 * written before the first item, so that a command failing before it leaves stdout empty.
 */
export class StreamedJsonObject {
  #items = 0;

  constructor(
    private readonly io: CliIo,
    private readonly key: string,
  ) {}

  item(value: unknown): void {
    const before = this.#items++ === 0 ? `{\n  ${JSON.stringify(this.key)}: [` : ',';
    this.io.out(`${before}\n    ${jsonText(value, 2)}`);
  }

  end(rest: Record<string, unknown>): void {
    const items = this.#items === 0 ? `{\n  ${JSON.stringify(this.key)}: []` : '\n  ]';
    const fields = Object.entries(rest).map(([key, value]) => `,\n  ${JSON.stringify(key)}: ${jsonText(value, 1)}`);
    this.io.out(`${items}${fields.join('')}\n}\n`);
  }
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

/** What a command did: one line for people, or with --json the record of it (`{ "id": "10042", "enabled": false }`). */
export function printDone(io: CliIo, json: boolean, message: string, record: Record<string, unknown>): void {
  if (json) return printJson(io, record);
  io.out(`${message}\n`);
}

/** Warnings and hints go to stderr, so that stdout carries only the result. */
export function warn(io: CliIo, message: string): void {
  io.err(`warning: ${message}\n`);
}
