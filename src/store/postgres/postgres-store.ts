import pg from 'pg';
import type {
  CallerOriginRow,
  CallerPasswordRow,
  CallerRow,
  MemberChanges,
  MemberCredentials,
  MemberRow,
  NewMember,
  NewMemberOutcome,
  SecondFactorRow,
  SessionFilter,
  SessionRow,
  SessionWithMember,
  Store,
  ThrottleRow,
} from '../store.js';
import { StoreConflictError } from '../store.js';
import {
  CALLER_COLUMNS,
  CALLER_ORIGIN_COLUMNS,
  type CallerOriginRecord,
  type CallerPasswordRecord,
  type CallerRecord,
  type FlagCodec,
  flagRecordMappers,
  fromMemberChanges,
  fromSession,
  mapOrNull,
  MEMBER_COLUMNS,
  newMemberOutcomes,
  type MemberCredentialsRecord,
  type MemberRecord,
  SECOND_FACTOR_COLUMNS,
  type SecondFactorRecord,
  SESSION_COLUMNS,
  type SessionMemberRecord,
  type SessionRecord,
  sessionListSql,
  sessionWithMemberSql,
  THROTTLE_COLUMNS,
  type ThrottleRecord,
  toCallerPassword,
  toSecondFactor,
  toSession,
  toThrottle,
} from '../records.js';
import { migrate as migrateSchema } from './migrations.js';
import { inTransaction } from './transaction.js';

export interface PostgresStoreOptions {
  /** A postgres:// URL, as in DATABASE_URL. */
  connectionString: string;
  /** Connections the pool opens at most; 10 unless given. */
  maxConnections?: number;
  /**
   * The schema every connection works in (its search_path), instead of the URL's default. It must exist, and be
   * a lower-case unquoted identifier. Tests give each run a schema of its own.
   */
  schema?: string;
  /** The server cancels a statement running longer; 10 s unless given. */
  statementTimeoutMs?: number;
  /** A connection attempt fails after this long; 5 s unless given. */
  connectionTimeoutMs?: number;
}

const DEFAULT_MAX_CONNECTIONS = 10;
/** Every request-path statement is a small indexed read or write; one that takes seconds is stuck. */
const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
const DEFAULT_CONNECTION_TIMEOUT_MS = 5_000;
/** Idle connections are closed after this long, so a quiet instance does not hold its whole pool. */
const IDLE_TIMEOUT_MS = 30_000;
const APPLICATION_NAME = 'authentication-asmx';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;
/** Purges delete in batches of this many rows, so that no purge holds many row locks or one long transaction. */
const PURGE_BATCH_SIZE = 1000;

/**
 * pg returns BIGINT (and CockroachDB's INTEGER, which is 64-bit) as strings, since not every value fits a
 * JavaScript number. Every one of ours does: epoch milliseconds, identity values and counts. The parser is
 * this pool's only, not pg's global one.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** pg returns BOOLEAN columns as booleans and takes booleans as parameters. */
const FLAGS: FlagCodec<boolean> = { toBoolean: (flag) => flag, fromBoolean: (value) => value };

const { toCaller, fromNewMember, toMember, toMemberCredentials, toCallerOrigin, toSessionWithMember } = flagRecordMappers(FLAGS);

/**
 * Username matches rank before email matches; a member matching both is listed once. Two rows are enough for the
 * sign-in page to tell a unique login from an ambiguous one. The expression indexes on lower(username) and
 * lower(email) serve both halves. lower() follows the database's locale: under a UTF-8 locale it folds
 * non-ASCII letters too, which SQLite's does not.
 */
const MEMBERS_BY_LOGIN_SQL = `
  SELECT ${MEMBER_COLUMNS}, password_hash FROM (
    SELECT ${MEMBER_COLUMNS}, password_hash, 0 AS rank FROM members WHERE lower(username) = lower($1::TEXT)
    UNION ALL
    SELECT ${MEMBER_COLUMNS}, password_hash, 1 AS rank FROM members
      WHERE lower(email) = lower($1::TEXT) AND lower(username) <> lower($1::TEXT)
  ) matches
  ORDER BY rank, id
  LIMIT 2`;

