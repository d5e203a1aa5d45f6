import { CsvError, parse, type Info } from 'csv-parse';
import { availableParallelism } from 'node:os';
import { pipeline, Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { MemberAttributes, NewMember } from '../store/store.js';
import { ServiceError } from './errors.js';
import { EXTRA_KEY } from '../config/result-fields.js';
import { FirstSeen } from './first-seen.js';
import { parseRole } from './member-attributes.js';
import type { MemberService } from './members.js';
import { importedPasswordHash, PasswordHashError, type ImportedPasswordFormat, type MembershipAlgorithm } from './passwords.js';

export interface ImportOptions {
  /** The algorithm of `hashed` passwords whose length does not tell it (a 32-byte hash is taken for HMACSHA256). */
  hashAlgorithm?: MembershipAlgorithm;
}

/**
 * What became of one data row: `imported`; `existing` when a member with its id and username is stored already
 * (an earlier run of the same import, interrupted or not), which is no error; `refused`, with the reason.
 */
export interface ImportReportRow {
  /** The line the row starts on; the header is line 1. */
  line: number;
  /** The id as stored when imported or existing; as the row has it (null when empty) when refused. */
  id: string | null;
  status: 'imported' | 'existing' | 'refused';
  reason?: string;
}

/** Where an import stands; a batch's rows count once the batch is committed. */
export interface ImportProgress {
  /** The file's data rows, counted by the check that reads the file first. */
  rowsTotal: number;
  /** Data rows whose outcome is known: imported + existing + refused. */
  rowsDone: number;
  imported: number;
  existing: number;
  refused: number;
}

export interface ImportSummary extends ImportProgress {
  /** The signal stopped the import before the end of the file: run it again to import the rest. */
  interrupted: boolean;
}

/** Where the check of the whole file stands, before anything is imported. */
export interface ImportCheckProgress {
  bytesRead: number;
  rows: number;
}

export interface FileImportOptions extends ImportOptions {
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
}

/**
 * The file's bytes, from the start, each time it is called: the import reads the file twice (a check, then the
 * import). A Readable from fs.createReadStream will do; an array of buffers too.
 */
export type ImportSource = () => AsyncIterable<Buffer | string> | Iterable<Buffer | string>;

export const IMPORT_HEADER = 'id,username,email,first_name,last_name,password_hash,password_format,salt';

/** The columns a file may add: the member attributes that partners read (MemberAttributes). */
const OPTIONAL_COLUMNS =
  'is_member, contact_number, label_name, organisation_id, organisation_name, price_level_id, price_level_name, roles and attr:<key>';

/** A header `attr:<key>` is a column of the extra attribute <key>, whose case is kept. */
const EXTRA_COLUMN = /^attr:(.*)$/i;

/** Header spellings, compared without case and without anything but letters and digits ("First Name", "E-mail"). */
const COLUMN_SPELLINGS = {
  id: ['id', 'memberid'],
  username: ['username', 'login', 'loginname'],
  email: ['email', 'emailaddress'],
  firstName: ['firstname', 'givenname'],
  lastName: ['lastname', 'surname', 'familyname'],
  passwordHash: ['passwordhash', 'password', 'hash'],
  passwordFormat: ['passwordformat', 'format'],
  salt: ['salt', 'passwordsalt'],
  isMember: ['ismember', 'member'],
  contactNumber: ['contactnumber'],
  labelName: ['labelname'],
  organisationId: ['organisationid', 'organizationid'],
  organisationName: ['organisationname', 'organizationname'],
  priceLevelId: ['pricelevelid'],
  priceLevelName: ['pricelevelname'],
  roles: ['roles'],
} as const;

type Column = keyof typeof COLUMN_SPELLINGS;
type Cells = Record<Column, string>;

const COLUMNS = Object.keys(COLUMN_SPELLINGS) as Column[];
const COLUMN_BY_SPELLING: ReadonlyMap<string, Column> = new Map(
  COLUMNS.flatMap((column) => COLUMN_SPELLINGS[column].map((spelling) => [spelling, column] as const)),
);

/** The is_member spellings of spreadsheets and CRM exports; an empty cell leaves it unknown. */
const FLAGS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['1', true],
  ['yes', true],
  ['false', false],
  ['0', false],
  ['no', false],
]);

