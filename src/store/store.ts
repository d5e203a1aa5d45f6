/**
 * The store contract: every implementation (SQLite, PostgreSQL) passes test/store/contract.ts.
 * Rows hold no secret in the clear: caller passwords, login cookies and tokens arrive here already hashed
 * (and the token also encrypted) by src/service/secrets.ts. Times are epoch milliseconds.
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

export interface MemberRow {
  id: string;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  enabled: boolean;
  createdAt: number;
}

export type NewMember = Omit<MemberRow, 'createdAt'> & { createdAt: number };

export interface SessionRow {
  id: string;
  memberId: string;
  /** Lower-cased, without a leading dot. */
  cookieDomain: string;
  cookieHash: string;
  tokenHash: string;
  /** The token encrypted with the server key, so that AuthenticateCookie can return it. */
  tokenSealed: string;
  createdAt: number;
  lastSeenAt: number;
  /** Absolute end of life, fixed at creation. */
  expiresAt: number;
  revokedAt: number | null;
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

  createCaller(name: string, createdAt: number): Promise<CallerRow>;
  getCallerByName(name: string): Promise<CallerRow | null>;
  listCallers(): Promise<CallerRow[]>;
  setCallerEnabled(callerId: number, enabled: boolean): Promise<void>;
  /** Removes the caller and its passwords. */
  deleteCaller(callerId: number): Promise<void>;
  addCallerPassword(callerId: number, passwordHash: string, createdAt: number): Promise<CallerPasswordRow>;
  listCallerPasswords(callerId: number): Promise<CallerPasswordRow[]>;
  /** Removes every password of the caller except the one with keepId, if given. */
  deleteCallerPasswords(callerId: number, keepId?: number): Promise<number>;
  /** The caller owning this password hash, enabled or not. */
  findCallerByPasswordHash(passwordHash: string): Promise<CallerRow | null>;

  /** Throws StoreConflictError when the id or username is taken. */
  createMember(member: NewMember): Promise<MemberRow>;
  getMember(id: string): Promise<MemberRow | null>;
  listMembers(): Promise<MemberRow[]>;
  setMemberEnabled(id: string, enabled: boolean): Promise<boolean>;
  /** Removes the member and all of its sessions. */
  deleteMember(id: string): Promise<boolean>;

  createSession(session: SessionRow): Promise<void>;
  findSessionByTokenHash(tokenHash: string): Promise<SessionWithMember | null>;
  findSessionByCookieHash(cookieHash: string): Promise<SessionWithMember | null>;
  /** Moves lastSeenAt forward (never back). */
  touchSession(id: string, lastSeenAt: number): Promise<void>;
  /** Returns false when no unrevoked session has this id. */
  revokeSession(id: string, revokedAt: number): Promise<boolean>;
  /** Returns how many sessions were revoked. */
  revokeMemberSessions(memberId: string, revokedAt: number): Promise<number>;
  listSessions(filter?: SessionFilter): Promise<SessionRow[]>;
}

export class StoreConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}