/**
 * createMembers' insert: the whole list in one statement, one array parameter per column. A member is inserted
 * when it is the first of the list with its id and with its lower(username), and no stored member has either:
 * the NOT EXISTS reads the members_lower_username index, and ON CONFLICT skips an id taken, or an exact
 * username taken by a transaction that committed meanwhile. RETURNING gives the ids inserted.
 */
const INSERT_MEMBERS_IF_FREE_SQL = `
  WITH list AS (
    SELECT *,
      row_number() OVER (PARTITION BY id ORDER BY position) AS id_rank,
      row_number() OVER (PARTITION BY lower(username) ORDER BY position) AS username_rank
    FROM unnest($1::TEXT[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::BOOLEAN[], $7::BIGINT[], $8::TEXT[], $9::TEXT[])
      WITH ORDINALITY AS list (id, username, email, first_name, last_name, enabled, created_at, attributes, password_hash, position)
  )
  INSERT INTO members (${MEMBER_COLUMNS}, password_hash)
    SELECT id, username, email, first_name, last_name, enabled, created_at, attributes, password_hash FROM list
    WHERE id_rank = 1 AND username_rank = 1
      AND NOT EXISTS (SELECT 1 FROM members m WHERE lower(m.username) = lower(list.username))
    ORDER BY position
  ON CONFLICT DO NOTHING
  RETURNING id`;

/** One statement, so that a change never mixes with another's; a NULL parameter leaves its column as it is. */
const UPDATE_MEMBER_SQL = `
  UPDATE members SET
    email = COALESCE($2::TEXT, email),
    first_name = COALESCE($3::TEXT, first_name),
    last_name = COALESCE($4::TEXT, last_name),
    attributes = COALESCE($5::TEXT, attributes)
  WHERE id = $1
  RETURNING ${MEMBER_COLUMNS}`;

/**
 * One statement, so that concurrent failures on one key never lose a count. Every SET expression reads the row
 * as it was before the update; a window that ended at or before now starts again at 1. locked_until is untouched.
 */
const RECORD_FAILURE_SQL = `
  INSERT INTO throttles (${THROTTLE_COLUMNS}) VALUES ($1, 1, $2, NULL)
  ON CONFLICT (key) DO UPDATE SET
    failures = CASE WHEN throttles.window_started_at + $3 <= excluded.window_started_at
      THEN 1 ELSE throttles.failures + 1 END,
    window_started_at = CASE WHEN throttles.window_started_at + $3 <= excluded.window_started_at
      THEN excluded.window_started_at ELSE throttles.window_started_at END
  RETURNING ${THROTTLE_COLUMNS}`;

/**
 * Without a "now" to start a window at, the new count's window starts when the lock ends: the first failure
 * after the lock counts 1 either way.
 */
const LOCK_THROTTLE_SQL = `
  INSERT INTO throttles (${THROTTLE_COLUMNS}) VALUES ($1, 0, $2, $2)
  ON CONFLICT (key) DO UPDATE SET
    failures = 0, window_started_at = excluded.window_started_at, locked_until = excluded.locked_until`;

/**
 * A new factor starts unconfirmed, whatever the row says, and with no step used: the old factor's state goes
 * with it.
 */
const REPLACE_SECOND_FACTOR_SQL = `
  INSERT INTO member_second_factors (${SECOND_FACTOR_COLUMNS}) VALUES ($1, $2, $3, NULL, NULL)
  ON CONFLICT (member_id) DO UPDATE SET
    secret_sealed = excluded.secret_sealed, created_at = excluded.created_at, confirmed_at = NULL, last_step = NULL`;

/**
 * One statement: of two requests with a code of the same step, on one instance or several, exactly one changes
 * the row (under READ COMMITTED the second waits for the first's row lock, then finds its condition false).
 */
const USE_SECOND_FACTOR_STEP_SQL = `
  UPDATE member_second_factors SET last_step = $2
  WHERE member_id = $1 AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < $2)`;

