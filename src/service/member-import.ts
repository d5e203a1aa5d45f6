import { CsvError, parse } from 'csv-parse/sync';
import type { MemberAttributes } from '../store/store.js';
import { ServiceError } from './errors.js';
import { EXTRA_KEY } from '../config/result-fields.js';
import { parseRole } from './member-attributes.js';
import type { MemberService } from './members.js';
import { importedPasswordHash, PasswordHashError, type ImportedPasswordFormat, type MembershipAlgorithm } from './passwords.js';

export interface ImportOptions {
  /** The algorithm of `hashed` passwords whose length does not tell it (a 32-byte hash is taken for HMACSHA256). */
  hashAlgorithm?: MembershipAlgorithm;
}

export interface ImportReportRow {
  /** The line the row starts on; the header is line 1. */
  line: number;
  /** The id as stored when imported; as the row has it (null when empty) when refused. */
  id: string | null;
  status: 'imported' | 'refused';
  reason?: string;
}

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
  const cell = (column: Column) => fields[columns.get(column) ?? -1] ?? '';
  return Object.fromEntries(COLUMNS.map((column) => [column, cell(column)])) as Cells;
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
    const attributes = attributesOf(cells, row.fields, context.extras);
    const passwordHash = await storedPassword(cells, context.options);
    const { username, email, firstName, lastName } = cells;
    const member = await context.members.add({ id: cells.id, username, email, firstName, lastName, attributes }, passwordHash);
    // The id as stored: a GUID id policy lower-cases it, or issues one for an empty cell.
    return { line: row.line, id: member.id, status: 'imported' };
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
    ...columnsOf(header.fields),
    seen: { id: new Map(), username: new Map() },
  };
  const report: ImportReportRow[] = [];
  for (const row of rows) report.push(await importRow(row, context));
  return report;
}