/** SqlMembershipProvider's PasswordFormat numbers and their names, plus the hash families it never had. */
const PASSWORD_FORMATS: ReadonlyMap<string, ImportedPasswordFormat> = new Map([
  ['0', 'clear'],
  ['clear', 'clear'],
  ['1', 'hashed'],
  ['hashed', 'hashed'],
  ['2', 'encrypted'],
  ['encrypted', 'encrypted'],
  ['identity', 'identity'],
  ['argon2id', 'argon2id'],
]);

interface CsvRow {
  fields: string[];
  line: number;
}

/** Why one row is refused; the rows around it are imported or refused on their own. */
class RowRefused extends Error {}

/** Where each column is: the known ones, and the extra attributes' by key. */
interface HeaderColumns {
  columns: ReadonlyMap<Column, number>;
  extras: ReadonlyMap<string, number>;
}

interface ImportContext extends HeaderColumns {
  members: MemberService;
  options: ImportOptions;
  width: number;
  /**
   * The line each id and each username (lower-cased: usernames are compared ignoring case) first appeared on,
   * so that a repeat is refused wherever it is in the file: the one thing the import keeps per row (FirstSeen
   * tells its cost); everything else is per batch.
   */
  seen: Record<'id' | 'username', FirstSeen>;
}

/** Rows written in one transaction. */
const DEFAULT_BATCH_SIZE = 1000;
/** A batch is also written once this old, so that rows with clear passwords (slow to hash) show progress. */
const MAX_BATCH_MS = 1000;
/**
 * The longest row, in characters: past it the file is refused. A quote left open would otherwise make the
 * rest of the file one field, held in memory; a real row is a few kilobytes at most.
 */
const MAX_ROW_CHARS = 1_000_000;

/** Bytes taken from the source so far, for the check's progress. */
interface ByteCount {
  read: number;
}

/**
 * The file as text: UTF-16 with a byte order mark (as SQL Server and Windows PowerShell tools write it), or
 * else UTF-8, its BOM dropped; line ends made LF, because csv-parse counts the lines of a CRLF file wrong after
 * an empty line. StringDecoder keeps a character split between two chunks whole.
 */
async function* textOf(source: ReturnType<ImportSource>, bytes: ByteCount): AsyncGenerator<string> {
  let head = Buffer.alloc(0);
  let decoder: StringDecoder | undefined;
  // The end of a chunk held back: a CR, whose LF may begin the next chunk, or the first half of a surrogate
  // pair, which Node's UTF-16 decoder hands out alone.
  let held = '';
  const lines = (text: string): string => {
    const all = held + text;
    const last = all.charCodeAt(all.length - 1);
    const hold = last === 0x0d || (last >= 0xd800 && last <= 0xdbff) ? 1 : 0;
    held = all.slice(all.length - hold);
    return all.slice(0, all.length - hold).replace(/\r\n?/g, '\n');
  };
  const start = (): string => {
    decoder = new StringDecoder(head[0] === 0xff && head[1] === 0xfe ? 'utf16le' : 'utf8');
    return decoder.write(head).replace(/^\uFEFF/, '');
  };
  for await (const chunk of source) {
    const bytesOfChunk = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes.read += bytesOfChunk.length;
    let text: string;
    if (decoder) text = decoder.write(bytesOfChunk);
    else {
      // Four bytes tell the byte order mark, and hold the whole of UTF-8's.
      head = Buffer.concat([head, bytesOfChunk]);
      if (head.length < 4) continue;
      text = start();
    }
    const normalised = lines(text);
    if (normalised) yield normalised;
  }
  const rest = lines((decoder ? '' : start()) + (decoder?.end() ?? '')) + held.replace('\r', '\n');
  if (rest) yield rest;
}

/**
 * The records of the file, streamed; a CSV syntax error is MEMBER_IMPORT_INVALID. Without `withLines` (the
 * check, which needs none), every line number is 0 and the parsing is cheaper.
 */
