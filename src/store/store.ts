/**
 * The store contract: every implementation (SQLite, PostgreSQL) passes test/store/contract.ts.
 * Rows hold no secret in the clear: caller passwords, login cookies and tokens arrive here already hashed
 * (and the cookie and token also encrypted) by src/service/secrets.ts. Times are epoch milliseconds.
 */

export interface CallerRow {
  id: number;
  name: string;
  enabled: boolean;
  createdAt: number;
}

export interface CallerPasswordRow {
  id: number;
  callerId: number;
  createdAt: number;
}

/**
 * Optional facts about a member that partner integrations read (CRM4M's JSON fields, iBridge User attributes).
 * A fact not known is a key left out, never one set to undefined; src/service/member-attributes.ts checks them.
 */
export interface MemberAttributes {
  /** CRM4M pa_member. */
  isMember?: boolean;
  /** CRM4M pa_contactnumber. */
  contactNumber?: string;
  /** CRM4M pa_labelname. */
  labelName?: string;
  /** CRM4M parentcustomerid_id. */
  organisationId?: string;
  /** CRM4M parentcustomerid. */
  organisationName?: string;
  /** CRM4M defaultpricelevelid_id. */
  priceLevelId?: string;
  /** CRM4M defaultpricelevelid. */
  priceLevelName?: string;
  /** CRM4M pa_webroles. */
  roles?: Array<{ id: string; name: string }>;
  /** Free-form, tenant-specific. */
  extra?: Record<string, string>;
}

export interface MemberRow {
  id: string;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  enabled: boolean;
  createdAt: number;
  /** `{}` when none are known. */
  attributes: MemberAttributes;
}

/** What updateMember may change; a field left out stays as it is, and attributes are replaced whole. */
export type MemberChanges = Partial<Pick<MemberRow, 'email' | 'firstName' | 'lastName' | 'attributes'>>;

/** A member as created; passwordHash is a tagged hash from src/service/passwords.ts, or null (no password yet). */
export type NewMember = MemberRow & { passwordHash?: string | null };

/**
 * What createMembers did with one member of its list:
 * - `created`: inserted;
 * - `existing`: not inserted, because a member with this id and exactly this username is stored (an earlier
 *   import of the same row, or an earlier member of the same list);
 * - `idTaken`: not inserted, because a member with this id is stored under another username;
 * - `usernameTaken`: not inserted, because the id is free but a stored member (or an earlier member of the list)
 *   has this username, ignoring case as findMembersByLogin folds it.
 */
export type NewMemberOutcome = 'created' | 'existing' | 'idTaken' | 'usernameTaken';

/** A member with its password hash, for sign-in only; nothing else reads the hash. */
export interface MemberCredentials {
  member: MemberRow;
  passwordHash: string | null;
}

/** An origin (scheme://host[:port]) a caller registered as a return address after sign-in or sign-out. */
export interface CallerOriginRow {
  callerId: number;
  origin: string;
  /** The session token is appended to return addresses on this origin (`token=…`). */
  receivesToken: boolean;
  createdAt: number;
}

/**
 * Failure counting for throttles (sign-in per account and per address; later, caller passwords per address),
 * shared by every instance that shares the store.
 */
export interface ThrottleRow {
  key: string;
  failures: number;
  windowStartedAt: number;
  lockedUntil: number | null;
}

export interface SessionRow {
  id: string;
  memberId: string;
  /** Lower-cased, without a leading dot. */
  cookieDomain: string;
  cookieHash: string;
  tokenHash: string;
  /** The token encrypted with the server key, so that AuthenticateCookie can return it. */
  tokenSealed: string;
  /**
   * The login cookie encrypted with the server key, so that a token lookup can return it too; null for
   * sessions created before the store kept it.
   */
  cookieSealed: string | null;
  createdAt: number;
  lastSeenAt: number;
  /** Absolute end of life, fixed at creation. */
  expiresAt: number;
  revokedAt: number | null;
  /** Where the session began, for the member's own list: the client's address and browser, when known. */
  clientAddress: string | null;
  userAgent: string | null;
}

