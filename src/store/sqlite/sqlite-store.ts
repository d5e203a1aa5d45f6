import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
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
  fromSecondFactor,
  fromSession,
  mapOrNull,
  MEMBER_COLUMNS,
  newMemberOutcomes,
  type MemberChangesRecord,
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

/**
 * Purges delete in batches and leave the event loop to the calls between them: SQLite's calls are
 * synchronous, so one statement over a million ended sessions would hold every request for a minute. A
 * deleted session costs from a few to about 90 microseconds (its seven indexes, on pages in the cache or
 * not), so the batch size follows what the last batch cost: each aims at PURGE_BATCH_TARGET_MS, between
 * PURGE_BATCH_MIN and PURGE_BATCH_MAX rows. After each batch the purge waits as long as the batch took, so
 * that it never takes more than half of the event loop from the calls: a purge of a million sessions then
 * takes minutes instead of one, in the background.
 */
const PURGE_BATCH_TARGET_MS = 10;
const PURGE_BATCH_MIN = 16;
const PURGE_BATCH_MAX = 2048;
const PURGE_BATCH_FIRST = 128;

/** Runs one batch after another, paced as above, until one comes back short. */
async function inBatches(batch: (limit: number) => number): Promise<number> {
  let total = 0;
  let limit = PURGE_BATCH_FIRST;
  for (;;) {
    const startedAt = performance.now();
    const deleted = batch(limit);
    total += deleted;
    if (deleted < limit) return total;
    const took = performance.now() - startedAt;
    if (took > PURGE_BATCH_TARGET_MS * 1.5) limit = Math.max(PURGE_BATCH_MIN, Math.floor(limit / 2));
    else if (took < PURGE_BATCH_TARGET_MS / 2) limit = Math.min(PURGE_BATCH_MAX, limit * 2);
    await sleep(Math.ceil(took));
  }
}

/** How long a write waits for another process's write lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/** SQLite has no boolean type: flags are stored as 0 or 1. */
const FLAGS: FlagCodec<number> = { toBoolean: (flag) => flag === 1, fromBoolean: (value) => (value ? 1 : 0) };

const { toCaller, fromNewMember, toMember, toMemberCredentials, fromCallerOrigin, toCallerOrigin, toSessionWithMember } =
  flagRecordMappers(FLAGS);

/**
 * Username matches rank before email matches; a member matching both is listed once. Two rows are enough for the
 * sign-in page to tell a unique login from an ambiguous one.
 */
const MEMBERS_BY_LOGIN_SQL = `
  SELECT ${MEMBER_COLUMNS}, password_hash FROM (
    SELECT ${MEMBER_COLUMNS}, password_hash, 0 AS rank FROM members WHERE lower(username) = lower(@login)
    UNION ALL
    SELECT ${MEMBER_COLUMNS}, password_hash, 1 AS rank FROM members
      WHERE lower(email) = lower(@login) AND lower(username) <> lower(@login)
  ) matches
  ORDER BY rank, id
  LIMIT 2`;

/**
 * createMembers' insert: skipped, not failing, when the id or the username is taken, the username ignoring
 * case as findMembersByLogin folds it (lower() folds ASCII letters only in SQLite). The members_lower_username
 * index serves the NOT EXISTS. (The WHERE also keeps SQLite from reading ON CONFLICT as a join's ON.)
 */
const INSERT_MEMBER_IF_FREE_SQL = `
  INSERT INTO members (${MEMBER_COLUMNS}, password_hash)
    SELECT @id, @username, @email, @first_name, @last_name, @enabled, @created_at, @attributes, @password_hash
    WHERE NOT EXISTS (SELECT 1 FROM members WHERE lower(username) = lower(@username))
  ON CONFLICT DO NOTHING`;

/** SQLite's lower() without ICU, as better-sqlite3 builds it: ASCII letters only. */
function sqliteLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** One statement, so that a change never mixes with another's; a NULL parameter leaves its column as it is. */
const UPDATE_MEMBER_SQL = `
  UPDATE members SET
    email = COALESCE(@email, email),
    first_name = COALESCE(@first_name, first_name),
    last_name = COALESCE(@last_name, last_name),
    attributes = COALESCE(@attributes, attributes)
  WHERE id = @id
  RETURNING ${MEMBER_COLUMNS}`;

