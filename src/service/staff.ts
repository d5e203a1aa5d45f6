import type { StaffRole, StaffRoleRow, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';

/** The roles, from the least: support helps members; admin also manages the service's partners and staff. */
export const STAFF_ROLES = ['support', 'admin'] as const satisfies readonly StaffRole[];

export type { StaffRole } from '../store/store.js';

/** A staff member as listed: the role, and the member it is, by id and username. */
export interface StaffMember extends StaffRoleRow {
  username: string;
}

/**
 * Who may use the staff console (/Admin), and as what. Staff are members: they sign in as members do, and the
 * console reads their role here on every request, so that a revoked role stops working at once.
 */
export class StaffService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Gives the member the role, in place of any other. MEMBER_NOT_FOUND when no member has this id. */
  async grant(memberId: string, role: StaffRole): Promise<StaffRoleRow> {
    const row: StaffRoleRow = { memberId, role, grantedAt: this.clock() };
    if (!(await this.store.setStaffRole(row))) throw new ServiceError('MEMBER_NOT_FOUND', memberId);
    return row;
  }

  /** STAFF_NOT_FOUND when the member has no role. */
  async revoke(memberId: string): Promise<void> {
    if (!(await this.store.deleteStaffRole(memberId))) throw new ServiceError('STAFF_NOT_FOUND', memberId);
  }

  /** By member id. */
  async list(): Promise<StaffMember[]> {
    const roles = await this.store.listStaffRoles();
    const usernames = new Map((await this.store.getMembers(roles.map((row) => row.memberId))).map((member) => [member.id, member.username]));
    return roles.map((row) => ({ ...row, username: usernames.get(row.memberId) ?? '' }));
  }

  /** The member's role, or null for a member who is not staff. */
  async roleOf(memberId: string): Promise<StaffRole | null> {
    return (await this.store.getStaffRole(memberId))?.role ?? null;
  }
}
