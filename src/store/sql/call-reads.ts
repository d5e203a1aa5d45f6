import type { Store } from '../store.js';
import type { SqlDriver } from './driver.js';
import {
  type CallerRecord,
  flagRecordMappers,
  joinedMemberSelect,
  SESSION_SELECT,
  sessionByCookie,
  sessionByToken,
  type SessionMemberRecord,
  type ThrottleRecord,
} from './records.js';

/**
 * A partner call's reads as one statement: the throttle state, the caller of a password hash and the session
 * with its member, each left-joined to one row of the values asked ($1, $2, $3) so that a part not asked for
 * (its value NULL) or not found is NULL and the others still come; each is read by its unique index. The values
 * are a row the lookups join, not placeholders in the joins' conditions: SQLite runs the same joins with
 * `= $n` in their ON clauses several times slower (docs/performance.md). `session` finds the session by
 * `asked.session_hash` (sessionByToken or sessionByCookie).
 */
function callReadSql(session: string): string {
  return `SELECT t.key AS throttle_key, t.failures AS throttle_failures, t.window_started_at AS throttle_window_started_at,
      t.locked_until AS throttle_locked_until,
      c.id AS caller_id, c.name AS caller_name, c.enabled AS caller_enabled, c.created_at AS caller_created_at,
      ${SESSION_SELECT}, ${joinedMemberSelect('m')}
    FROM (SELECT CAST($1 AS TEXT) AS throttle_key, CAST($2 AS TEXT) AS password_hash, CAST($3 AS TEXT) AS session_hash) asked
    LEFT JOIN throttles t ON t.key = asked.throttle_key
    LEFT JOIN caller_passwords p ON p.password_hash = asked.password_hash
    LEFT JOIN callers c ON c.id = p.caller_id
    LEFT JOIN sessions s ON ${session}
    LEFT JOIN members m ON m.id = s.member_id`;
}

/** Every column NULL where its part was not asked for or not found. */
type Nullable<R> = { [Column in keyof R]: R[Column] | null };
type CallReadRecord = Nullable<{ [Column in keyof ThrottleRecord as `throttle_${Column}`]: ThrottleRecord[Column] }> &
  Nullable<{ [Column in keyof CallerRecord as `caller_${Column}`]: CallerRecord[Column] }> &
  Nullable<SessionMemberRecord>;

/** The reads of a partner call (AuthenticateToken, AuthenticateCookie…) that its caches do not answer. */
export function callReadMethods(db: SqlDriver) {
  const { toCaller, toSessionWithMember } = flagRecordMappers(db.flags);
  const SQL = {
    byToken: callReadSql(sessionByToken(db.dialect.sessionKey, 'asked.session_hash')),
    byCookie: callReadSql(sessionByCookie(db.dialect.sessionKey, 'asked.session_hash')),
  } as const;
  return {
    async readCall({ throttleKey, callerPasswordHash, session }) {
      const [sql, hash] = session !== null && 'cookieHash' in session ? [SQL.byCookie, session.cookieHash] : [SQL.byToken, session?.tokenHash ?? null];
      const record = await db.preparedRow<CallReadRecord>(sql, [throttleKey, callerPasswordHash, hash]);
      if (record === undefined) throw new Error('a call read returned no row');
      const { throttle_key: key, throttle_failures: failures, throttle_window_started_at: windowStartedAt, throttle_locked_until: lockedUntil } = record;
      const { caller_id: id, caller_name: name, caller_enabled: enabled, caller_created_at: createdAt } = record;
      return {
        throttle: key === null ? null : { key, failures: failures as number, windowStartedAt: windowStartedAt as number, lockedUntil },
        caller: id === null ? null : toCaller({ id, name, enabled, created_at: createdAt } as CallerRecord),
        session: record.id === null ? null : toSessionWithMember(record as SessionMemberRecord),
      };
    },
  } satisfies Partial<Store>;
}
