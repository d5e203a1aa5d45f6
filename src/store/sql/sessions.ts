import type { Store } from '../store.js';
import { rethrowConflict, type SqlDriver } from './driver.js';
import { insertRows, insertSql, type InsertTarget } from './insert-rows.js';
import {
  flagRecordMappers,
  joinedMemberSelect,
  LISTED_SESSION_COLUMNS,
  type ListedSessionRecord,
  mapOrNull,
  SESSION_SELECT,
  sessionByCookie,
  sessionByToken,
  type SessionMemberRecord,
  sessionValues,
  toListedSession,
} from './records.js';

/**
 * One read for the hot path: verification needs the session and its member together. `session` is the condition
 * that finds the session by its hash, given as $1 (sessionByToken or sessionByCookie).
 */
function sessionWithMemberSql(session: string): string {
  return `SELECT ${SESSION_SELECT}, ${joinedMemberSelect('m')}
    FROM sessions s JOIN members m ON m.id = s.member_id
    WHERE ${session}`;
}

/** Sessions in creation order, with how each was opened; `where` is empty or a WHERE clause. */
function sessionListSql(where: string): string {
  return `SELECT ${LISTED_SESSION_COLUMNS} FROM sessions ${where} ORDER BY created_at, id`;
}

const SESSIONS: InsertTarget = { table: 'sessions', columns: LISTED_SESSION_COLUMNS };

const SQL = {
  insertSession: insertSql(SESSIONS, 1),
  renewSessionCookie: `UPDATE sessions SET previous_cookie_hash = cookie_hash, cookie_hash = $1, cookie_sealed = $2
    WHERE id = $3 AND cookie_hash = $4 AND revoked_at IS NULL AND expires_at > $5`,
  revokeSession: 'UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING member_id',
  revokeMemberSessions: 'UPDATE sessions SET revoked_at = $1 WHERE member_id = $2 AND revoked_at IS NULL AND expires_at > $1',
  sessions: sessionListSql(''),
  sessionsOfMember: sessionListSql('WHERE member_id = $1'),
  liveSessions: sessionListSql('WHERE revoked_at IS NULL AND expires_at > $1'),
  liveSessionsOfMember: sessionListSql('WHERE member_id = $1 AND revoked_at IS NULL AND expires_at > $2'),
} as const;

/** Sessions: created, found by their hashes, given renewed login cookies, seen, revoked and listed. */
export function sessionMethods(db: SqlDriver) {
  const { toSessionWithMember } = flagRecordMappers(db.flags);
  const byTokenHash = sessionWithMemberSql(sessionByToken(db.dialect.sessionKey, '$1'));
  const byCookieHash = sessionWithMemberSql(sessionByCookie(db.dialect.sessionKey, '$1'));
  return {
    async createSession(session) {
      await rethrowConflict(db, db.changes(SQL.insertSession, sessionValues(session)), () => `session "${session.id}" or one of its hashes already exists`);
    },

    /**
     * All in one transaction, which on SQLite holds the event loop until the whole list is in (about half a minute
     * for a million sessions): that suits seeding and imports, not a serving instance.
     */
    async createSessions(sessions) {
      if (sessions.length === 0) return;
      await rethrowConflict(
        db,
        db.transaction((tx) => insertRows(db, tx, SESSIONS, sessions.map(sessionValues))),
        () => 'a session of the list, or one of its hashes, already exists or repeats an earlier one of the list',
      );
    },

    async findSessionByTokenHash(tokenHash) {
      return mapOrNull(await db.row<SessionMemberRecord>(byTokenHash, [tokenHash]), toSessionWithMember);
    },

    async findSessionByCookieHash(cookieHash) {
      return mapOrNull(await db.row<SessionMemberRecord>(byCookieHash, [cookieHash]), toSessionWithMember);
    },

    async renewSessionCookie(id, { currentCookieHash, cookieHash, cookieSealed, now }) {
      const renewed = db.changes(SQL.renewSessionCookie, [cookieHash, cookieSealed, id, currentCookieHash, now]);
      return (await rethrowConflict(db, renewed, () => 'the renewed login cookie\'s hash is another session\'s')) > 0;
    },

    async touchSessions(touches) {
      if (touches.length > 0) await db.touchSessions(touches);
    },

    async revokeSession(id, revokedAt) {
      return (await db.row<{ member_id: string }>(SQL.revokeSession, [revokedAt, id]))?.member_id ?? null;
    },

    revokeMemberSessions(memberId, revokedAt) {
      return db.changes(SQL.revokeMemberSessions, [revokedAt, memberId]);
    },

    async listSessions(filter = {}) {
      const { memberId, liveAt } = filter;
      const [sql, values] =
        memberId === undefined
          ? liveAt === undefined
            ? [SQL.sessions, []]
            : [SQL.liveSessions, [liveAt]]
          : liveAt === undefined
            ? [SQL.sessionsOfMember, [memberId]]
            : [SQL.liveSessionsOfMember, [memberId, liveAt]];
      return (await db.rows<ListedSessionRecord>(sql, values)).map(toListedSession);
    },
  } satisfies Partial<Store>;
}
