import type { Store } from '../store.js';
import { rethrowConflict, type SqlDriver } from './driver.js';
import {
  flagRecordMappers,
  fromMemberChanges,
  mapOrNull,
  MEMBER_COLUMNS,
  type MemberCredentialsRecord,
  type MemberRecord,
  memberValues,
  newMemberOutcomes,
} from './records.js';

/**
 * Username matches rank before email matches; a member matching both is listed once. Two rows are enough for the
 * sign-in page to tell a unique login from an ambiguous one. The expression indexes on lower(username) and
 * lower(email) serve both halves. lower() folds ASCII letters only in SQLite; in PostgreSQL it follows the
 * database's locale, which under UTF-8 folds other letters too. (The CAST tells PostgreSQL which lower() is meant.)
 */
const MEMBERS_BY_LOGIN_SQL = `
  SELECT ${MEMBER_COLUMNS}, password_hash FROM (
    SELECT ${MEMBER_COLUMNS}, password_hash, 0 AS rank FROM members WHERE lower(username) = lower(CAST($1 AS TEXT))
    UNION ALL
    SELECT ${MEMBER_COLUMNS}, password_hash, 1 AS rank FROM members
      WHERE lower(email) = lower(CAST($1 AS TEXT)) AND lower(username) <> lower(CAST($1 AS TEXT))
  ) matches
  ORDER BY rank, id
  LIMIT 2`;

/** One statement, so that a change never mixes with another's; a NULL parameter leaves its column as it is. */
const UPDATE_MEMBER_SQL = `
  UPDATE members SET
    email = COALESCE(CAST($2 AS TEXT), email),
    first_name = COALESCE(CAST($3 AS TEXT), first_name),
    last_name = COALESCE(CAST($4 AS TEXT), last_name),
    attributes = COALESCE(CAST($5 AS TEXT), attributes)
  WHERE id = $1
  RETURNING ${MEMBER_COLUMNS}`;

const SQL = {
  insertMember: `INSERT INTO members (${MEMBER_COLUMNS}, password_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
  member: `SELECT ${MEMBER_COLUMNS} FROM members WHERE id = $1`,
  members: `SELECT ${MEMBER_COLUMNS} FROM members ORDER BY id`,
  setMemberEnabled: 'UPDATE members SET enabled = $1 WHERE id = $2',
  deleteMember: 'DELETE FROM members WHERE id = $1',
  memberCredentials: `SELECT ${MEMBER_COLUMNS}, password_hash FROM members WHERE id = $1`,
  setMemberPassword: 'UPDATE members SET password_hash = $1 WHERE id = $2',
} as const;

/** Members, their attributes and their password hashes. */
export function memberMethods(db: SqlDriver) {
  const { fromNewMember, toMember, toMemberCredentials } = flagRecordMappers(db.flags);
  return {
    async createMember(member) {
      const record = fromNewMember(member);
      await rethrowConflict(
        db,
        db.changes(SQL.insertMember, memberValues(record)),
        () => `a member with id "${member.id}" or username "${member.username}" already exists`,
      );
      return toMember(record);
    },

    async createMembers(members) {
      if (members.length === 0) return [];
      const { created, storedUsernames } = await db.insertMembersIfFree(members.map(fromNewMember));
      return newMemberOutcomes(members, created, storedUsernames);
    },

    async getMember(id) {
      return mapOrNull(await db.row<MemberRecord>(SQL.member, [id]), toMember);
    },

    async listMembers() {
      return (await db.rows<MemberRecord>(SQL.members)).map(toMember);
    },

    async updateMember(id, changes) {
      const record = fromMemberChanges(changes);
      const values = [id, record.email, record.first_name, record.last_name, record.attributes];
      return mapOrNull(await db.row<MemberRecord>(UPDATE_MEMBER_SQL, values), toMember);
    },

    async setMemberEnabled(id, enabled) {
      return (await db.changes(SQL.setMemberEnabled, [db.flags.fromBoolean(enabled), id])) > 0;
    },

    async deleteMember(id) {
      return (await db.changes(SQL.deleteMember, [id])) > 0;
    },

    async findMembersByLogin(login) {
      return (await db.rows<MemberCredentialsRecord>(MEMBERS_BY_LOGIN_SQL, [login])).map(toMemberCredentials);
    },

    async getMemberCredentials(id) {
      return mapOrNull(await db.row<MemberCredentialsRecord>(SQL.memberCredentials, [id]), toMemberCredentials);
    },

    async setMemberPassword(id, passwordHash) {
      return (await db.changes(SQL.setMemberPassword, [passwordHash, id])) > 0;
    },
  } satisfies Partial<Store>;
}
