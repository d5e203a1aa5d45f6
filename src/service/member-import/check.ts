import type { MemberAttributes, NewMember } from '../../store/store.js';
import { ServiceError } from '../errors.js';
import { EXTRA_KEY } from '../extra-key.js';
import { FirstSeen } from '../first-seen.js';
import { parseRole } from '../member-attributes.js';
import type { MemberService } from '../members.js';
import { importedPasswordHash, PasswordHashError, type ImportedPasswordFormat, type MembershipAlgorithm } from '../passwords.js';
import { csvRows, type CsvRow, type ImportSource } from './read.js';

export interface ImportOptions {
  /** The algorithm of `hashed` passwords whose length does not tell it (a 32-byte hash is taken for HMACSHA256). */
  hashAlgorithm?: MembershipAlgorithm;
}

/**
 * What became of one data row: `imported`; `existing` when a member with its id and username is stored already
 * (an earlier run of the same import, interrupted or not), which is no error; `refused`, with the reason. With
 * the update option, a stored member is compared with its row instead of being `existing`: `updated`, with the
 * columns that changed, or `unchanged`.
 */
export interface ImportReportRow {
  /** The line the row starts on; the header is line 1. */
  line: number;
  /** The id as stored when imported, existing, updated or unchanged; as the row has it (null when empty) when refused. */
  id: string | null;
  status: 'imported' | 'existing' | 'updated' | 'unchanged' | 'refused';
  reason?: string;
  /** When updated: the columns whose value changed, as the header names them (`email`, `is_member`, `attr:tier`). */
  fields?: string[];
}

/** Where the check of the whole file stands, before anything is imported. */
export interface ImportCheckProgress {
  bytesRead: number;
  rows: number;
}

export const IMPORT_HEADER = 'id,username,email,first_name,last_name,password_hash,password_format,salt';

/** The columns a file may add: the member attributes that partners read (MemberAttributes), and whether it is enabled. */
const OPTIONAL_COLUMNS =
  'is_member, contact_number, label_name, organisation_id, organisation_name, price_level_id, price_level_name, roles, enabled and attr:<key>';

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
  // SqlMembershipProvider exports IsApproved: a member not approved cannot sign in.
  enabled: ['enabled', 'active', 'isactive', 'approved', 'isapproved'],
} as const;

export type Column = keyof typeof COLUMN_SPELLINGS;
type Cells = Record<Column, string>;

const COLUMNS = Object.keys(COLUMN_SPELLINGS) as Column[];
const COLUMN_BY_SPELLING: ReadonlyMap<string, Column> = new Map(
  COLUMNS.flatMap((column) => COLUMN_SPELLINGS[column].map((spelling) => [spelling, column] as const)),
);

/** The is_member and enabled spellings of spreadsheets and CRM exports; an empty cell leaves it unknown. */
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

/** Why one row is refused; the rows around it are imported or refused on their own. */
export class RowRefused extends Error {}

/** Where each column is: the known ones, and the extra attributes' by key. */
interface HeaderColumns {
  columns: ReadonlyMap<Column, number>;
  extras: ReadonlyMap<string, number>;
}

/** The file as its check found it: the header's columns and width, and the number of data rows. */
export interface CheckedFile extends HeaderColumns {
  width: number;
  rows: number;
}

/** A row whose outcome is known before it is written: refused, or found stored already. */
export interface SettledRow {
  settled: ImportReportRow;
}

