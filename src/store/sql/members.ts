import { StoreVersionConflictError, type MemberReplaced, type Store } from '../store.js';
import { rethrowConflict, type SqlDriver } from './driver.js';
import {
  flagRecordMappers,
  fromMemberChanges,
  mapOrNull,
  MEMBER_COLUMNS,
  MEMBER_READ_COLUMNS,
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
  SELECT ${MEMBER_READ_COLUMNS}, password_hash FROM (
    SELECT ${MEMBER_READ_COLUMNS}, password_hash, 0 AS rank FROM members WHERE lower(username) = lower(CAST($1 AS TEXT))
    UNION ALL
    SELECT ${MEMBER_READ_COLUMNS}, password_hash, 1 AS rank FROM members
      WHERE lower(email) = lower(CAST($1 AS TEXT)) AND lower(username) <> lower(CAST($1 AS TEXT))
  ) matches
  ORDER BY rank, id
  LIMIT 2`;

/**
 * What every write of a member sets besides its fields, the one place that says so: the version moves on, and the
 * time of the write (the parameter `at`) is kept.
 */
const written = (at: string) => `version = version + 1, updated_at = ${at}`;

/**
 * One statement, so that a change never mixes with another's, and only on the version the writer read: the test
 * and the write are one, with no moment between them for another writer. A NULL parameter leaves its column as
 * it is.
 */
const UPDATE_MEMBER_SQL = `
  UPDATE members SET
    email = COALESCE(CAST($2 AS TEXT), email),
    first_name = COALESCE(CAST($3 AS TEXT), first_name),
    last_name = COALESCE(CAST($4 AS TEXT), last_name),
    attributes = COALESCE(CAST($5 AS TEXT), attributes),
    ${written('$7')}
  WHERE id = $1 AND version = $6
  RETURNING ${MEMBER_READ_COLUMNS}`;

/**
 * Every field at once, on the version the writer read, unless another member has the username ignoring case (as
 * findMembersByLogin folds it); with a password hash or without touching it.
 */
const replaceMemberSql = (setsPassword: boolean) => `
  UPDATE members SET
    username = $2, email = $3, first_name = $4, last_name = $5, enabled = $6, attributes = $7, external_id = $8,
    display_name = $9, formatted_name = $10, ${setsPassword ? 'password_hash = $13, ' : ''}${written('$11')}
  WHERE id = $1 AND version = $12
    AND NOT EXISTS (SELECT 1 FROM members other WHERE lower(other.username) = lower(CAST($2 AS TEXT)) AND other.id <> $1)
  RETURNING ${MEMBER_READ_COLUMNS}`;

/**
 * How many ids one getMembers statement looks up: always this many, so that it is one statement text (one
 * prepared statement in SQLite); a shorter list repeats its last id. On PostgreSQL, a batch of 1,000 ids is two
 * round trips.
 */
const IDS_PER_LOOKUP = 500;
const MEMBERS_BY_ID_SQL = `SELECT ${MEMBER_READ_COLUMNS} FROM members
  WHERE id IN (${Array.from({ length: IDS_PER_LOOKUP }, (_, index) => `$${index + 1}`).join(', ')})`;

/** The ids in lists of IDS_PER_LOOKUP, the last one filled with its last id. */
function lookupsOf(ids: readonly string[]): string[][] {
  const lookups: string[][] = [];
  for (let start = 0; start < ids.length; start += IDS_PER_LOOKUP) {
    const lookup = ids.slice(start, start + IDS_PER_LOOKUP);
    lookups.push(lookup.concat(Array<string>(IDS_PER_LOOKUP - lookup.length).fill(lookup.at(-1) as string)));
  }
  return lookups;
}

const SQL = {
  insertMember: `INSERT INTO members (${MEMBER_COLUMNS}, password_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
    RETURNING ${MEMBER_READ_COLUMNS}`,
  member: `SELECT ${MEMBER_READ_COLUMNS} FROM members WHERE id = $1`,
  members: `SELECT ${MEMBER_READ_COLUMNS} FROM members ORDER BY id`,
  membersAfter: `SELECT ${MEMBER_READ_COLUMNS} FROM members WHERE id > $1 ORDER BY id LIMIT $2`,
  setMemberEnabled: `UPDATE members SET enabled = $1, ${written('$3')} WHERE id = $2`,
  replaceMember: replaceMemberSql(false),
  replaceMemberAndPassword: replaceMemberSql(true),
  deleteMember: 'DELETE FROM members WHERE id = $1',
  deleteMemberAtVersion: 'DELETE FROM members WHERE id = $1 AND version = $2',
  memberCredentials: `SELECT ${MEMBER_READ_COLUMNS}, password_hash FROM members WHERE id = $1`,
  setMemberPassword: `UPDATE members SET password_hash = $1, ${written('$3')} WHERE id = $2`,
  memberExists: 'SELECT 1 AS found FROM members WHERE id = $1',
  memberVersion: 'SELECT version FROM members WHERE id = $1',
} as const;

/** Members, their attributes and their password hashes. */
export function memberMethods(db: SqlDriver) {
  const { fromNewMember, replacementValues, toMember, toMemberCredentials } = flagRecordMappers(db.flags);
  return {
    async createMember(member) {
      const inserted = await rethrowConflict(
        db,
        db.row<MemberRecord>(SQL.insertMember, memberValues(fromNewMember(member))),
        () => `a member with id "${member.id}" or username "${member.username}" already exists`,
      );
      return toMember(inserted as MemberRecord);
    },

    async createMembers(members) {
      if (members.length === 0) return [];
      const { created, storedUsernames } = await db.insertMembersIfFree(members.map(fromNewMember));
      return newMemberOutcomes(members, created, storedUsernames);
    },

    async getMember(id) {
      return mapOrNull(await db.row<MemberRecord>(SQL.member, [id]), toMember);
    },

    async getMembers(ids) {
      const found = await Promise.all(lookupsOf([...new Set(ids)]).map((lookup) => db.rows<MemberRecord>(MEMBERS_BY_ID_SQL, lookup)));
      return found.flat().map(toMember);
    },

    async listMembers() {
      return (await db.rows<MemberRecord>(SQL.members)).map(toMember);
    },

    async listMembersAfter(afterId, limit) {
      return (await db.rows<MemberRecord>(SQL.membersAfter, [afterId, limit])).map(toMember);
    },

    async updateMember(id, changes, expectedVersion, at) {
      const record = fromMemberChanges(changes);
      const values = [id, record.email, record.first_name, record.last_name, record.attributes, expectedVersion, at];
      const updated = await db.row<MemberRecord>(UPDATE_MEMBER_SQL, values);
      if (updated) return toMember(updated);
      // Nothing written: no member has this id, or it is at another version.
      if (await db.row(SQL.memberExists, [id])) throw new StoreVersionConflictError(id, expectedVersion);
      return null;
    },

    async setMemberEnabled(id, enabled, at) {
      return (await db.changes(SQL.setMemberEnabled, [db.flags.fromBoolean(enabled), id, at])) > 0;
    },

    async replaceMember(id, replacement, expectedVersion) {
      const { passwordHash } = replacement;
      const values = [id, ...replacementValues(replacement), expectedVersion, ...(passwordHash === undefined ? [] : [passwordHash])];
      const sql = passwordHash === undefined ? SQL.replaceMember : SQL.replaceMemberAndPassword;
      try {
        return await db.transaction(async (tx): Promise<MemberReplaced> => {
          const replaced = await tx.row<MemberRecord>(sql, values);
          if (replaced) return { ok: true, member: toMember(replaced) };
          // Nothing written: no member has this id, it is at another version, or the username is another's.
          const stored = await tx.row<{ version: number }>(SQL.memberVersion, [id]);
          return { ok: false, reason: stored === undefined ? 'notFound' : stored.version === expectedVersion ? 'usernameTaken' : 'stale' };
        });
      } catch (error) {
        // Another writer stored exactly this username after the check (PostgreSQL, which runs writers side by side).
        if (db.isUniqueViolation(error)) return { ok: false, reason: 'usernameTaken' };
        throw error;
      }
    },

    async deleteMember(id, expectedVersion) {
      if (expectedVersion === undefined) return (await db.changes(SQL.deleteMember, [id])) > 0 ? 'removed' : 'notFound';
      if ((await db.changes(SQL.deleteMemberAtVersion, [id, expectedVersion])) > 0) return 'removed';
      return (await db.row(SQL.memberExists, [id])) ? 'stale' : 'notFound';
    },

    async findMembersByLogin(login) {
      return (await db.rows<MemberCredentialsRecord>(MEMBERS_BY_LOGIN_SQL, [login])).map(toMemberCredentials);
    },

    async getMemberCredentials(id) {
      return mapOrNull(await db.row<MemberCredentialsRecord>(SQL.memberCredentials, [id]), toMemberCredentials);
    },

    async setMemberPassword(id, passwordHash, at) {
      return (await db.changes(SQL.setMemberPassword, [passwordHash, id, at])) > 0;
    },
  } satisfies Partial<Store>;
}
