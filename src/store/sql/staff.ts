import type { StaffRole, StaffRoleRow, Store } from '../store.js';
import type { SqlDriver } from './driver.js';
import { mapOrNull } from './records.js';

interface StaffRoleRecord {
  member_id: string;
  role: StaffRole;
  granted_at: number;
}

const COLUMNS = 'member_id, role, granted_at';

const SQL = {
  // Only a stored member gets a role: the SELECT finds none otherwise, and nothing is inserted. Its WHERE also
  // tells SQLite that ON CONFLICT is the INSERT's, not a join's.
  set: `INSERT INTO staff_roles (${COLUMNS}) SELECT id, $2, $3 FROM members WHERE id = $1
    ON CONFLICT (member_id) DO UPDATE SET role = excluded.role, granted_at = excluded.granted_at`,
  get: `SELECT ${COLUMNS} FROM staff_roles WHERE member_id = $1`,
  list: `SELECT ${COLUMNS} FROM staff_roles ORDER BY member_id`,
  delete: 'DELETE FROM staff_roles WHERE member_id = $1',
} as const;

function toStaffRole(record: StaffRoleRecord): StaffRoleRow {
  return { memberId: record.member_id, role: record.role, grantedAt: record.granted_at };
}

/** The staff console's roles, one per member at most. */
export function staffMethods(db: SqlDriver) {
  return {
    async setStaffRole(row) {
      return (await db.changes(SQL.set, [row.memberId, row.role, row.grantedAt])) > 0;
    },

    async getStaffRole(memberId) {
      return mapOrNull(await db.row<StaffRoleRecord>(SQL.get, [memberId]), toStaffRole);
    },

    async listStaffRoles() {
      return (await db.rows<StaffRoleRecord>(SQL.list)).map(toStaffRole);
    },

    async deleteStaffRole(memberId) {
      return (await db.changes(SQL.delete, [memberId])) > 0;
    },
  } satisfies Partial<Store>;
}