/**
 * DELETE … LIMIT is CockroachDB's, not PostgreSQL's; a primary-key subquery limits the batch in both. Ended
 * sessions and stale throttles are rows no request still writes, so a batch waits for no one and blocks no one.
 */
function batchedDeleteSql(table: 'sessions' | 'throttles', keyColumn: 'id' | 'key', where: string): string {
  return `DELETE FROM ${table} WHERE ${keyColumn} IN (
    SELECT ${keyColumn} FROM ${table} WHERE ${where} LIMIT ${PURGE_BATCH_SIZE})`;
}

/** The Bind message counts its parameters in 16 bits: one statement takes at most this many. */
const MAX_PARAMETERS = 65_535;
const SESSION_COLUMN_COUNT = SESSION_COLUMNS.split(', ').length;
/** createSessions inserts as many rows per statement as the parameter limit lets it (5,041). */
const SESSIONS_PER_INSERT = Math.floor(MAX_PARAMETERS / SESSION_COLUMN_COUNT);

/** An insert of `rows` sessions in one statement, their values numbered row after row in SESSION_COLUMNS order. */
function insertSessionsSql(rows: number): string {
  const tuples = Array.from({ length: rows }, (_, row) => {
    const placeholders = Array.from({ length: SESSION_COLUMN_COUNT }, (_, column) => `$${row * SESSION_COLUMN_COUNT + column + 1}`);
    return `(${placeholders.join(', ')})`;
  });
  return `INSERT INTO sessions (${SESSION_COLUMNS}) VALUES ${tuples.join(', ')}`;
}

/** A session's values in SESSION_COLUMNS order, as insertSessionsSql numbers them. */
function sessionValues(session: SessionRow): unknown[] {
  const record = fromSession(session);
  return [
    record.id,
    record.member_id,
    record.cookie_domain,
    record.cookie_hash,
    record.token_hash,
    record.token_sealed,
    record.cookie_sealed,
    record.created_at,
    record.last_seen_at,
    record.expires_at,
    record.revoked_at,
    record.client_address,
    record.user_agent,
  ];
}

