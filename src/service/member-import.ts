import { CsvError, parse } from 'csv-parse/sync';
import { ServiceError } from './errors.js';
import type { MemberService } from './members.js';
import { importedPasswordHash, PasswordHashError, type ImportedPasswordFormat, type MembershipAlgorithm } from './passwords.js';

export interface ImportOptions {
  /** The algorithm of `hashed` passwords whose length does not tell it (a 32-byte hash is taken for HMACSHA256). */
  hashAlgorithm?: MembershipAlgorithm;
}

export interface ImportReportRow {
  /** The line the row starts on; the header is line 1. */
  line: number;
  id: string | null;
  status: 'imported' | 'refused';
  reason?: string;
}

export const IMPORT_HEADER = 'id,username,email,first_name,last_name,password_hash,password_format,salt';

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
} as const;

type Column = keyof typeof COLUMN_SPELLINGS;
type Cells = Record<Column, string>;

const COLUMNS = Object.keys(COLUMN_SPELLINGS) as Column[];
const COLUMN_BY_SPELLING: ReadonlyMap<string, Column> = new Map(
  COLUMNS.flatMap((column) => COLUMN_SPELLINGS[column].map((spelling) => [spelling, column] as const)),
);

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

interface ImportContext {
  members: MemberService;
  options: ImportOptions;
  width: number;
  columns: ReadonlyMap<Column, number>;
  /** The line each id and username first appeared on. */
  seen: Record<'id' | 'username', Map<string, number>>;
}

/** A syntax error refuses the whole file before anything is imported: past it, no row can be trusted. */
function parseCsv(text: string): CsvRow[] {
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    // LF only: csv-parse counts the lines of a CRLF file wrong after an empty line.
    const options = { bom: true, relax_column_count: true, skip_empty_lines: true, info: true };
    records = parse(text.replace(/\r\n?/g, '\n'), options) as unknown as typeof records;
  } catch (error) {
    if (error instanceof CsvError) throw new ServiceError('MEMBER_IMPORT_INVALID', error.message);
    throw error;
  }
  // info.lines is the line a record ends on, and a quoted field may span lines.
  return records.map(({ record, info }) => ({ fields: record, line: info.lines - (record.join('').split('\n').length - 1) }));
}

function columnsOf(header: string[]): Map<Column, number> {
  const columns = new Map<Column, number>();
  header.forEach((name, index) => {
    const column = COLUMN_BY_SPELLING.get(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
    if (!column) throw new ServiceError('MEMBER_IMPORT_INVALID', `unknown column "${name}": the header row is ${IMPORT_HEADER}`);
    if (columns.has(column)) throw new ServiceError('MEMBER_IMPORT_INVALID', `two columns of the header row are the ${column}`);
    columns.set(column, index);
  });
  for (const column of ['id', 'username'] as const) {
    if (!columns.has(column)) {
      throw new ServiceError('MEMBER_IMPORT_INVALID', `the header row has no ${column} column: it is ${IMPORT_HEADER}`);
    }
  }
  return columns;
}

function cellsOf(fields: string[], columns: ReadonlyMap<Column, number>): Cells {
  const cell = (column: Column) => fields[columns.get(column) ?? -1] ?? '';
  return Object.fromEntries(COLUMNS.map((column) => [column, cell(column)])) as Cells;
}

/** An id or username repeated in the file is refused even when its first row was: which one is right is unclear. */
function refuseRepeats(cells: Cells, line: number, seen: ImportContext['seen']): void {
  const repeated = (['id', 'username'] as const).flatMap((column) => {
    const value = cells[column].trim();
    const first = value ? seen[column].get(value) : undefined;
    if (value && first === undefined) seen[column].set(value, line);
    return first === undefined ? [] : [`line ${first} has the same ${column}`];
  });
  if (repeated.length > 0) throw new RowRefused(`already exists in this file: ${repeated.join(' and ')}`);
}

async function storedPassword(cells: Cells, options: ImportOptions): Promise<string | null> {
  const formatName = cells.passwordFormat.trim();
  const format = PASSWORD_FORMATS.get(formatName.toLowerCase());
  if (formatName && !format) {
    throw new RowRefused(`unknown password format "${formatName}": use 0 (clear), 1 (hashed), 2 (encrypted), identity or argon2id`);
  }
  // A clear password is taken as it is, spaces included.
  const value = format === 'clear' ? cells.passwordHash : cells.passwordHash.trim();
  if (!value) return null;
  if (!format) throw new RowRefused('the password hash has no password format');
  return importedPasswordHash(format, value, cells.salt.trim(), options);
}

/** Validates the whole row, then writes it in one createMember call, so a refused row leaves nothing behind. */
async function importRow(row: CsvRow, context: ImportContext): Promise<ImportReportRow> {
  const cells = cellsOf(row.fields, context.columns);
  const id = cells.id.trim() || null;
  try {
    if (row.fields.length !== context.width) {
      throw new RowRefused(`the row has ${row.fields.length} fields where the header row has ${context.width}`);
    }
    refuseRepeats(cells, row.line, context.seen);
    if (id && (await context.members.exists(id))) throw new ServiceError('MEMBER_EXISTS', id);
    const passwordHash = await storedPassword(cells, context.options);
    const { username, email, firstName, lastName } = cells;
    await context.members.add({ id: cells.id, username, email, firstName, lastName }, passwordHash);
    return { line: row.line, id, status: 'imported' };
  } catch (error) {
    if (error instanceof RowRefused || error instanceof PasswordHashError || error instanceof ServiceError) {
      return { line: row.line, id, status: 'refused', reason: error.message };
    }
    throw error;
  }
}

/**
 * Imports members exported from the old membership store, one CSV row each, in file order. Returns one
 * report row per data row; a file that cannot be read as a whole (syntax, header) throws MEMBER_IMPORT_INVALID
 * before anything is imported. Members already in the store are refused, so a second run imports nothing.
 */
export async function importMembers(csvText: string, members: MemberService, options: ImportOptions = {}): Promise<ImportReportRow[]> {
  const [header, ...rows] = parseCsv(csvText);
  if (!header) throw new ServiceError('MEMBER_IMPORT_INVALID', `the file is empty: its first row is the header ${IMPORT_HEADER}`);
  const context: ImportContext = {
    members,
    options,
    width: header.fields.length,
    columns: columnsOf(header.fields),
    seen: { id: new Map(), username: new Map() },
  };
  const report: ImportReportRow[] = [];
  for (const row of rows) report.push(await importRow(row, context));
  return report;
}
