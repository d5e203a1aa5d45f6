import type { RoleRow, Store } from '../store.js';
import { rethrowConflict, type SqlDriver } from './driver.js';
import { compileRoleFilter } from './member-filter.js';

interface RoleRecord {
  id: string;
  name: string;
  external_id: string | null;
  created_at: number;
  updated_at: number;
  version: number;
}

const ROLE_COLUMNS = 'id, name, external_id, created_at, updated_at, version';

const toRole = (record: RoleRecord): RoleRow => ({
  id: record.id,
  name: record.name,
  externalId: record.external_id,
  createdAt: Number(record.created_at),
  updatedAt: Number(record.updated_at),
  version: Number(record.version),
});

/**
 * Every role as a row of `role_rows`: those written as Groups (the roles table), and those only members hold, each
 * once, named by the least of its names (by code point), at version 0. The members' roles are read from their
 * attributes, a scan of the members: only a role never written as a Group is found that way.
 */
function roleRows(db: SqlDriver): string {
  const { dialect } = db;
  const held = `SELECT ${dialect.elementText('held_role', 'id')} AS id, ${dialect.elementText('held_role', 'name')} AS name
      FROM members, ${dialect.jsonElements('members.attributes', ['roles'], 'held_role')}`;
  return `WITH role_rows AS (
    SELECT ${ROLE_COLUMNS} FROM roles
    UNION ALL
    SELECT held.id, MIN(${dialect.byCodePoint('held.name')}), NULL, 0, 0, 0 FROM (${held}) held
      WHERE NOT EXISTS (SELECT 1 FROM roles WHERE roles.id = held.id)
      GROUP BY held.id
  )`;
}

const SQL = {
  role: `SELECT ${ROLE_COLUMNS} FROM roles WHERE id = $1`,
  insert: `INSERT INTO roles (${ROLE_COLUMNS}) VALUES ($1, $2, $3, $4, $4, 1) RETURNING ${ROLE_COLUMNS}`,
  /** A role only members held, written as a Group: unless someone wrote it meanwhile. */
  insertHeld: `INSERT INTO roles (${ROLE_COLUMNS}) VALUES ($1, $2, $3, $4, $4, 1) ON CONFLICT DO NOTHING RETURNING ${ROLE_COLUMNS}`,
  update: `UPDATE roles SET name = $2, external_id = $3, updated_at = $4, version = version + 1 WHERE id = $1 AND version = $5 RETURNING ${ROLE_COLUMNS}`,
  delete: 'DELETE FROM roles WHERE id = $1',
} as const;

/** The association's roles as SCIM Groups. */
export function roleMethods(db: SqlDriver) {
  const rows = roleRows(db);
  return {
    async searchRoles({ filter, offset, limit }) {
      const { where, values } = compileRoleFilter(filter, db.dialect, db.flags);
      const counted = await db.row<{ total: number }>(`${rows} SELECT COUNT(*) AS total FROM role_rows ${where}`, values);
      const page = `${rows} SELECT ${ROLE_COLUMNS} FROM role_rows ${where} ORDER BY created_at, id LIMIT $${values.length + 1} OFFSET $${values.length + 2}`;
      const roles = await db.rows<RoleRecord>(page, [...values, limit, offset]);
      return { total: Number(counted?.total ?? 0), roles: roles.map(toRole) };
    },

    async getRole(id) {
      const written = await db.row<RoleRecord>(SQL.role, [id]);
      if (written) return toRole(written);
      const held = await db.row<RoleRecord>(`${rows} SELECT ${ROLE_COLUMNS} FROM role_rows WHERE id = $1`, [id]);
      return held ? toRole(held) : null;
    },

    async createRole(role) {
      const inserted = await rethrowConflict(db, db.row<RoleRecord>(SQL.insert, [role.id, role.name, role.externalId, role.createdAt]), () => `a role with id "${role.id}" already exists`);
      return toRole(inserted as RoleRecord);
    },

    async replaceRole(id, { name, externalId, updatedAt }, expectedVersion) {
      if (expectedVersion === 0) {
        const inserted = await db.row<RoleRecord>(SQL.insertHeld, [id, name, externalId, updatedAt]);
        return inserted ? toRole(inserted) : 'stale';
      }
      const updated = await db.row<RoleRecord>(SQL.update, [id, name, externalId, updatedAt, expectedVersion]);
      if (updated) return toRole(updated);
      return (await db.row(SQL.role, [id])) ? 'stale' : 'notFound';
    },

    async deleteRole(id) {
      return (await db.changes(SQL.delete, [id])) > 0;
    },
  } satisfies Partial<Store>;
}