const SQL = {
  insertCaller: 'INSERT INTO callers (name, enabled, created_at) VALUES ($1, TRUE, $2) RETURNING id',
  callerByName: `SELECT ${CALLER_COLUMNS} FROM callers WHERE name = $1`,
  callers: `SELECT ${CALLER_COLUMNS} FROM callers ORDER BY name`,
  setCallerEnabled: 'UPDATE callers SET enabled = $1 WHERE id = $2',
  deleteCaller: 'DELETE FROM callers WHERE id = $1',
  insertCallerPassword: 'INSERT INTO caller_passwords (caller_id, password_hash, created_at) VALUES ($1, $2, $3) RETURNING id',
  callerPasswords: 'SELECT id, caller_id, created_at FROM caller_passwords WHERE caller_id = $1 ORDER BY id',
  // `id IS DISTINCT FROM NULL` holds for every row, so a missing keepId deletes them all.
  deleteCallerPasswords: 'DELETE FROM caller_passwords WHERE caller_id = $1 AND id IS DISTINCT FROM $2',
  callerByPasswordHash: `SELECT c.id, c.name, c.enabled, c.created_at
    FROM caller_passwords p JOIN callers c ON c.id = p.caller_id
    WHERE p.password_hash = $1`,

  insertMember: `INSERT INTO members (${MEMBER_COLUMNS}, password_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
  insertMembersIfFree: INSERT_MEMBERS_IF_FREE_SQL,
  memberUsernames: 'SELECT id, username FROM members WHERE id = ANY($1::TEXT[])',
  member: `SELECT ${MEMBER_COLUMNS} FROM members WHERE id = $1`,
  members: `SELECT ${MEMBER_COLUMNS} FROM members ORDER BY id`,
  updateMember: UPDATE_MEMBER_SQL,
  setMemberEnabled: 'UPDATE members SET enabled = $1 WHERE id = $2',
  deleteMember: 'DELETE FROM members WHERE id = $1',
  membersByLogin: MEMBERS_BY_LOGIN_SQL,
  memberCredentials: `SELECT ${MEMBER_COLUMNS}, password_hash FROM members WHERE id = $1`,
  setMemberPassword: 'UPDATE members SET password_hash = $1 WHERE id = $2',

  insertCallerOrigin: `INSERT INTO caller_origins (${CALLER_ORIGIN_COLUMNS}) VALUES ($1, $2, $3, $4)`,
  deleteCallerOrigin: 'DELETE FROM caller_origins WHERE caller_id = $1 AND origin = $2',
  callerOrigins: `SELECT ${CALLER_ORIGIN_COLUMNS} FROM caller_origins ORDER BY caller_id, origin`,
  callerOriginsOfCaller: `SELECT ${CALLER_ORIGIN_COLUMNS} FROM caller_origins WHERE caller_id = $1 ORDER BY origin`,
  originGrants: `SELECT o.caller_id, o.origin, o.receives_token, o.created_at
    FROM caller_origins o JOIN callers c ON c.id = o.caller_id
    WHERE o.origin = $1 AND c.enabled
    ORDER BY o.caller_id`,

  recordFailure: RECORD_FAILURE_SQL,
  lockThrottle: LOCK_THROTTLE_SQL,
  throttle: `SELECT ${THROTTLE_COLUMNS} FROM throttles WHERE key = $1`,
  deleteThrottle: 'DELETE FROM throttles WHERE key = $1',
  purgeThrottles: batchedDeleteSql('throttles', 'key', 'window_started_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)'),
  purgeSessions: batchedDeleteSql('sessions', 'id', 'expires_at <= $1 OR revoked_at <= $1 OR last_seen_at <= $2'),
  ping: 'SELECT 1',
  claimSetting: 'INSERT INTO deployment_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
  setting: 'SELECT value FROM deployment_settings WHERE name = $1',

  insertSession: insertSessionsSql(1),
  sessionByTokenHash: sessionWithMemberSql('token_hash', '$1'),
  sessionByCookieHash: sessionWithMemberSql('cookie_hash', '$1'),
  // One statement for the whole batch; a session listed twice moves to the later time. The rows are locked in
  // id order first, so that two instances writing overlapping batches at once wait for each other instead of
  // deadlocking.
  touchSessions: `WITH touches AS (
      SELECT id, max(last_seen_at) AS last_seen_at FROM unnest($1::TEXT[], $2::BIGINT[]) AS t (id, last_seen_at) GROUP BY id
    ), locked AS (
      SELECT sessions.id FROM sessions JOIN touches ON touches.id = sessions.id ORDER BY sessions.id FOR UPDATE OF sessions
    )
    UPDATE sessions SET last_seen_at = GREATEST(sessions.last_seen_at, touches.last_seen_at)
    FROM touches WHERE sessions.id = touches.id AND sessions.id IN (SELECT id FROM locked)`,
  revokeSession: 'UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
  revokeMemberSessions: 'UPDATE sessions SET revoked_at = $1 WHERE member_id = $2 AND revoked_at IS NULL AND expires_at > $1',
  sessions: sessionListSql(''),
  sessionsOfMember: sessionListSql('WHERE member_id = $1'),
  liveSessions: sessionListSql('WHERE revoked_at IS NULL AND expires_at > $1'),
  liveSessionsOfMember: sessionListSql('WHERE member_id = $1 AND revoked_at IS NULL AND expires_at > $2'),

  secondFactor: `SELECT ${SECOND_FACTOR_COLUMNS} FROM member_second_factors WHERE member_id = $1`,
  replaceSecondFactor: REPLACE_SECOND_FACTOR_SQL,
  confirmSecondFactor: 'UPDATE member_second_factors SET confirmed_at = $2, last_step = $3 WHERE member_id = $1 AND confirmed_at IS NULL',
  useSecondFactorStep: USE_SECOND_FACTOR_STEP_SQL,
  deleteSecondFactor: 'DELETE FROM member_second_factors WHERE member_id = $1',
  // One statement for all the codes; a hash given twice is one code.
  insertRecoveryCodes: `INSERT INTO member_recovery_codes (member_id, code_hash, used_at)
    SELECT $1, code_hash, NULL FROM unnest($2::TEXT[]) AS codes (code_hash)
    ON CONFLICT (member_id, code_hash) DO NOTHING`,
  useRecoveryCode: 'UPDATE member_recovery_codes SET used_at = $3 WHERE member_id = $1 AND code_hash = $2 AND used_at IS NULL',
  countRecoveryCodes: 'SELECT COUNT(*) AS count FROM member_recovery_codes WHERE member_id = $1 AND used_at IS NULL',
  deleteRecoveryCodes: 'DELETE FROM member_recovery_codes WHERE member_id = $1',
} as const;

/** A statement inside a transaction: on the transaction's own connection. */
type TransactionQuery = (sql: string, values: unknown[]) => Promise<pg.QueryResult>;

/**
 * The shared store for several instances: PostgreSQL, or a database that speaks its dialect (CockroachDB,
 * YugabyteDB). Every method is one parameterised statement on a pooled connection, except the purges, which
 * repeat one batch until it comes back short, and the bulk inserts (members, sessions) and the second-factor
 * writes that change several tables, each one transaction on one connection.
 */
export class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  #closed: Promise<void> | undefined;

  /** Connects lazily: nothing reaches the server until the first call (ping() or migrate() at start-up). */
  constructor(options: PostgresStoreOptions) {
    const { schema } = options;
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
      throw new Error(`schema "${schema}" must be a lower-case identifier (letters, digits and _)`);
    }
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
      idleTimeoutMillis: IDLE_TIMEOUT_MS,
      statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      application_name: APPLICATION_NAME,
      keepAlive: true,
      types: TYPES,
      ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
    });
    // An idle connection that breaks (a server restart, a failover) is reported here and dropped by the pool;
    // the next query opens a new one. Without a listener, the error would end the process.
    this.#pool.on('error', () => {});
  }

  async #rows<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    return (await this.#pool.query<R>(sql, values)).rows;
  }

  async #row<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<R | undefined> {
    return (await this.#rows<R>(sql, values))[0];
  }

  async #changes(sql: string, values: unknown[]): Promise<number> {
    return (await this.#pool.query(sql, values)).rowCount ?? 0;
  }

  async #purge(sql: string, values: unknown[]): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.#changes(sql, values);
      total += deleted;
      if (deleted < PURGE_BATCH_SIZE) return total;
    }
  }

  /** Runs work in one transaction on one connection: committed when it resolves, rolled back when it rejects. */
  #transaction<T>(work: (query: TransactionQuery) => Promise<T>): Promise<T> {
    return inTransaction(this.#pool, (client) => work((sql, values) => client.query(sql, values)));
  }

  async migrate(): Promise<void> {
    await migrateSchema(this.#pool);
  }

  /** Waits for queries in flight, then closes every connection. Calling it again is harmless. */
  async close(): Promise<void> {
    this.#closed ??= this.#pool.end();
    await this.#closed;
  }

  async ping(): Promise<void> {
    await this.#pool.query(SQL.ping);
  }

  async claimSetting(name: string, value: string): Promise<string> {
    await this.#changes(SQL.claimSetting, [name, value]);
    return ((await this.#row<{ value: string }>(SQL.setting, [name])) as { value: string }).value;
  }

  async purgeSessions(endedBefore: number, idleBefore: number): Promise<number> {
    return this.#purge(SQL.purgeSessions, [endedBefore, idleBefore]);
  }

  async purgeThrottles(before: number): Promise<number> {
    return this.#purge(SQL.purgeThrottles, [before]);
  }

  async createCaller(name: string, createdAt: number): Promise<CallerRow> {
    const record = await rethrowConflict(
      this.#row<{ id: number }>(SQL.insertCaller, [name, createdAt]),
      () => `a caller named "${name}" already exists`,
    );
    return { id: insertedId(record, 'caller'), name, enabled: true, createdAt };
  }

  async getCallerByName(name: string): Promise<CallerRow | null> {
    return mapOrNull(await this.#row<CallerRecord<boolean>>(SQL.callerByName, [name]), toCaller);
  }

  async listCallers(): Promise<CallerRow[]> {
    return (await this.#rows<CallerRecord<boolean>>(SQL.callers)).map(toCaller);
  }

  async setCallerEnabled(callerId: number, enabled: boolean): Promise<void> {
    await this.#changes(SQL.setCallerEnabled, [enabled, callerId]);
  }

  async deleteCaller(callerId: number): Promise<void> {
    await this.#changes(SQL.deleteCaller, [callerId]);
  }

  async addCallerPassword(callerId: number, passwordHash: string, createdAt: number): Promise<CallerPasswordRow> {
    const record = await rethrowConflict(
      this.#row<{ id: number }>(SQL.insertCallerPassword, [callerId, passwordHash, createdAt]),
      () => 'this caller password is already in use',
    );
    return { id: insertedId(record, 'caller password'), callerId, createdAt };
  }

  async listCallerPasswords(callerId: number): Promise<CallerPasswordRow[]> {
    return (await this.#rows<CallerPasswordRecord>(SQL.callerPasswords, [callerId])).map(toCallerPassword);
  }

  async deleteCallerPasswords(callerId: number, keepId?: number): Promise<number> {
    return this.#changes(SQL.deleteCallerPasswords, [callerId, keepId ?? null]);
  }

  async findCallerByPasswordHash(passwordHash: string): Promise<CallerRow | null> {
    return mapOrNull(await this.#row<CallerRecord<boolean>>(SQL.callerByPasswordHash, [passwordHash]), toCaller);
  }

  async createMember(member: NewMember): Promise<MemberRow> {
    const record = fromNewMember(member);
    await rethrowConflict(
      this.#changes(SQL.insertMember, [
        record.id,
        record.username,
        record.email,
        record.first_name,
        record.last_name,
        record.enabled,
        record.created_at,
        record.attributes,
        record.password_hash,
      ]),
      () => `a member with id "${member.id}" or username "${member.username}" already exists`,
    );
    return toMember(record);
  }

  async createMembers(members: readonly NewMember[]): Promise<NewMemberOutcome[]> {
    if (members.length === 0) return [];
    const records = members.map(fromNewMember);
    const column = <K extends keyof MemberCredentialsRecord<boolean>>(key: K) => records.map((record) => record[key]);
    const columns = [
      column('id'),
      column('username'),
      column('email'),
      column('first_name'),
      column('last_name'),
      column('enabled'),
      column('created_at'),
      column('attributes'),
      column('password_hash'),
    ];
    return this.#transaction(async (query) => {
      const inserted = new Set((await query(SQL.insertMembersIfFree, columns)).rows.map((row: { id: string }) => row.id));
      // Only the first member of the list with an inserted id is the one inserted.
      const created = records.map((record) => inserted.delete(record.id));
      const skipped = [...new Set(records.filter((_, index) => !created[index]).map((record) => record.id))];
      const stored =
        skipped.length === 0 ? [] : (await query(SQL.memberUsernames, [skipped])).rows as Array<{ id: string; username: string }>;
      return newMemberOutcomes(members, created, new Map(stored.map((row) => [row.id, row.username])));
    });
  }

  async getMember(id: string): Promise<MemberRow | null> {
    return mapOrNull(await this.#row<MemberRecord<boolean>>(SQL.member, [id]), toMember);
  }

  async listMembers(): Promise<MemberRow[]> {
    return (await this.#rows<MemberRecord<boolean>>(SQL.members)).map(toMember);
  }

  async updateMember(id: string, changes: MemberChanges): Promise<MemberRow | null> {
    const record = fromMemberChanges(changes);
    const values = [id, record.email, record.first_name, record.last_name, record.attributes];
    return mapOrNull(await this.#row<MemberRecord<boolean>>(SQL.updateMember, values), toMember);
  }

  async setMemberEnabled(id: string, enabled: boolean): Promise<boolean> {
    return (await this.#changes(SQL.setMemberEnabled, [enabled, id])) > 0;
  }

  async deleteMember(id: string): Promise<boolean> {
    return (await this.#changes(SQL.deleteMember, [id])) > 0;
  }

  async findMembersByLogin(login: string): Promise<MemberCredentials[]> {
    return (await this.#rows<MemberCredentialsRecord<boolean>>(SQL.membersByLogin, [login])).map(toMemberCredentials);
  }

  async getMemberCredentials(id: string): Promise<MemberCredentials | null> {
    return mapOrNull(await this.#row<MemberCredentialsRecord<boolean>>(SQL.memberCredentials, [id]), toMemberCredentials);
  }

  async setMemberPassword(id: string, passwordHash: string | null): Promise<boolean> {
    return (await this.#changes(SQL.setMemberPassword, [passwordHash, id])) > 0;
  }

  async addCallerOrigin(row: CallerOriginRow): Promise<void> {
    await rethrowConflict(
      this.#changes(SQL.insertCallerOrigin, [row.callerId, row.origin, row.receivesToken, row.createdAt]),
      () => `caller ${row.callerId} already registered the origin "${row.origin}"`,
    );
  }

  async removeCallerOrigin(callerId: number, origin: string): Promise<boolean> {
    return (await this.#changes(SQL.deleteCallerOrigin, [callerId, origin])) > 0;
  }

  async listCallerOrigins(callerId?: number): Promise<CallerOriginRow[]> {
    const records =
      callerId === undefined
        ? await this.#rows<CallerOriginRecord<boolean>>(SQL.callerOrigins)
        : await this.#rows<CallerOriginRecord<boolean>>(SQL.callerOriginsOfCaller, [callerId]);
    return records.map(toCallerOrigin);
  }

  async findOriginGrants(origin: string): Promise<CallerOriginRow[]> {
    return (await this.#rows<CallerOriginRecord<boolean>>(SQL.originGrants, [origin])).map(toCallerOrigin);
  }

  async recordFailure(key: string, now: number, windowMs: number): Promise<ThrottleRow> {
    const record = await this.#row<ThrottleRecord>(SQL.recordFailure, [key, now, windowMs]);
    if (record === undefined) throw new Error(`recording a failure for throttle "${key}" returned no row`);
    return toThrottle(record);
  }

  async lockThrottle(key: string, until: number): Promise<void> {
    await this.#changes(SQL.lockThrottle, [key, until]);
  }

  async getThrottle(key: string): Promise<ThrottleRow | null> {
    return mapOrNull(await this.#row<ThrottleRecord>(SQL.throttle, [key]), toThrottle);
  }

  async clearThrottle(key: string): Promise<void> {
    await this.#changes(SQL.deleteThrottle, [key]);
  }

  async createSession(session: SessionRow): Promise<void> {
    await rethrowConflict(
      this.#changes(SQL.insertSession, sessionValues(session)),
      () => `session "${session.id}" or one of its hashes already exists`,
    );
  }

  async createSessions(sessions: readonly SessionRow[]): Promise<void> {
    if (sessions.length === 0) return;
    await rethrowConflict(
      this.#transaction(async (query) => {
        for (let start = 0; start < sessions.length; start += SESSIONS_PER_INSERT) {
          const rows = sessions.slice(start, start + SESSIONS_PER_INSERT);
          await query(insertSessionsSql(rows.length), rows.flatMap(sessionValues));
        }
      }),
      () => 'a session of the list, or one of its hashes, already exists or repeats an earlier one of the list',
    );
  }

  async findSessionByTokenHash(tokenHash: string): Promise<SessionWithMember | null> {
    return mapOrNull(await this.#row<SessionMemberRecord<boolean>>(SQL.sessionByTokenHash, [tokenHash]), toSessionWithMember);
  }

  async findSessionByCookieHash(cookieHash: string): Promise<SessionWithMember | null> {
    return mapOrNull(await this.#row<SessionMemberRecord<boolean>>(SQL.sessionByCookieHash, [cookieHash]), toSessionWithMember);
  }

  async touchSessions(touches: ReadonlyArray<{ id: string; lastSeenAt: number }>): Promise<void> {
    if (touches.length === 0) return;
    await this.#changes(SQL.touchSessions, [touches.map((t) => t.id), touches.map((t) => t.lastSeenAt)]);
  }

  async revokeSession(id: string, revokedAt: number): Promise<boolean> {
    return (await this.#changes(SQL.revokeSession, [revokedAt, id])) > 0;
  }

  async revokeMemberSessions(memberId: string, revokedAt: number): Promise<number> {
    return this.#changes(SQL.revokeMemberSessions, [revokedAt, memberId]);
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionRow[]> {
    const { memberId, liveAt } = filter;
    const [sql, values] =
      memberId === undefined
        ? liveAt === undefined
          ? [SQL.sessions, []]
          : [SQL.liveSessions, [liveAt]]
        : liveAt === undefined
          ? [SQL.sessionsOfMember, [memberId]]
          : [SQL.liveSessionsOfMember, [memberId, liveAt]];
    return (await this.#rows<SessionRecord>(sql, values)).map(toSession);
  }

  async getSecondFactor(memberId: string): Promise<SecondFactorRow | null> {
    return mapOrNull(await this.#row<SecondFactorRecord>(SQL.secondFactor, [memberId]), toSecondFactor);
  }

  async replaceSecondFactor(row: SecondFactorRow): Promise<void> {
    await this.#transaction(async (query) => {
      await query(SQL.replaceSecondFactor, [row.memberId, row.secretSealed, row.createdAt]);
      await query(SQL.deleteRecoveryCodes, [row.memberId]);
    });
  }

  async confirmSecondFactor(memberId: string, confirmedAt: number, step: number, recoveryCodeHashes: readonly string[]): Promise<boolean> {
    return this.#transaction(async (query) => {
      // The UPDATE's row lock holds off a concurrent confirmation or replacement until this one commits.
      if (((await query(SQL.confirmSecondFactor, [memberId, confirmedAt, step])).rowCount ?? 0) === 0) return false;
      // An unconfirmed factor has no codes (replaceSecondFactor deleted them); none may linger from before.
      await query(SQL.deleteRecoveryCodes, [memberId]);
      await query(SQL.insertRecoveryCodes, [memberId, [...recoveryCodeHashes]]);
      return true;
    });
  }

  async useSecondFactorStep(memberId: string, step: number): Promise<boolean> {
    return (await this.#changes(SQL.useSecondFactorStep, [memberId, step])) > 0;
  }

  async useRecoveryCode(memberId: string, codeHash: string, usedAt: number): Promise<boolean> {
    return (await this.#changes(SQL.useRecoveryCode, [memberId, codeHash, usedAt])) > 0;
  }

  async countRecoveryCodes(memberId: string): Promise<number> {
    return ((await this.#row<{ count: number }>(SQL.countRecoveryCodes, [memberId])) as { count: number }).count;
  }

  async deleteSecondFactor(memberId: string): Promise<boolean> {
    return this.#transaction(async (query) => {
      await query(SQL.deleteRecoveryCodes, [memberId]);
      return ((await query(SQL.deleteSecondFactor, [memberId])).rowCount ?? 0) > 0;
    });
  }
}

/** unique_violation. A foreign_key_violation (23503: an unknown caller or member) rejects as it is. */
const CONFLICT_CODE = '23505';

async function rethrowConflict<T>(write: Promise<T>, message: () => string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    // By code, not instanceof: pg's DatabaseError may come from another module instance (another jest realm).
    if ((error as { code?: unknown }).code === CONFLICT_CODE) throw new StoreConflictError(message());
    throw error;
  }
}

function insertedId(record: { id: number } | undefined, what: string): number {
  if (record === undefined) throw new Error(`inserting a ${what} returned no id`);
  return record.id;
}
