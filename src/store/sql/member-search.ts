import type { MemberCondition, Store } from '../store.js';
import type { SqlDriver } from './driver.js';
import { compileSearch } from './member-filter.js';
import { flagRecordMappers, MEMBER_READ_COLUMNS, type MemberRecord } from './records.js';

type Field = MemberCondition['field'];

/** Each field's test, of the parameter given; usernames and emails as findMembersByLogin folds them. */
const MATCHES: Readonly<Record<Field, (parameter: string) => string>> = {
  id: (parameter) => `id = ${parameter}`,
  externalId: (parameter) => `external_id = ${parameter}`,
  username: (parameter) => `lower(username) = lower(CAST(${parameter} AS TEXT))`,
  email: (parameter) => `lower(email) = lower(CAST(${parameter} AS TEXT))`,
  // No index serves it: staff look a member up by name now and then, never on a sign-in's path.
  name: (parameter) =>
    `lower(CAST(${parameter} AS TEXT)) IN (lower(first_name), lower(last_name), lower(first_name || ' ' || last_name))`,
};
const FIELDS = Object.keys(MATCHES) as Field[];
const FOLDED: ReadonlySet<Field> = new Set(['username', 'email', 'name']);

/** Whether two values are one as the database folds them. */
const SAME_FOLDED_SQL = 'SELECT 1 AS same WHERE lower(CAST($1 AS TEXT)) = lower(CAST($2 AS TEXT))';

/**
 * The one value each field must have, or null when the conditions contradict each other (no member can meet
 * them). A field asked for twice with the same value, as the database compares it, is asked for once: so a query
 * is one of 32 statements (one per set of fields), whatever filter it came from, and the driver prepares no more.
 */
async function valuesByField(db: SqlDriver, conditions: readonly MemberCondition[]): Promise<Map<Field, string> | null> {
  const values = new Map<Field, string>();
  for (const { field, value } of conditions) {
    const first = values.get(field);
    if (first === undefined) values.set(field, value);
    else if (FOLDED.has(field) ? (await db.row(SAME_FOLDED_SQL, [first, value])) === undefined : first !== value) return null;
  }
  return values;
}

/** Member queries, a page at a time: the staff console's (findMembers) and SCIM's (searchMembers). */
export function memberSearchMethods(db: SqlDriver) {
  const { toMember } = flagRecordMappers(db.flags);
  return {
    async findMembers(conditions, offset, limit) {
      const values = await valuesByField(db, conditions);
      if (values === null) return { total: 0, members: [] };
      const fields = FIELDS.filter((field) => values.has(field));
      const where = fields.length === 0 ? '' : `WHERE ${fields.map((field, index) => MATCHES[field](`$${index + 1}`)).join(' AND ')}`;
      const parameters = fields.map((field) => values.get(field));
      const counted = await db.row<{ total: number }>(`SELECT COUNT(*) AS total FROM members ${where}`, parameters);
      const page = `SELECT ${MEMBER_READ_COLUMNS} FROM members ${where} ORDER BY created_at, id LIMIT $${fields.length + 1} OFFSET $${fields.length + 2}`;
      const members = await db.rows<MemberRecord>(page, [...parameters, limit, offset]);
      return { total: counted?.total ?? 0, members: members.map(toMember) };
    },

    async searchMembers(search) {
      const { where, orderBy, values } = compileSearch(search, db.dialect, db.flags);
      const counted = await db.row<{ total: number }>(`SELECT COUNT(*) AS total FROM members ${where}`, values);
      const page = `SELECT ${MEMBER_READ_COLUMNS} FROM members ${where} ${orderBy} LIMIT $${values.length + 1} OFFSET $${values.length + 2}`;
      const members = await db.rows<MemberRecord>(page, [...values, search.limit, search.offset]);
      return { total: counted?.total ?? 0, members: members.map(toMember) };
    },
  } satisfies Partial<Store>;
}