/** A row whose every field is checked, ready to be hashed and written. */
export interface CheckedRow {
  line: number;
  /** The id as the row has it, null when empty (then the id was issued: MEMBER_ID_FORMAT guid); for a refusal's report. */
  cellId: string | null;
  /** As it is to be stored; passwordHash is the row's hash converted, or null (none, or a clear password). */
  member: NewMember;
  /** A clear password, hashed only once the row is known to be new: an argon2id hash is slow. */
  clearPassword: string | null;
  /** The enabled cell; undefined when empty or without the column (a new member is then enabled). */
  enabled: boolean | undefined;
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

/** Reads the whole file once, streamed, before anything is imported: the header's columns and the data rows. */
export async function checkFile(source: ImportSource, onCheck: ((progress: ImportCheckProgress) => void) | undefined): Promise<CheckedFile> {
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

function cellsOf(fields: string[], columns: ReadonlyMap<Column, number>): Cells {
  const cells = {} as Cells;
  for (const column of COLUMNS) cells[column] = fields[columns.get(column) ?? -1] ?? '';
  return cells;
}

function flagOf(column: 'is_member' | 'enabled', cell: string): boolean | undefined {
  const value = cell.trim();
  if (!value) return undefined;
  const flag = FLAGS.get(value.toLowerCase());
  if (flag === undefined) throw new RowRefused(`${column} "${value}" is not one of true, false, 1, 0, yes or no`);
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

/** As the row has them; MemberService.prepare checks them with the rest of the member. */
function attributesOf(cells: Cells, fields: string[], extras: ReadonlyMap<string, number>): MemberAttributes {
  const { contactNumber, labelName, organisationId, organisationName, priceLevelId, priceLevelName } = cells;
  return {
    isMember: flagOf('is_member', cells.isMember),
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

/** The report of a refused row, for the errors that refuse one row; any other error stops the import. */
export function refusal(line: number, id: string | null, error: unknown): SettledRow {
  if (error instanceof RowRefused || error instanceof PasswordHashError || error instanceof ServiceError) {
    return { settled: { line, id, status: 'refused', reason: error.message } };
  }
  throw error;
}

/**
 * Checks the data rows against the header, and against each other: the one thing it keeps per row is the line
 * each id and each username (lower-cased: usernames are compared ignoring case) first appeared on, so that a
 * repeat is refused wherever it is in the file (FirstSeen tells its cost).
 */
export class RowChecker {
  readonly #seen = { id: new FirstSeen(), username: new FirstSeen() };

  constructor(
    private readonly file: CheckedFile,
    private readonly members: MemberService,
    private readonly options: ImportOptions,
  ) {}

  /**
   * What depends on the order of the rows: the number of fields, and ids and usernames the file repeats. Called
   * in file order, before any await, because which row came first decides.
   */
  inOrder(row: CsvRow): { cells: Cells } | SettledRow {
    const cells = cellsOf(row.fields, this.file.columns);
    try {
      if (row.fields.length !== this.file.width) {
        throw new RowRefused(`the row has ${row.fields.length} fields where the header row has ${this.file.width}`);
      }
      this.#refuseRepeats(cells, row.line);
      return { cells };
    } catch (error) {
      return refusal(row.line, cells.id.trim() || null, error);
    }
  }

  /** The member the row makes, every field checked (MemberService.prepare), or the row's refusal. */
  async member(row: CsvRow, cells: Cells): Promise<CheckedRow | SettledRow> {
    const cellId = cells.id.trim() || null;
    try {
      const attributes = attributesOf(cells, row.fields, this.file.extras);
      const enabled = flagOf('enabled', cells.enabled);
      const password = await passwordOf(cells, this.options);
      const { username, email, firstName, lastName } = cells;
      const prepared = this.members.prepare({ id: cells.id, username, email, firstName, lastName, attributes }, 'hash' in password ? password.hash : null);
      const member = { ...prepared, enabled: enabled ?? prepared.enabled };
      return { line: row.line, cellId, member, clearPassword: 'clear' in password ? password.clear : null, enabled };
    } catch (error) {
      return refusal(row.line, cellId, error);
    }
  }

  /**
   * An id or username repeated in the file is refused even when its first row was: which one is right is unclear.
   * Usernames are compared ignoring case, as sign-in compares them.
   */
  #refuseRepeats(cells: Cells, line: number): void {
    const repeated = (['id', 'username'] as const).flatMap((column) => {
      const trimmed = cells[column].trim();
      const value = column === 'username' ? trimmed.toLowerCase() : trimmed;
      const first = value ? this.#seen[column].firstLine(value, line) : undefined;
      return first === undefined ? [] : [`line ${first} has the same ${column}`];
    });
    if (repeated.length > 0) throw new RowRefused(`already exists in this file: ${repeated.join(' and ')}`);
  }
}
