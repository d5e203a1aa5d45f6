import type {
  CallerOriginRow,
  CallerPasswordRow,
  CallerRow,
  MemberAttributes,
  MemberChanges,
  MemberCredentials,
  MemberReplacement,
  MemberRow,
  NewMember,
  NewMemberOutcome,
  RecoveryTokenRow,
  SecondFactorRow,
  SessionRow,
  SessionThrough,
  SessionWithMember,
  ThrottleRow,
} from '../store.js';

/**
 * The rows as the drivers return them (snake_case columns), the column lists, and the mapping between those rows
 * and the domain rows of store.ts, in values as the statements take them and back.
 */

/** How a driver returns a flag column: SQLite as 0 or 1, PostgreSQL as a boolean. */
export type Flag = number | boolean;

/** A dialect's conversion between its flag columns and booleans. */
export interface FlagCodec {
  readonly toBoolean: (flag: Flag) => boolean;
  readonly fromBoolean: (value: boolean) => Flag;
}

export interface CallerRecord {
  id: number;
  name: string;
  enabled: Flag;
  created_at: number;
}

export interface CallerPasswordRecord {
  id: number;
  caller_id: number;
  created_at: number;
}

export interface MemberRecord {
  id: string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  enabled: Flag;
  created_at: number;
  /** MemberAttributes as JSON: partners' fields come and go without a migration each. */
  attributes: string;
  external_id: string | null;
  display_name: string | null;
  updated_at: number;
  formatted_name: string | null;
  version: number;
}

/** updateMember's parameters: null leaves a column as it is (none of them is ever NULL). */
export interface MemberChangesRecord {
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  attributes: string | null;
}

export interface MemberCredentialsRecord extends MemberRecord {
  password_hash: string | null;
}

/** A member as inserted: the version is the column's default, 1. */
export type NewMemberRecord = Omit<MemberCredentialsRecord, 'version'>;

export interface CallerOriginRecord {
  caller_id: number;
  origin: string;
  receives_token: Flag;
  created_at: number;
}

export interface ThrottleRecord {
  key: string;
  failures: number;
  window_started_at: number;
  locked_until: number | null;
}

export interface SessionRecord {
  id: string;
  member_id: string;
  cookie_domain: string;
  cookie_hash: string;
  token_hash: string;
  token_sealed: string;
  cookie_sealed: string | null;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  revoked_at: number | null;
  client_address: string | null;
  user_agent: string | null;
}

export type ListedSessionRecord = SessionRecord & { through_kind: string | null; through_name: string | null };

/** A session and its member in one row (joinedMemberSelect): the member's columns but its id as member_<column>. */
export type SessionMemberRecord = SessionRecord & { [Column in JoinedMemberColumn as `member_${Column}`]: MemberRecord[Column] };
type JoinedMemberColumn = Exclude<keyof MemberRecord, 'id'>;

export interface SecondFactorRecord {
  member_id: string;
  secret_sealed: string;
  created_at: number;
  confirmed_at: number | null;
  last_step: number | null;
}

/**
 * createMembers' outcomes, once its inserts are done: `created` marks the members inserted, `storedUsernames`
 * holds the username stored under each id of the list that was not inserted (read after the inserts, in the
 * same transaction). A member not inserted whose id is not stored was skipped for its username.
 */
export function newMemberOutcomes(
  members: readonly NewMember[],
  created: readonly boolean[],
  storedUsernames: ReadonlyMap<string, string>,
): NewMemberOutcome[] {
  return members.map((member, index) => {
    if (created[index]) return 'created';
    const stored = storedUsernames.get(member.id);
    if (stored === undefined) return 'usernameTaken';
    return stored === member.username ? 'existing' : 'idTaken';
  });
}

export const CALLER_COLUMNS = 'id, name, enabled, created_at';
/**
 * The columns a member is inserted with (updated_at is created_at then); a read has its version too
 * (MEMBER_READ_COLUMNS).
 */
const MEMBER_COLUMN_NAMES = ['id', 'username', 'email', 'first_name', 'last_name', 'enabled', 'created_at', 'attributes', 'external_id', 'display_name', 'updated_at', 'formatted_name'] as const;
export const MEMBER_COLUMNS = MEMBER_COLUMN_NAMES.join(', ');
export const MEMBER_READ_COLUMNS = `${MEMBER_COLUMNS}, version`;
/** The member's columns a session's read joins in: all but the id, which is the session's member_id. */
const JOINED_MEMBER_COLUMNS = [...MEMBER_COLUMN_NAMES.filter((column) => column !== 'id'), 'version'] as JoinedMemberColumn[];
export const CALLER_ORIGIN_COLUMNS = 'caller_id, origin, receives_token, created_at';
export const THROTTLE_COLUMNS = 'key, failures, window_started_at, locked_until';
export const SESSION_COLUMNS =
  'id, member_id, cookie_domain, cookie_hash, token_hash, token_sealed, cookie_sealed, created_at, last_seen_at, expires_at, revoked_at, ' +
  'client_address, user_agent';
