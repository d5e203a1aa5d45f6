import type { MemberCondition, MemberRow, StaffRole, StaffRoleRow, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import { CLI_ACTOR, type EventContext, type EventService } from './events.js';
import type { SignedInVisit, SignInService } from './signin.js';

/** The roles, from the least: support helps members; admin also manages the service's partners and staff. */
export const STAFF_ROLES = ['support', 'admin'] as const satisfies readonly StaffRole[];

export type { StaffRole } from '../store/store.js';

/** A staff member as listed: the role, and the member it is, by id and username. */
export interface StaffMember extends StaffRoleRow {
  username: string;
}

/**
 * A visit to the staff console: the member signed in, the role (null: not staff), and whether the session was
 * opened with a second factor (a code, or a passkey): `none` when the member has no confirmed factor, `later` when
 * it was confirmed after the session began (the session was opened with a password alone).
 */
export interface StaffVisit extends SignedInVisit {
  role: StaffRole | null;
  secondFactor: 'used' | 'none' | 'later';
}

/** The fields a search tries, each for the whole text as typed (SCIM's member search, src/store/sql/member-search.ts). */
const SEARCHED: ReadonlyArray<MemberCondition['field']> = ['id', 'username', 'email', 'name'];
/** A search's answer is one screen of members: a name shared by more is narrowed by the email or username. */
const SEARCH_LIMIT = 50;

/**
 * Who may use the staff console (/Admin), and as what. Staff are members: they sign in as members do, and the
 * console reads their role here on every request, so that a revoked role stops working at once.
 */
export class StaffService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly signin: SignInService,
    private readonly events: Pick<EventService, 'record'>,
  ) {}

  /**
   * The visit of this login cookie, renewed as the member pages renew it, with the role and second factor the
   * console needs; null when the cookie opens no live session.
   */
  async visit(cookie: string, cookieDomain: string): Promise<StaffVisit | null> {
    const visit = await this.signin.current(cookie, cookieDomain);
    if (!visit) return null;
    const [role, factor, passkey] = await Promise.all([
      this.roleOf(visit.member.id),
      this.store.getSecondFactor(visit.member.id),
      this.store.isPasskeySession(visit.session.id),
    ]);
    const confirmedAt = factor?.confirmedAt ?? null;
    // A passkey verifies its user as well as its possession: a session it opened is a two-factor one, as the OpenID
    // amr and SAML context say. Every other way asks a member with a confirmed factor for a code (as
    // services.oidc.sessions.signedIn reads it).
    const secondFactor = passkey ? 'used' : confirmedAt === null ? 'none' : confirmedAt <= visit.session.createdAt ? 'used' : 'later';
    return { ...visit, role, secondFactor };
  }

  /**
   * Members whose id, username, email, first name, last name or full name is the text (ignoring case but for the
   * id), each once, by creation: at most SEARCH_LIMIT of them, and whether there are more.
   */
  async search(text: string): Promise<{ members: MemberRow[]; more: boolean }> {
    const value = text.trim();
    if (value === '') return { members: [], more: false };
    const pages = await Promise.all(SEARCHED.map((field) => this.store.findMembers([{ field, value }], 0, SEARCH_LIMIT)));
    const found = new Map(pages.flatMap((page) => page.members).map((member) => [member.id, member]));
    const members = [...found.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    const more = members.length > SEARCH_LIMIT || pages.some((page) => page.total > page.members.length);
    return { members: members.slice(0, SEARCH_LIMIT), more };
  }

  /**
   * Gives the member the role, in place of any other, recorded as staff-granted (the role its outcome) by `by`,
   * the CLI's unless told. MEMBER_NOT_FOUND when no member has this id.
   */
  async grant(memberId: string, role: StaffRole, by: EventContext = { actor: CLI_ACTOR }): Promise<StaffRoleRow> {
    const row: StaffRoleRow = { memberId, role, grantedAt: this.clock() };
    if (!(await this.store.setStaffRole(row))) throw new ServiceError('MEMBER_NOT_FOUND', memberId);
    this.events.record({ ...by, type: 'staff-granted', memberId, outcome: role });
    return row;
  }

  /** Takes the role away, recorded as staff-revoked by `by`. STAFF_NOT_FOUND when the member has no role. */
  async revoke(memberId: string, by: EventContext = { actor: CLI_ACTOR }): Promise<void> {
    if (!(await this.store.deleteStaffRole(memberId))) throw new ServiceError('STAFF_NOT_FOUND', memberId);
    this.events.record({ ...by, type: 'staff-revoked', memberId });
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