/**
 * One statement, so that concurrent failures on one key never lose a count. Every SET expression reads the row
 * as it was before the update; a window that ended at or before now starts again at 1. locked_until is untouched.
 */
const RECORD_FAILURE_SQL = `
  INSERT INTO throttles (${THROTTLE_COLUMNS}) VALUES (@key, 1, @now, NULL)
  ON CONFLICT (key) DO UPDATE SET
    failures = CASE WHEN throttles.window_started_at + @window_ms <= excluded.window_started_at
      THEN 1 ELSE throttles.failures + 1 END,
    window_started_at = CASE WHEN throttles.window_started_at + @window_ms <= excluded.window_started_at
      THEN excluded.window_started_at ELSE throttles.window_started_at END
  RETURNING ${THROTTLE_COLUMNS}`;

/**
 * Without a "now" to start a window at, the new count's window starts when the lock ends: the first failure
 * after the lock counts 1 either way.
 */
const LOCK_THROTTLE_SQL = `
  INSERT INTO throttles (${THROTTLE_COLUMNS}) VALUES (@key, 0, @until, @until)
  ON CONFLICT (key) DO UPDATE SET
    failures = 0, window_started_at = excluded.window_started_at, locked_until = excluded.locked_until`;

/**
 * A new factor starts unconfirmed, whatever the row says, and with no step used: the old factor's state goes
 * with it.
 */
const REPLACE_SECOND_FACTOR_SQL = `
  INSERT INTO member_second_factors (${SECOND_FACTOR_COLUMNS}) VALUES (@member_id, @secret_sealed, @created_at, NULL, NULL)
  ON CONFLICT (member_id) DO UPDATE SET
    secret_sealed = excluded.secret_sealed, created_at = excluded.created_at, confirmed_at = NULL, last_step = NULL`;

/**
 * One statement: of two requests with a code of the same step, on one instance or several, exactly one changes
 * the row.
 */
const USE_SECOND_FACTOR_STEP_SQL = `
  UPDATE member_second_factors SET last_step = @step
  WHERE member_id = @member_id AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < @step)`;

function prepareSessionLists(db: Database.Database) {
  const list = <P extends unknown[]>(where: string) => db.prepare<P, SessionRecord>(sessionListSql(where));
  return {
    all: list<[]>(''),
    ofMember: list<[string]>('WHERE member_id = ?'),
    live: list<[number]>('WHERE revoked_at IS NULL AND expires_at > ?'),
    liveOfMember: list<[string, number]>('WHERE member_id = ? AND revoked_at IS NULL AND expires_at > ?'),
  };
}