/**
 * A member's second factor: a TOTP secret (RFC 6238), sealed under the server key. At most one per member;
 * removed with the member.
 */
export interface SecondFactorRow {
  memberId: string;
  secretSealed: string;
  createdAt: number;
  /** Null until the member confirmed it with a first code: only a confirmed factor is asked for. */
  confirmedAt: number | null;
  /** The last time step a code was accepted for: a code of this step or an earlier one is a replay. */
  lastStep: number | null;
}

/** A session together with its member, as verification needs both in one read. */
export interface SessionWithMember {
  session: SessionRow;
  member: MemberRow;
}

export interface SessionFilter {
  memberId?: string;
  /** Only sessions neither revoked nor past expiresAt at this time. */
  liveAt?: number;
}

export interface Store {
  /** Applies pending schema migrations; safe to call more than once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** One cheap round trip; rejects when the store cannot be reached (readiness checks). */
  ping(): Promise<void>;
  /**
   * Records `value` under the deployment setting `name` unless one is recorded there already, and returns the
   * recorded value: the first to claim a setting wins, also between instances starting at once.
   */
  claimSetting(name: string, value: string): Promise<string>;
  /**
   * Deletes sessions that ended: expired or revoked at or before endedBefore, or last seen at or before
   * idleBefore. Returns how many.
   */
  purgeSessions(endedBefore: number, idleBefore: number): Promise<number>;
  /** Deletes throttle rows whose window began and whose lock ended at or before then. Returns how many. */
  purgeThrottles(before: number): Promise<number>;

  createCaller(name: string, createdAt: number): Promise<CallerRow>;
  getCallerByName(name: string): Promise<CallerRow | null>;
  listCallers(): Promise<CallerRow[]>;
  setCallerEnabled(callerId: number, enabled: boolean): Promise<void>;
  /** Removes the caller, its passwords and its origins. */
  deleteCaller(callerId: number): Promise<void>;
  addCallerPassword(callerId: number, passwordHash: string, createdAt: number): Promise<CallerPasswordRow>;
  listCallerPasswords(callerId: number): Promise<CallerPasswordRow[]>;
  /** Removes every password of the caller except the one with keepId, if given. */
  deleteCallerPasswords(callerId: number, keepId?: number): Promise<number>;
  /** The caller owning this password hash, enabled or not. */
  findCallerByPasswordHash(passwordHash: string): Promise<CallerRow | null>;

  /** Throws StoreConflictError when the id or username is taken. */
  createMember(member: NewMember): Promise<MemberRow>;
  /**
   * Inserts the members in one transaction, for bulk imports, and returns what became of each, in the order
   * given. A member whose id is taken, or whose username is taken ignoring case (unlike createMember, which
   * compares usernames exactly), is skipped rather than an error, so that importing the same members again
   * inserts only the missing ones. A member repeating the id, or the username ignoring case, of an earlier one
   * in the list is never inserted.
   */
  createMembers(members: readonly NewMember[]): Promise<NewMemberOutcome[]>;
  getMember(id: string): Promise<MemberRow | null>;
  listMembers(): Promise<MemberRow[]>;
  /** Changes the given fields in one write and returns the member as it is then; null when no member has this id. */
  updateMember(id: string, changes: MemberChanges): Promise<MemberRow | null>;
  setMemberEnabled(id: string, enabled: boolean): Promise<boolean>;
  /** Removes the member and all of its sessions. */
  deleteMember(id: string): Promise<boolean>;
  /**
   * Members whose username or email equals login, ignoring case (ASCII letters in every store; PostgreSQL
   * also folds other letters by its locale); usernames first, at most two rows. Two rows mean the login is
   * ambiguous.
   */
  findMembersByLogin(login: string): Promise<MemberCredentials[]>;
  getMemberCredentials(id: string): Promise<MemberCredentials | null>;
  /** Returns false when no member has this id. */
  setMemberPassword(id: string, passwordHash: string | null): Promise<boolean>;