async function* csvRows(source: ReturnType<ImportSource>, bytes: ByteCount = { read: 0 }, withLines = true): AsyncGenerator<CsvRow> {
  const parser = parse({ relax_column_count: true, skip_empty_lines: true, info: withLines, max_record_size: MAX_ROW_CHARS });
  // An error of either stream reaches the loop below; leaving the loop early closes both.
  const records = pipeline(Readable.from(textOf(source, bytes)), parser, () => {}) as AsyncIterable<{ record: string[]; info: Info } | string[]>;
  try {
    for await (const parsed of records) {
      if (Array.isArray(parsed)) {
        yield { fields: parsed, line: 0 };
        continue;
      }
      const { record, info } = parsed;
      // info.lines is the line a record ends on, and a quoted field may span lines.
      let newlines = 0;
      for (const field of record) if (field.includes('\n')) newlines += field.split('\n').length - 1;
      yield { fields: record, line: info.lines - newlines };
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // csv-parse names the line where the row grew too long, not the line it began on.
    const hint = error.code === 'CSV_MAX_RECORD_SIZE' ? ' (is a quote left open before it?)' : '';
    throw new ServiceError('MEMBER_IMPORT_INVALID', `${error.message}${hint}`);
  }
}

/** An extra attribute's column; its key is checked here, so that a bad one refuses the file, not every row. */
function addExtraColumn(extras: Map<string, number>, name: string, key: string, index: number): void {
  if (!EXTRA_KEY.test(key)) {
    throw new ServiceError(
      'MEMBER_IMPORT_INVALID',
      `the column "${name}" names no valid attribute: after attr: come letters, digits, _, . and - (64 at most), starting with a letter or _`,
    );
  }
  if (extras.has(key)) throw new ServiceError('MEMBER_IMPORT_INVALID', `two columns of the header row are attr:${key}`);
  extras.set(key, index);
}

function addColumn(columns: Map<Column, number>, name: string, index: number): void {
  const column = COLUMN_BY_SPELLING.get(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
  if (!column) {
    throw new ServiceError(
      'MEMBER_IMPORT_INVALID',
      `unknown column "${name}": the header row is ${IMPORT_HEADER}, and may add ${OPTIONAL_COLUMNS} columns`,
    );
  }
  if (columns.has(column)) throw new ServiceError('MEMBER_IMPORT_INVALID', `two columns of the header row are the ${column}`);
  columns.set(column, index);
}

function columnsOf(header: string[]): HeaderColumns {
  const columns = new Map<Column, number>();
  const extras = new Map<string, number>();
  header.forEach((name, index) => {
    const extraKey = EXTRA_COLUMN.exec(name.trim())?.[1];
    if (extraKey === undefined) addColumn(columns, name, index);
    else addExtraColumn(extras, name, extraKey, index);
  });
  for (const column of ['id', 'username'] as const) {
    if (!columns.has(column)) {
      throw new ServiceError('MEMBER_IMPORT_INVALID', `the header row has no ${column} column: it is ${IMPORT_HEADER}`);
    }
  }
  return { columns, extras };
}

function cellsOf(fields: string[], columns: ReadonlyMap<Column, number>): Cells {
  const cells = {} as Cells;
  for (const column of COLUMNS) cells[column] = fields[columns.get(column) ?? -1] ?? '';
  return cells;
}

function isMemberOf(cell: string): boolean | undefined {
  const value = cell.trim();
  if (!value) return undefined;
  const flag = FLAGS.get(value.toLowerCase());
  if (flag === undefined) throw new RowRefused(`is_member "${value}" is not one of true, false, 1, 0, yes or no`);
  return flag;
}

/** `id:name` pairs separated by `|`. */
function rolesOf(cell: string): MemberAttributes['roles'] {
  if (!cell.trim()) return undefined;
  return cell.split('|').map((pair) => {
    const role = parseRole(pair);
    if (!role) throw new RowRefused(`the role "${pair}" is not id:name (roles are id:name pairs separated by |)`);
    return role;
  });
}

/** As the row has them; MemberService.add checks them with the rest of the member. */
function attributesOf(cells: Cells, fields: string[], extras: ReadonlyMap<string, number>): MemberAttributes {
  const { contactNumber, labelName, organisationId, organisationName, priceLevelId, priceLevelName } = cells;
  return {
    isMember: isMemberOf(cells.isMember),
    contactNumber,
    labelName,
    organisationId,
    organisationName,
    priceLevelId,
    priceLevelName,
    roles: rolesOf(cells.roles),
    extra: Object.fromEntries([...extras].map(([key, index]) => [key, fields[index] ?? ''])),
  };
}

/**
 * An id or username repeated in the file is refused even when its first row was: which one is right is unclear.
 * Usernames are compared ignoring case, as sign-in compares them.
 */
function refuseRepeats(cells: Cells, line: number, seen: ImportContext['seen']): void {
  const repeated = (['id', 'username'] as const).flatMap((column) => {
    const trimmed = cells[column].trim();
    const value = column === 'username' ? trimmed.toLowerCase() : trimmed;
    const first = value ? seen[column].firstLine(value, line) : undefined;
    return first === undefined ? [] : [`line ${first} has the same ${column}`];
  });
  if (repeated.length > 0) throw new RowRefused(`already exists in this file: ${repeated.join(' and ')}`);
}

/** The row's password: a hash to store (null for none), or a clear password, hashed once the row is checked. */
async function passwordOf(cells: Cells, options: ImportOptions): Promise<{ hash: string | null } | { clear: string }> {
  const formatName = cells.passwordFormat.trim();
  const format = PASSWORD_FORMATS.get(formatName.toLowerCase());
  if (formatName && !format) {
    throw new RowRefused(`unknown password format "${formatName}": use 0 (clear), 1 (hashed), 2 (encrypted), identity or argon2id`);
  }
  // A clear password is taken as it is, spaces included.
  const value = format === 'clear' ? cells.passwordHash : cells.passwordHash.trim();
  if (!value) return { hash: null };
  if (!format) throw new RowRefused('the password hash has no password format');
  if (format === 'clear') return { clear: value };
  return { hash: await importedPasswordHash(format, value, cells.salt.trim(), options) };
}

/** A row checked and ready for its batch, or already settled (refused, or found stored before hashing). */
type PreparedRow =
  | { settled: ImportReportRow }
  | {
      line: number;
      /** As the row has it, for a refusal's report. */
      cellId: string | null;
      member: NewMember;
      /** The id was issued (an empty cell under the 'guid' id format): a new one each run. */
      issuedId: boolean;
    };

function refusal(line: number, id: string | null, error: unknown): { settled: ImportReportRow } {
  if (error instanceof RowRefused || error instanceof PasswordHashError || error instanceof ServiceError) {
    return { settled: { line, id, status: 'refused', reason: error.message } };
  }
  throw error;
}

/** A member stored under the row's id: the row is there already, or its id is another member's. */
function settledByStored(line: number, cellId: string | null, member: NewMember, stored: { id: string; username: string }): { settled: ImportReportRow } {
  if (stored.username === member.username) return { settled: { line, id: stored.id, status: 'existing' } };
  return refusal(line, cellId, new ServiceError('MEMBER_EXISTS', member.id));
}

/** Checks the whole row, then hashes a clear password, unless a member with the row's id is stored already. */
async function prepareRow(row: CsvRow, cells: Cells, context: ImportContext): Promise<PreparedRow> {
  const cellId = cells.id.trim() || null;
  try {
    const attributes = attributesOf(cells, row.fields, context.extras);
    const password = await passwordOf(cells, context.options);
    const { username, email, firstName, lastName } = cells;
    const member = context.members.prepare({ id: cells.id, username, email, firstName, lastName, attributes });
    if ('clear' in password) {
      // An argon2id hash takes tens of milliseconds: none is spent on a row a previous run imported.
      const stored = cellId ? await context.members.find(member.id) : null;
      if (stored) return settledByStored(row.line, cellId, member, stored);
      member.passwordHash = await importedPasswordHash('clear', password.clear, '', context.options);
    } else {
      member.passwordHash = password.hash;
    }
    return { line: row.line, cellId, member, issuedId: !cellId };
  } catch (error) {
    return refusal(row.line, cellId, error);
  }
}

/** Writes a batch's members in one transaction and tells what became of each row, in file order. */
async function writeBatch(batch: ReadonlyArray<Promise<PreparedRow>>, context: ImportContext): Promise<ImportReportRow[]> {
  const rows = await Promise.all(batch);
  const pending = rows.flatMap((row) => ('member' in row ? [row] : []));
  const outcomes = pending.length === 0 ? [] : await context.members.addMany(pending.map((row) => row.member));
  const outcomeOf = new Map(pending.map((row, index) => [row, outcomes[index]]));
  const report: ImportReportRow[] = [];
  for (const row of rows) {
    if ('settled' in row) {
      report.push(row.settled);
      continue;
    }
    const { line, cellId, member } = row;
    const outcome = outcomeOf.get(row);
    if (outcome === 'created') report.push({ line, id: member.id, status: 'imported' });
    else if (outcome === 'existing') report.push({ line, id: member.id, status: 'existing' });
    else if (outcome === 'idTaken') report.push(refusal(line, cellId, new ServiceError('MEMBER_EXISTS', member.id)).settled);
    else {
      // An issued id is new each run: a member with exactly this username is this row, imported before.
      const stored = row.issuedId ? await context.members.findByUsername(member.username) : null;
      report.push(stored ? { line, id: stored.id, status: 'existing' } : refusal(line, cellId, new ServiceError('MEMBER_EXISTS', member.username)).settled);
    }
  }
  return report;
}

/** At most `size` tasks at once; acquire() waits for a free slot, which holds the reading of the file back. */
class Slots {
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
}

/** Reads the whole file once, streamed, before anything is imported: the header's columns and the data rows. */
async function checkFile(source: ImportSource, onCheck: FileImportOptions['onCheck']): Promise<HeaderColumns & { width: number; rows: number }> {
  const bytes = { read: 0 };
  let header: (HeaderColumns & { width: number }) | undefined;
  let rows = 0;
  for await (const row of csvRows(source(), bytes, false)) {
    if (!header) header = { ...columnsOf(row.fields), width: row.fields.length };
    else if (++rows % 1000 === 0) onCheck?.({ bytesRead: bytes.read, rows });
  }
  if (!header) throw new ServiceError('MEMBER_IMPORT_INVALID', `the file is empty: its first row is the header ${IMPORT_HEADER}`);
  onCheck?.({ bytesRead: bytes.read, rows });
  return { ...header, rows };
}

function defaultHashConcurrency(): number {
  return Math.min(4, availableParallelism());
}

/**
 * Imports members exported from the old membership store, one CSV row each, streamed: the file is read twice,
 * first whole to check its syntax and header (a file that cannot be read as a whole throws
 * MEMBER_IMPORT_INVALID before anything is imported), then row by row, each batch of rows written in one
 * transaction. Memory holds a batch, and the ids and usernames seen (ImportContext.seen), never the file.
 * Members already stored with the row's id and username are `existing`, so that a run interrupted anywhere,
 * even killed, is finished by running it again.
 */
export async function importMemberFile(source: ImportSource, members: MemberService, options: FileImportOptions = {}): Promise<ImportSummary> {
  const { rows: rowsTotal, ...header } = await checkFile(source, options.onCheck);
  const context: ImportContext = { members, options, ...header, seen: { id: new FirstSeen(), username: new FirstSeen() } };
  const summary: ImportSummary = { rowsTotal, rowsDone: 0, imported: 0, existing: 0, refused: 0, interrupted: false };
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
  const slots = new Slots(options.hashConcurrency ?? defaultHashConcurrency());
  let batch: Array<Promise<PreparedRow>> = [];
  let batchStartedAt = Date.now();

  const flush = async (): Promise<void> => {
    const written = batch;
    batch = [];
    for (const row of await writeBatch(written, context)) {
      summary.rowsDone += 1;
      summary[row.status] += 1;
      await options.onRow?.(row);
    }
    batchStartedAt = Date.now();
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
    const cells = cellsOf(row.fields, context.columns);
    try {
      if (row.fields.length !== context.width) {
        throw new RowRefused(`the row has ${row.fields.length} fields where the header row has ${context.width}`);
      }
      // In file order, before any await: which row came first decides.
      refuseRepeats(cells, row.line, context.seen);
      await slots.acquire();
      const prepared = prepareRow(row, cells, context).finally(() => slots.release());
      // Awaited when the batch is written; until then, a rejection is not an unhandled one.
      prepared.catch(() => {});
      batch.push(prepared);
    } catch (error) {
      batch.push(Promise.resolve(refusal(row.line, cells.id.trim() || null, error)));
    }
    if (batch.length >= batchSize || Date.now() - batchStartedAt >= MAX_BATCH_MS) await flush();
  }
  if (batch.length > 0) await flush();
  return summary;
}

/**
 * importMemberFile over a text in memory, with the report of every row: for tests and small files. Returns one
 * report row per data row.
 */
export async function importMembers(csvText: string, members: MemberService, options: FileImportOptions = {}): Promise<ImportReportRow[]> {
  const report: ImportReportRow[] = [];
  await importMemberFile(() => [Buffer.from(csvText)], members, {
    ...options,
    onRow: async (row) => {
      report.push(row);
      await options.onRow?.(row);
    },
  });
  return report;
}