function prepareStatements(db: Database.Database) {
  return {
    insertCaller: db.prepare<[string, number]>('INSERT INTO callers (name, enabled, created_at) VALUES (?, 1, ?)'),
    callerByName: db.prepare<[string], CallerRecord<number>>(`SELECT ${CALLER_COLUMNS} FROM callers WHERE name = ?`),
    callers: db.prepare<[], CallerRecord<number>>(`SELECT ${CALLER_COLUMNS} FROM callers ORDER BY name`),
    setCallerEnabled: db.prepare<[number, number]>('UPDATE callers SET enabled = ? WHERE id = ?'),
    deleteCaller: db.prepare<[number]>('DELETE FROM callers WHERE id = ?'),
    insertCallerPassword: db.prepare<[number, string, number]>(
      'INSERT INTO caller_passwords (caller_id, password_hash, created_at) VALUES (?, ?, ?)',
    ),
    callerPasswords: db.prepare<[number], CallerPasswordRecord>(
      'SELECT id, caller_id, created_at FROM caller_passwords WHERE caller_id = ? ORDER BY id',
    ),
    // `id IS NOT NULL` holds for every row, so a missing keepId deletes them all.
    deleteCallerPasswords: db.prepare<[number, number | null]>('DELETE FROM caller_passwords WHERE caller_id = ? AND id IS NOT ?'),
    callerByPasswordHash: db.prepare<[string], CallerRecord<number>>(
      `SELECT c.id, c.name, c.enabled, c.created_at
        FROM caller_passwords p JOIN callers c ON c.id = p.caller_id
        WHERE p.password_hash = ?`,
    ),

    insertMember: db.prepare<[MemberCredentialsRecord<number>]>(
      `INSERT INTO members (${MEMBER_COLUMNS}, password_hash)
        VALUES (@id, @username, @email, @first_name, @last_name, @enabled, @created_at, @attributes, @password_hash)`,
    ),
    insertMemberIfFree: db.prepare<[MemberCredentialsRecord<number>]>(INSERT_MEMBER_IF_FREE_SQL),
    memberUsername: db.prepare<[string], { username: string }>('SELECT username FROM members WHERE id = ?'),
    member: db.prepare<[string], MemberRecord<number>>(`SELECT ${MEMBER_COLUMNS} FROM members WHERE id = ?`),
    members: db.prepare<[], MemberRecord<number>>(`SELECT ${MEMBER_COLUMNS} FROM members ORDER BY id`),
    updateMember: db.prepare<[MemberChangesRecord & { id: string }], MemberRecord<number>>(UPDATE_MEMBER_SQL),
    setMemberEnabled: db.prepare<[number, string]>('UPDATE members SET enabled = ? WHERE id = ?'),
    deleteMember: db.prepare<[string]>('DELETE FROM members WHERE id = ?'),
    membersByLogin: db.prepare<[{ login: string }], MemberCredentialsRecord<number>>(MEMBERS_BY_LOGIN_SQL),
    memberCredentials: db.prepare<[string], MemberCredentialsRecord<number>>(
      `SELECT ${MEMBER_COLUMNS}, password_hash FROM members WHERE id = ?`,
    ),
    setMemberPassword: db.prepare<[string | null, string]>('UPDATE members SET password_hash = ? WHERE id = ?'),

    insertCallerOrigin: db.prepare<[CallerOriginRecord<number>]>(
      `INSERT INTO caller_origins (${CALLER_ORIGIN_COLUMNS}) VALUES (@caller_id, @origin, @receives_token, @created_at)`,
    ),
    deleteCallerOrigin: db.prepare<[number, string]>('DELETE FROM caller_origins WHERE caller_id = ? AND origin = ?'),
    callerOrigins: db.prepare<[], CallerOriginRecord<number>>(
      `SELECT ${CALLER_ORIGIN_COLUMNS} FROM caller_origins ORDER BY caller_id, origin`,
    ),
    callerOriginsOfCaller: db.prepare<[number], CallerOriginRecord<number>>(
      `SELECT ${CALLER_ORIGIN_COLUMNS} FROM caller_origins WHERE caller_id = ? ORDER BY origin`,
    ),
    originGrants: db.prepare<[string], CallerOriginRecord<number>>(
      `SELECT o.caller_id, o.origin, o.receives_token, o.created_at
        FROM caller_origins o JOIN callers c ON c.id = o.caller_id
        WHERE o.origin = ? AND c.enabled = 1
        ORDER BY o.caller_id`,
    ),

    recordFailure: db.prepare<[{ key: string; now: number; window_ms: number }], ThrottleRecord>(RECORD_FAILURE_SQL),
    lockThrottle: db.prepare<[{ key: string; until: number }]>(LOCK_THROTTLE_SQL),
    throttle: db.prepare<[string], ThrottleRecord>(`SELECT ${THROTTLE_COLUMNS} FROM throttles WHERE key = ?`),
    deleteThrottle: db.prepare<[string]>('DELETE FROM throttles WHERE key = ?'),
    purgeThrottles: db.prepare<[{ before: number; limit: number }]>(
      `DELETE FROM throttles WHERE rowid IN (SELECT rowid FROM throttles
        WHERE window_started_at <= @before AND (locked_until IS NULL OR locked_until <= @before) LIMIT @limit)`,
    ),
    purgeSessions: db.prepare<[{ ended_before: number; idle_before: number; limit: number }]>(
      `DELETE FROM sessions WHERE rowid IN (SELECT rowid FROM sessions
        WHERE expires_at <= @ended_before OR revoked_at <= @ended_before OR last_seen_at <= @idle_before LIMIT @limit)`,
    ),
    ping: db.prepare('SELECT 1'),
    claimSetting: db.prepare<[string, string]>('INSERT INTO deployment_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING'),
    setting: db.prepare<[string], { value: string }>('SELECT value FROM deployment_settings WHERE name = ?'),

    insertSession: db.prepare<[SessionRecord]>(
      `INSERT INTO sessions (${SESSION_COLUMNS})
        VALUES (@id, @member_id, @cookie_domain, @cookie_hash, @token_hash, @token_sealed, @cookie_sealed,
          @created_at, @last_seen_at, @expires_at, @revoked_at, @client_address, @user_agent)`,
    ),
    sessionByTokenHash: db.prepare<[string], SessionMemberRecord<number>>(sessionWithMemberSql('token_hash', '?')),
    sessionByCookieHash: db.prepare<[string], SessionMemberRecord<number>>(sessionWithMemberSql('cookie_hash', '?')),
    touchSession: db.prepare<[number, string]>('UPDATE sessions SET last_seen_at = MAX(last_seen_at, ?) WHERE id = ?'),
    revokeSession: db.prepare<[number, string]>('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    revokeMemberSessions: db.prepare<[number, string, number]>(
      'UPDATE sessions SET revoked_at = ? WHERE member_id = ? AND revoked_at IS NULL AND expires_at > ?',
    ),
    sessionLists: prepareSessionLists(db),

    secondFactor: db.prepare<[string], SecondFactorRecord>(
      `SELECT ${SECOND_FACTOR_COLUMNS} FROM member_second_factors WHERE member_id = ?`,
    ),
    replaceSecondFactor: db.prepare<[SecondFactorRecord]>(REPLACE_SECOND_FACTOR_SQL),
    confirmSecondFactor: db.prepare<[number, number, string]>(
      'UPDATE member_second_factors SET confirmed_at = ?, last_step = ? WHERE member_id = ? AND confirmed_at IS NULL',
    ),
    useSecondFactorStep: db.prepare<[{ member_id: string; step: number }]>(USE_SECOND_FACTOR_STEP_SQL),
    deleteSecondFactor: db.prepare<[string]>('DELETE FROM member_second_factors WHERE member_id = ?'),
    // A hash given twice is one code.
    insertRecoveryCode: db.prepare<[string, string]>(
      'INSERT INTO member_recovery_codes (member_id, code_hash, used_at) VALUES (?, ?, NULL) ON CONFLICT (member_id, code_hash) DO NOTHING',
    ),
    useRecoveryCode: db.prepare<[number, string, string]>(
      'UPDATE member_recovery_codes SET used_at = ? WHERE member_id = ? AND code_hash = ? AND used_at IS NULL',
    ),
    countRecoveryCodes: db.prepare<[string], { count: number }>(
      'SELECT COUNT(*) AS count FROM member_recovery_codes WHERE member_id = ? AND used_at IS NULL',
    ),
    deleteRecoveryCodes: db.prepare<[string]>('DELETE FROM member_recovery_codes WHERE member_id = ?'),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

/** The writes that change several rows at once, each one transaction. */
function prepareTransactions(db: Database.Database, statements: Statements) {
  return {
    createMembers: db.transaction((records: ReadonlyArray<MemberCredentialsRecord<number>>) => {
      // A repeat of an earlier member of the list is never inserted, even when that one was skipped.
      const ids = new Set<string>();
      const usernames = new Set<string>();
      const created = records.map((record) => {
        const username = sqliteLower(record.username);
        const repeat = ids.has(record.id) || usernames.has(username);
        ids.add(record.id);
        usernames.add(username);
        return !repeat && statements.insertMemberIfFree.run(record).changes > 0;
      });
      const storedUsernames = new Map<string, string>();
      records.forEach((record, index) => {
        if (created[index] || storedUsernames.has(record.id)) return;
        const stored = statements.memberUsername.get(record.id);
        if (stored) storedUsernames.set(record.id, stored.username);
      });
      return { created, storedUsernames };
    }),
    touchSessions: db.transaction((touches: ReadonlyArray<{ id: string; lastSeenAt: number }>) => {
      for (const { id, lastSeenAt } of touches) statements.touchSession.run(lastSeenAt, id);
    }),
    createSessions: db.transaction((sessions: readonly SessionRow[]) => {
      for (const session of sessions) statements.insertSession.run(fromSession(session));
    }),
    replaceSecondFactor: db.transaction((record: SecondFactorRecord) => {
      statements.replaceSecondFactor.run(record);
      statements.deleteRecoveryCodes.run(record.member_id);
    }),
    confirmSecondFactor: db.transaction(
      (memberId: string, confirmedAt: number, step: number, recoveryCodeHashes: readonly string[]): boolean => {
        if (statements.confirmSecondFactor.run(confirmedAt, step, memberId).changes === 0) return false;
        // An unconfirmed factor has no codes (replaceSecondFactor deleted them); none may linger from before.
        statements.deleteRecoveryCodes.run(memberId);
        for (const codeHash of recoveryCodeHashes) statements.insertRecoveryCode.run(memberId, codeHash);
        return true;
      },
    ),
    deleteSecondFactor: db.transaction((memberId: string): boolean => {
      statements.deleteRecoveryCodes.run(memberId);
      return statements.deleteSecondFactor.run(memberId).changes > 0;
    }),
  };
}

type Transactions = ReturnType<typeof prepareTransactions>;

/**
 * The embedded store. better-sqlite3 is synchronous; a single-file database answers these small indexed
 * queries in microseconds, so blocking the event loop for them costs less than a worker hop would.
 */
export class SqliteStore implements Store {
  readonly #db: Database.Database;
  #prepared: Statements | undefined;
  #preparedTransactions: Transactions | undefined;

  /** `filename` may be ':memory:'. The schema is not touched until migrate(). */
  constructor(filename: string) {
    this.#db = new Database(filename);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('foreign_keys = ON');
    this.#db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }

  /** Prepared on first use rather than in the constructor, because preparing needs the migrated tables. */
  get #statements(): Statements {
    this.#prepared ??= prepareStatements(this.#db);
    return this.#prepared;
  }

  get #transactions(): Transactions {
    this.#preparedTransactions ??= prepareTransactions(this.#db, this.#statements);
    return this.#preparedTransactions;
  }

  async migrate(): Promise<void> {
    migrateSchema(this.#db);
  }

  async close(): Promise<void> {
    this.#db.close();
  }

  async ping(): Promise<void> {
    this.#statements.ping.get();
  }

  async claimSetting(name: string, value: string): Promise<string> {
    this.#statements.claimSetting.run(name, value);
    return (this.#statements.setting.get(name) as { value: string }).value;
  }

  purgeSessions(endedBefore: number, idleBefore: number): Promise<number> {
    return inBatches((limit) => this.#statements.purgeSessions.run({ ended_before: endedBefore, idle_before: idleBefore, limit }).changes);
  }

  purgeThrottles(before: number): Promise<number> {
    return inBatches((limit) => this.#statements.purgeThrottles.run({ before, limit }).changes);
  }

  async createCaller(name: string, createdAt: number): Promise<CallerRow> {
    const result = rethrowConflict(
      () => this.#statements.insertCaller.run(name, createdAt),
      () => `a caller named "${name}" already exists`,
    );
    return { id: Number(result.lastInsertRowid), name, enabled: true, createdAt };
  }

  async getCallerByName(name: string): Promise<CallerRow | null> {
    return mapOrNull(this.#statements.callerByName.get(name), toCaller);
  }

  async listCallers(): Promise<CallerRow[]> {
    return this.#statements.callers.all().map(toCaller);
  }

  async setCallerEnabled(callerId: number, enabled: boolean): Promise<void> {
    this.#statements.setCallerEnabled.run(FLAGS.fromBoolean(enabled), callerId);
  }

  async deleteCaller(callerId: number): Promise<void> {
    this.#statements.deleteCaller.run(callerId);
  }

  async addCallerPassword(callerId: number, passwordHash: string, createdAt: number): Promise<CallerPasswordRow> {
    const result = rethrowConflict(
      () => this.#statements.insertCallerPassword.run(callerId, passwordHash, createdAt),
      () => 'this caller password is already in use',
    );
    return { id: Number(result.lastInsertRowid), callerId, createdAt };
  }

  async listCallerPasswords(callerId: number): Promise<CallerPasswordRow[]> {
    return this.#statements.callerPasswords.all(callerId).map(toCallerPassword);
  }

  async deleteCallerPasswords(callerId: number, keepId?: number): Promise<number> {
    return this.#statements.deleteCallerPasswords.run(callerId, keepId ?? null).changes;
  }

  async findCallerByPasswordHash(passwordHash: string): Promise<CallerRow | null> {
    return mapOrNull(this.#statements.callerByPasswordHash.get(passwordHash), toCaller);
  }

  async createMember(member: NewMember): Promise<MemberRow> {
    const record = fromNewMember(member);
    rethrowConflict(
      () => this.#statements.insertMember.run(record),
      () => `a member with id "${member.id}" or username "${member.username}" already exists`,
    );
    return toMember(record);
  }

  async createMembers(members: readonly NewMember[]): Promise<NewMemberOutcome[]> {
    if (members.length === 0) return [];
    const { created, storedUsernames } = this.#transactions.createMembers(members.map(fromNewMember));
    return newMemberOutcomes(members, created, storedUsernames);
  }

  async getMember(id: string): Promise<MemberRow | null> {
    return mapOrNull(this.#statements.member.get(id), toMember);
  }

  async listMembers(): Promise<MemberRow[]> {
    return this.#statements.members.all().map(toMember);
  }

  async updateMember(id: string, changes: MemberChanges): Promise<MemberRow | null> {
    return mapOrNull(this.#statements.updateMember.get({ ...fromMemberChanges(changes), id }), toMember);
  }

  async setMemberEnabled(id: string, enabled: boolean): Promise<boolean> {
    return this.#statements.setMemberEnabled.run(FLAGS.fromBoolean(enabled), id).changes > 0;
  }

  async deleteMember(id: string): Promise<boolean> {
    return this.#statements.deleteMember.run(id).changes > 0;
  }

  async findMembersByLogin(login: string): Promise<MemberCredentials[]> {
    return this.#statements.membersByLogin.all({ login }).map(toMemberCredentials);
  }

  async getMemberCredentials(id: string): Promise<MemberCredentials | null> {
    return mapOrNull(this.#statements.memberCredentials.get(id), toMemberCredentials);
  }

  async setMemberPassword(id: string, passwordHash: string | null): Promise<boolean> {
    return this.#statements.setMemberPassword.run(passwordHash, id).changes > 0;
  }

  async addCallerOrigin(row: CallerOriginRow): Promise<void> {
    rethrowConflict(
      () => this.#statements.insertCallerOrigin.run(fromCallerOrigin(row)),
      () => `caller ${row.callerId} already registered the origin "${row.origin}"`,
    );
  }

  async removeCallerOrigin(callerId: number, origin: string): Promise<boolean> {
    return this.#statements.deleteCallerOrigin.run(callerId, origin).changes > 0;
  }

  async listCallerOrigins(callerId?: number): Promise<CallerOriginRow[]> {
    const records =
      callerId === undefined ? this.#statements.callerOrigins.all() : this.#statements.callerOriginsOfCaller.all(callerId);
    return records.map(toCallerOrigin);
  }

  async findOriginGrants(origin: string): Promise<CallerOriginRow[]> {
    return this.#statements.originGrants.all(origin).map(toCallerOrigin);
  }

  async recordFailure(key: string, now: number, windowMs: number): Promise<ThrottleRow> {
    const record = this.#statements.recordFailure.get({ key, now, window_ms: windowMs });
    if (record === undefined) throw new Error(`recording a failure for throttle "${key}" returned no row`);
    return toThrottle(record);
  }

  async lockThrottle(key: string, until: number): Promise<void> {
    this.#statements.lockThrottle.run({ key, until });
  }

  async getThrottle(key: string): Promise<ThrottleRow | null> {
    return mapOrNull(this.#statements.throttle.get(key), toThrottle);
  }

  async clearThrottle(key: string): Promise<void> {
    this.#statements.deleteThrottle.run(key);
  }

  async createSession(session: SessionRow): Promise<void> {
    rethrowConflict(
      () => this.#statements.insertSession.run(fromSession(session)),
      () => `session "${session.id}" or one of its hashes already exists`,
    );
  }

  /**
   * One prepared insert per row, all in one transaction: SQLite has no round trips for a multi-row statement to
   * save. It holds the event loop until the whole list is in (about half a minute for a million sessions), which
   * suits seeding and imports, not a serving instance.
   */
  async createSessions(sessions: readonly SessionRow[]): Promise<void> {
    if (sessions.length === 0) return;
    rethrowConflict(
      () => this.#transactions.createSessions(sessions),
      () => 'a session of the list, or one of its hashes, already exists or repeats an earlier one of the list',
    );
  }

  async findSessionByTokenHash(tokenHash: string): Promise<SessionWithMember | null> {
    return mapOrNull(this.#statements.sessionByTokenHash.get(tokenHash), toSessionWithMember);
  }

  async findSessionByCookieHash(cookieHash: string): Promise<SessionWithMember | null> {
    return mapOrNull(this.#statements.sessionByCookieHash.get(cookieHash), toSessionWithMember);
  }

  async touchSessions(touches: ReadonlyArray<{ id: string; lastSeenAt: number }>): Promise<void> {
    this.#transactions.touchSessions(touches);
  }

  async revokeSession(id: string, revokedAt: number): Promise<boolean> {
    return this.#statements.revokeSession.run(revokedAt, id).changes > 0;
  }

  async revokeMemberSessions(memberId: string, revokedAt: number): Promise<number> {
    return this.#statements.revokeMemberSessions.run(revokedAt, memberId, revokedAt).changes;
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionRow[]> {
    const lists = this.#statements.sessionLists;
    const { memberId, liveAt } = filter;
    const records =
      memberId === undefined
        ? liveAt === undefined
          ? lists.all.all()
          : lists.live.all(liveAt)
        : liveAt === undefined
          ? lists.ofMember.all(memberId)
          : lists.liveOfMember.all(memberId, liveAt);
    return records.map(toSession);
  }

  async getSecondFactor(memberId: string): Promise<SecondFactorRow | null> {
    return mapOrNull(this.#statements.secondFactor.get(memberId), toSecondFactor);
  }

  async replaceSecondFactor(row: SecondFactorRow): Promise<void> {
    this.#transactions.replaceSecondFactor(fromSecondFactor(row));
  }

  async confirmSecondFactor(memberId: string, confirmedAt: number, step: number, recoveryCodeHashes: readonly string[]): Promise<boolean> {
    return this.#transactions.confirmSecondFactor(memberId, confirmedAt, step, recoveryCodeHashes);
  }

  async useSecondFactorStep(memberId: string, step: number): Promise<boolean> {
    return this.#statements.useSecondFactorStep.run({ member_id: memberId, step }).changes > 0;
  }

  async useRecoveryCode(memberId: string, codeHash: string, usedAt: number): Promise<boolean> {
    return this.#statements.useRecoveryCode.run(usedAt, memberId, codeHash).changes > 0;
  }

  async countRecoveryCodes(memberId: string): Promise<number> {
    return (this.#statements.countRecoveryCodes.get(memberId) as { count: number }).count;
  }

  async deleteSecondFactor(memberId: string): Promise<boolean> {
    return this.#transactions.deleteSecondFactor(memberId);
  }
}

const CONFLICT_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

function rethrowConflict<T>(write: () => T, message: () => string): T {
  try {
    return write();
  } catch (error) {
    // By code, not instanceof: better-sqlite3 registers its error class once per process, not per module load.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && CONFLICT_CODES.has(code)) throw new StoreConflictError(message());
    throw error;
  }
}