/** A session's columns as written and listed: SESSION_COLUMNS and how it was opened (which the lookups by hash do not read). */
export const LISTED_SESSION_COLUMNS = `${SESSION_COLUMNS}, through_kind, through_name`;
export const SECOND_FACTOR_COLUMNS = 'member_id, secret_sealed, created_at, confirmed_at, last_step';

/** The session's columns, from the sessions table aliased as s. */
export const SESSION_SELECT = SESSION_COLUMNS.split(', ').map((column) => `s.${column}`).join(', ');

/**
 * The session whose token hash is `hash` (a placeholder), as the condition on the sessions table aliased as s:
 * its `key` (SqlDialect.sessionKey) found by a scalar subquery on the hash's index. SQLite runs `FROM sessions s
 * JOIN members m … WHERE s.token_hash = ?` several times slower (docs/performance.md); by its rowid, which the
 * hash's index holds, the session's row is found without reading the index of its id.
 */
export function sessionByToken(key: string, hash: string): string {
  return `s.${key} = (SELECT ${key} FROM sessions WHERE token_hash = ${hash})`;
}

/**
 * The session whose login cookie hash is `hash`, or whose cookie it was until renewed (a renewed cookie's session
 * answers for the cookie it replaced too), as sessionByToken's condition. Each column has its unique index; the
 * current cookie is looked for first and, when found, the previous cookies' index is not read (an OR of the two
 * costs both indexes on every lookup: about 1.5 times as long on SQLite).
 */
export function sessionByCookie(key: string, hash: string): string {
  return `s.${key} = COALESCE((SELECT ${key} FROM sessions WHERE cookie_hash = ${hash}), (SELECT ${key} FROM sessions WHERE previous_cookie_hash = ${hash}))`;
}

/** The select list of a session's member, from the members table aliased as `table`, each column as member_<column>. */
export function joinedMemberSelect(table: string): string {
  return JOINED_MEMBER_COLUMNS.map((column) => `${table}.${column} AS member_${column}`).join(', ');
}

/** The member's own record out of a session's joined row. */
function joinedMember(record: SessionMemberRecord): MemberRecord {
  const columns = Object.fromEntries(JOINED_MEMBER_COLUMNS.map((column) => [column, record[`member_${column}`]]));
  return { ...(columns as Omit<MemberRecord, 'id'>), id: record.member_id };
}

/** A member's values in MEMBER_COLUMNS order, then its password hash, as an INSERT of those columns numbers them. */
export function memberValues(record: NewMemberRecord): unknown[] {
  return [
    record.id,
    record.username,
    record.email,
    record.first_name,
    record.last_name,
    record.enabled,
    record.created_at,
    record.attributes,
    record.external_id,
    record.display_name,
    record.updated_at,
    record.formatted_name,
    record.password_hash,
  ];
}

export const RECOVERY_TOKEN_COLUMNS = 'member_id, token_hash, created_at, expires_at';

export interface RecoveryTokenRecord {
  member_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
}

export function toRecoveryToken(record: RecoveryTokenRecord): RecoveryTokenRow {
  return { memberId: record.member_id, tokenHash: record.token_hash, createdAt: record.created_at, expiresAt: record.expires_at };
}

export function mapOrNull<R, T>(record: R | undefined, map: (record: R) => T): T | null {
  return record === undefined ? null : map(record);
}

function toAttributes(text: string): MemberAttributes {
  return JSON.parse(text) as MemberAttributes;
}

function fromAttributes(attributes: MemberAttributes): string {
  return JSON.stringify(attributes);
}

export function fromMemberChanges(changes: MemberChanges): MemberChangesRecord {
  return {
    email: changes.email ?? null,
    first_name: changes.firstName ?? null,
    last_name: changes.lastName ?? null,
    attributes: changes.attributes === undefined ? null : fromAttributes(changes.attributes),
  };
}

export function toCallerPassword(record: CallerPasswordRecord): CallerPasswordRow {
  return { id: record.id, callerId: record.caller_id, createdAt: record.created_at };
}

export function toThrottle(record: ThrottleRecord): ThrottleRow {
  return {
    key: record.key,
    failures: record.failures,
    windowStartedAt: record.window_started_at,
    lockedUntil: record.locked_until,
  };
}