  /** Throws StoreConflictError when the caller already registered this origin. */
  addCallerOrigin(row: CallerOriginRow): Promise<void>;
  removeCallerOrigin(callerId: number, origin: string): Promise<boolean>;
  /** All registrations, or one caller's, ordered by caller id then origin. */
  listCallerOrigins(callerId?: number): Promise<CallerOriginRow[]>;
  /** The registrations of this exact origin by enabled callers. */
  findOriginGrants(origin: string): Promise<CallerOriginRow[]>;

  /**
   * Counts one failure, atomically: a window that ended at or before now starts again at 1. A lock stays as
   * it is. Returns the row after the update.
   */
  recordFailure(key: string, now: number, windowMs: number): Promise<ThrottleRow>;
  /** Locks the key until then and starts its count again: the next window opens when the lock ends. */
  lockThrottle(key: string, until: number): Promise<void>;
  getThrottle(key: string): Promise<ThrottleRow | null>;
  clearThrottle(key: string): Promise<void>;

  createSession(session: SessionRow): Promise<void>;
  /**
   * Inserts the sessions in one transaction, for seeding large data sets and for imports: all of them, or none
   * when one fails. Throws StoreConflictError when a session's id, token hash or cookie hash is taken, by a
   * stored session or by an earlier one of the list. An empty list writes nothing.
   */
  createSessions(sessions: readonly SessionRow[]): Promise<void>;
  findSessionByTokenHash(tokenHash: string): Promise<SessionWithMember | null>;
  findSessionByCookieHash(cookieHash: string): Promise<SessionWithMember | null>;
  /**
   * Moves each session's lastSeenAt forward to the time given (never back), in one transaction; ids that are
   * not stored are left out. The sessions' idle-deadline moves, written in batches (LastSeenWriter).
   */
  touchSessions(touches: ReadonlyArray<{ id: string; lastSeenAt: number }>): Promise<void>;
  /** Returns false when no unrevoked session has this id. */
  revokeSession(id: string, revokedAt: number): Promise<boolean>;
  /** Returns how many sessions were revoked. */
  revokeMemberSessions(memberId: string, revokedAt: number): Promise<number>;
  listSessions(filter?: SessionFilter): Promise<SessionRow[]>;

  getSecondFactor(memberId: string): Promise<SecondFactorRow | null>;
  /**
   * Puts an unconfirmed second factor in place of the member's (confirmed or not), and deletes the member's
   * recovery codes: the old factor and its codes stop counting at once.
   */
  replaceSecondFactor(row: SecondFactorRow): Promise<void>;
  /**
   * Confirms the member's unconfirmed factor at this time step and stores its recovery codes' hashes, in one
   * transaction. False when the member has no unconfirmed factor (none, or it was confirmed meanwhile).
   */
  confirmSecondFactor(memberId: string, confirmedAt: number, step: number, recoveryCodeHashes: readonly string[]): Promise<boolean>;
  /**
   * Records that a code of this time step was accepted, atomically, unless one of this step or a later one was:
   * false for a replay (on any instance sharing the store) or when the member has no confirmed factor.
   */
  useSecondFactorStep(memberId: string, step: number): Promise<boolean>;
  /** Marks an unused recovery code of the member used; false when it has none with this hash. */
  useRecoveryCode(memberId: string, codeHash: string, usedAt: number): Promise<boolean>;
  /** How many of the member's recovery codes are still unused. */
  countRecoveryCodes(memberId: string): Promise<number>;
  /** Removes the member's second factor and recovery codes; false when it had none. */
  deleteSecondFactor(memberId: string): Promise<boolean>;
}

export class StoreConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}
