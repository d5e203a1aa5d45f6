import { createHash } from 'node:crypto';
import type { ColumnKind, Value } from './database.js';

/**
 * The kind a column is copied and compared as, from its kinds on the two sides: a flag is BOOLEAN in PostgreSQL
 * and INTEGER (0 or 1) in SQLite, JSON is JSON on either side that says so; otherwise the two agree.
 */
export function pairedKind(source: ColumnKind, target: ColumnKind): ColumnKind {
  if (source === target) return source;
  for (const kind of ['json', 'boolean'] as const) if (source === kind || target === kind) return kind;
  return target;
}

/** JSON with its objects' keys sorted and no spaces: the same document reads the same whatever stored it. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * A value as a driver read it (SQLite: bigint, number, string, Buffer; pg: string for BIGINT and NUMERIC,
 * number, boolean, Buffer), as the copy writes it for `kind`: whole numbers as bigint, flags as booleans, JSON
 * and text as text, bytes as a Buffer.
 */
export function converted(raw: unknown, kind: ColumnKind): Value {
  if (raw === null || raw === undefined) return null;
  switch (kind) {
    case 'integer':
      return typeof raw === 'boolean' ? BigInt(raw ? 1 : 0) : BigInt(raw as string | number | bigint);
    case 'boolean':
      return raw === true || raw === 1 || raw === 1n || raw === '1' || raw === 't' || raw === 'true';
    case 'real':
      return Number(raw);
    case 'blob':
      return Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw), 'utf8');
    default:
      return typeof raw === 'string' ? raw : String(raw);
  }
}

/** A converted value as the checksum reads it, the same whichever dialect it came from. */
function normalised(value: Value, kind: ColumnKind): string | null {
  if (value === null) return null;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (kind === 'json') return canonicalJson(JSON.parse(value as string));
  return String(value);
}

/** 2^256: the checksum adds the rows' SHA-256 digests modulo this. */
const MODULUS = 1n << 256n;

/**
 * A table's count and checksum over its rows' normalised values, in any order: the sum of each row's SHA-256
 * (as a number) modulo 2^256, so that the two sides need not read their rows in the same order (their
 * collations differ) and a row missing, added or changed moves it.
 */
export class TableChecksum {
  rows = 0;
  #sum = 0n;

  constructor(private readonly kinds: readonly ColumnKind[]) {}

  add(row: readonly Value[]): void {
    const text = JSON.stringify(row.map((value, index) => normalised(value, this.kinds[index] ?? 'text')));
    this.#sum = (this.#sum + BigInt(`0x${createHash('sha256').update(text).digest('hex')}`)) % MODULUS;
    this.rows += 1;
  }

  get digest(): string {
    return this.#sum.toString(16).padStart(64, '0');
  }
}