/** A session's values in LISTED_SESSION_COLUMNS order, as an INSERT of those columns numbers them. */
export function sessionValues(session: SessionRow): unknown[] {
  const { through } = session;
  return [
    session.id,
    session.memberId,
    session.cookieDomain,
    session.cookieHash,
    session.tokenHash,
    session.tokenSealed,
    session.cookieSealed,
    session.createdAt,
    session.lastSeenAt,
    session.expiresAt,
    session.revokedAt,
    session.clientAddress,
    session.userAgent,
    through?.kind ?? null,
    through !== undefined && through.kind !== 'signin-page' ? through.name : null,
  ];
}

export function toSession(record: SessionRecord): SessionRow {
  return {
    id: record.id,
    memberId: record.member_id,
    cookieDomain: record.cookie_domain,
    cookieHash: record.cookie_hash,
    tokenHash: record.token_hash,
    tokenSealed: record.token_sealed,
    cookieSealed: record.cookie_sealed,
    createdAt: record.created_at,
    lastSeenAt: record.last_seen_at,
    expiresAt: record.expires_at,
    revokedAt: record.revoked_at,
    clientAddress: record.client_address,
    userAgent: record.user_agent,
  };
}

/** A session as listed: with how it was opened, when that is known. */
export function toListedSession(record: ListedSessionRecord): SessionRow {
  const through = toThrough(record.through_kind, record.through_name);
  return through === undefined ? toSession(record) : { ...toSession(record), through };
}

function toThrough(kind: string | null, name: string | null): SessionThrough | undefined {
  if (kind === 'signin-page') return { kind };
  if ((kind === 'partner' || kind === 'oidc-client' || kind === 'saml-sp') && name !== null) return { kind, name };
  return undefined;
}

export function toSecondFactor(record: SecondFactorRecord): SecondFactorRow {
  return {
    memberId: record.member_id,
    secretSealed: record.secret_sealed,
    createdAt: record.created_at,
    confirmedAt: record.confirmed_at,
    lastStep: record.last_step,
  };
}

/**
 * The mappings of rows with flag columns, for a store's flag type. Each takes one argument, so that it can be
 * passed to Array.prototype.map as it is.
 */
export function flagRecordMappers(flags: FlagCodec) {
  const { toBoolean, fromBoolean } = flags;

  function toMember(record: MemberRecord): MemberRow {
    return {
      id: record.id,
      username: record.username,
      email: record.email,
      firstName: record.first_name,
      lastName: record.last_name,
      enabled: toBoolean(record.enabled),
      createdAt: record.created_at,
      attributes: toAttributes(record.attributes),
      version: record.version,
      updatedAt: record.updated_at,
      externalId: record.external_id,
      displayName: record.display_name,
      formattedName: record.formatted_name,
    };
  }

  return {
    toCaller(record: CallerRecord): CallerRow {
      return { id: record.id, name: record.name, enabled: toBoolean(record.enabled), createdAt: record.created_at };
    },

    fromNewMember(member: NewMember): NewMemberRecord {
      return {
        id: member.id,
        username: member.username,
        email: member.email,
        first_name: member.firstName,
        last_name: member.lastName,
        enabled: fromBoolean(member.enabled),
        created_at: member.createdAt,
        attributes: fromAttributes(member.attributes),
        external_id: member.externalId ?? null,
        display_name: member.displayName ?? null,
        updated_at: member.createdAt,
        formatted_name: member.formattedName ?? null,
        password_hash: member.passwordHash ?? null,
      };
    },

    toMember,

    /** replaceMember's values of the member's fields: $2 to $11 of its statement, in that order. */
    replacementValues(replacement: MemberReplacement): unknown[] {
      return [
        replacement.username,
        replacement.email,
        replacement.firstName,
        replacement.lastName,
        fromBoolean(replacement.enabled),
        fromAttributes(replacement.attributes),
        replacement.externalId,
        replacement.displayName,
        replacement.formattedName,
        replacement.updatedAt,
      ];
    },

    toMemberCredentials(record: MemberCredentialsRecord): MemberCredentials {
      return { member: toMember(record), passwordHash: record.password_hash };
    },

    toCallerOrigin(record: CallerOriginRecord): CallerOriginRow {
      return {
        callerId: record.caller_id,
        origin: record.origin,
        receivesToken: toBoolean(record.receives_token),
        createdAt: record.created_at,
      };
    },

    toSessionWithMember(record: SessionMemberRecord): SessionWithMember {
      return { session: toSession(record), member: toMember(joinedMember(record)) };
    },
  };
}
