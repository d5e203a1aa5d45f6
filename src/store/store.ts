import type { CallerRow, CallerPasswordRow, MemberRow, MemberChanges, NewMember, MemberCondition, MemberPage, MemberSearch, RoleRow, RoleSearch, RolePage, MemberReplacement, MemberReplaced, NewMemberOutcome, MemberCredentials, CallerOriginRow, ThrottleRow, SessionRow, SecondFactorRow, RecoveryTokenRow, ProvisioningClientRow, SessionWithMember, CallReadQuery, CallReadRow, SessionFilter, SessionCookieRenewal, OidcClientRow, OidcKeyRow, OidcPayloadRow, OidcSessionLinkRow, OidcSessionLinkFilter, SamlSpRow, SamlKeyRow, SamlParticipantRow, SamlParticipantFilter, SamlRequestRow, EventRow, EventFilter, EventCursor, StaffRoleRow, PasskeyRow, PasskeyUse, PasskeyChallengeRow } from './rows.js';

export type * from './rows.js';

/**
 * The store contract: every implementation (SQLite, PostgreSQL) passes test/store/contract.ts.
 * Rows hold no secret in the clear: caller passwords, login cookies and tokens arrive here already hashed
 * (and the cookie and token also encrypted) by src/service/secrets.ts. Times are epoch milliseconds.
 */

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
  /** The value recorded under the deployment setting `name`, or null when none is. */
  setting(name: string): Promise<string | null>;
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
  /**
   * The members stored under these ids, in no particular order; an id no member has is left out. Any number of
   * ids, read in few statements: for the import, which compares a batch of rows with their members at once.
   */
  getMembers(ids: readonly string[]): Promise<MemberRow[]>;
  listMembers(): Promise<MemberRow[]>;
  /**
   * At most `limit` members, in id order, those whose id sorts after `afterId` ('' for the first page): every
   * member a page at a time, in memory bounded by the page, and no member missed or repeated by writes between
   * the pages that change no id.
   */
  listMembersAfter(afterId: string, limit: number): Promise<MemberRow[]>;
  /**
   * Changes the given fields in one write, if the member is still at expectedVersion (the version its writer read),
   * and returns the member as it is then, at the next version, written at `at`; null when no member has this id.
   * Throws StoreVersionConflictError, and changes nothing, when the member is at another version.
   */
  updateMember(id: string, changes: MemberChanges, expectedVersion: number, at: number): Promise<MemberRow | null>;
  /** Moves the member's version on, written at `at`; returns false when no member has this id. */
  setMemberEnabled(id: string, enabled: boolean, at: number): Promise<boolean>;
  /**
   * Writes every field at once, at `replacement.updatedAt`, in one transaction, if the member is still at
   * expectedVersion (`stale` otherwise), and moves its version on. `usernameTaken` when another member has the
   * username, ignoring case as findMembersByLogin folds it.
   */
  replaceMember(id: string, replacement: MemberReplacement, expectedVersion: number): Promise<MemberReplaced>;
  /**
   * Removes the member and all of its sessions; with expectedVersion, only if the member is still at that version
   * (`stale` otherwise).
   */
  deleteMember(id: string, expectedVersion?: number): Promise<'removed' | 'notFound' | 'stale'>;
  /**
   * The members meeting every condition (every member without any), `limit` of them from `offset` on, ordered by
   * creation then id, and how many meet them in all.
   */
  findMembers(conditions: readonly MemberCondition[], offset: number, limit: number): Promise<MemberPage>;
  /** SCIM's searches (src/store/sql/member-filter.ts compiles them): a page of the members meeting the search, and how many do. */
  searchMembers(search: MemberSearch): Promise<MemberPage>;
  /**
   * The roles as Groups (RoleRow): those written as Groups, and those only members hold (named by the least of
   * their names). A page of those meeting the search, and how many do.
   */
  searchRoles(search: RoleSearch): Promise<RolePage>;
  /** The role of this id, written as a Group or held by some member; null when neither. */
  getRole(id: string): Promise<RoleRow | null>;
  /** Writes the role as a Group at version 1; throws StoreConflictError when one of its id was written already. */
  createRole(role: Omit<RoleRow, 'version' | 'updatedAt'>): Promise<RoleRow>;
  /**
   * Writes the role's name and external id at `updatedAt`, if it is still at `expectedVersion` (0 for a role only
   * members hold, which is written as a Group then), moving its version on.
   */
  replaceRole(id: string, fields: Pick<RoleRow, 'name' | 'externalId' | 'updatedAt'>, expectedVersion: number): Promise<RoleRow | 'notFound' | 'stale'>;
  /** Removes the role as a Group (its members keep it until they are written without it); false when none was written. */
  deleteRole(id: string): Promise<boolean>;
  /**
   * Members whose username or email equals login, ignoring case (ASCII letters in every store; PostgreSQL
   * also folds other letters by its locale); usernames first, at most two rows. Two rows mean the login is
   * ambiguous.
   */
  findMembersByLogin(login: string): Promise<MemberCredentials[]>;
  getMemberCredentials(id: string): Promise<MemberCredentials | null>;
  /** Moves the member's version on, written at `at`; returns false when no member has this id. */
  setMemberPassword(id: string, passwordHash: string | null, at: number): Promise<boolean>;

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
  /** The session whose login cookie has this hash, or whose cookie it was until renewSessionCookie replaced it. */
  findSessionByCookieHash(cookieHash: string): Promise<SessionWithMember | null>;
  /**
   * A partner call's reads in one statement: the throttle state, the caller and the session the query asks for,
   * each as getThrottle, findCallerByPasswordHash and findSessionByTokenHash or findSessionByCookieHash read it.
   */
  readCall(query: CallReadQuery): Promise<CallReadRow>;
  /**
   * Gives the session a new login cookie in one write: the new hash and sealed value replace the current ones,
   * and the replaced hash stays the session's previous cookie (still found by findSessionByCookieHash; the one
   * kept before it no longer is). Only while the session's cookie hash is still `currentCookieHash` and it is
   * live at `now` (not revoked, not past expiresAt, which stays as it is); false otherwise, writing nothing.
   * Throws StoreConflictError when the new hash is another session's.
   */
  renewSessionCookie(id: string, renewal: SessionCookieRenewal): Promise<boolean>;
  /**
   * Moves each session's lastSeenAt forward to the time given (never back), in one transaction; ids that are
   * not stored are left out. The sessions' idle-deadline moves, written in batches (LastSeenWriter).
   */
  touchSessions(touches: ReadonlyArray<{ id: string; lastSeenAt: number }>): Promise<void>;
  /** The revoked session's member id; null when no unrevoked session has this id. */
  revokeSession(id: string, revokedAt: number): Promise<string | null>;
  /** Returns how many sessions were revoked. */
  revokeMemberSessions(memberId: string, revokedAt: number): Promise<number>;
  /** In creation order, each with how it was opened when that is known. */
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

  // Password recovery by email (src/service/recovery.ts).
  /**
   * Stores the token's hash for its member in place of the member's earlier one, which stops working at once,
   * if the member exists and is enabled; false, and nothing written, otherwise.
   */
  issueRecoveryToken(row: RecoveryTokenRow): Promise<boolean>;
  findRecoveryToken(tokenHash: string): Promise<RecoveryTokenRow | null>;
  /**
   * Deletes the token with this hash if it expires after `now`, and returns its member's id; null when there is
   * none, or it has expired. Atomic: of two requests with one token, on one instance or several, one gets the id.
   */
  consumeRecoveryToken(tokenHash: string, now: number): Promise<string | null>;
  /** Deletes the tokens that expired at or before `before`; how many. */
  purgeRecoveryTokens(before: number): Promise<number>;

  // SCIM provisioning clients (src/service/provisioning-clients.ts, docs/provisioning.md).
  /** Throws StoreConflictError when the name (or the token hash) is taken. */
  createProvisioningClient(name: string, tokenHash: string, createdAt: number): Promise<ProvisioningClientRow>;
  /** By name. */
  listProvisioningClients(): Promise<ProvisioningClientRow[]>;
  /** Replaces the client's token hash; false when no client has this name. */
  setProvisioningClientToken(name: string, tokenHash: string): Promise<boolean>;
  deleteProvisioningClient(name: string): Promise<boolean>;
  findProvisioningClientByTokenHash(tokenHash: string): Promise<ProvisioningClientRow | null>;
  /** Whether any client exists: SCIM answers only then. */
  hasProvisioningClients(): Promise<boolean>;

  // The OpenID provider (src/service/oidc/, docs/oidc.md).
  /** Throws StoreConflictError when the name or id is taken. */
  createOidcClient(client: OidcClientRow): Promise<void>;
  getOidcClient(id: string): Promise<OidcClientRow | null>;
  getOidcClientByName(name: string): Promise<OidcClientRow | null>;
  /** By name. */
  listOidcClients(): Promise<OidcClientRow[]>;
  /** Whether any client is registered: the provider answers only then. */
  hasOidcClients(): Promise<boolean>;
  setOidcClientSecret(id: string, secretHash: string): Promise<boolean>;
  deleteOidcClient(id: string): Promise<boolean>;

  /** Every key kept: those not retired first, then newest first (created later), then by kid. */
  listOidcKeys(): Promise<OidcKeyRow[]>;
  /** Adds the key unless a key that is not retired exists (two instances starting at once add one); whether it did. */
  addFirstOidcKey(key: OidcKeyRow): Promise<boolean>;
  /** Adds the key and retires every other key not yet retired, at the new key's createdAt, in one transaction. */
  rotateOidcKeys(key: OidcKeyRow): Promise<void>;

  /** Inserts the record or replaces it (same model and id). */
  upsertOidcPayload(row: OidcPayloadRow): Promise<void>;
  findOidcPayload(model: string, id: string): Promise<OidcPayloadRow | null>;
  findOidcPayloadByUid(model: string, uid: string): Promise<OidcPayloadRow | null>;
  consumeOidcPayload(model: string, id: string, consumedAt: number): Promise<void>;
  deleteOidcPayload(model: string, id: string): Promise<void>;
  /** Deletes the grant's records of one model, or of every model (the grant's own included) without one. */
  deleteOidcGrant(grantId: string, model?: string): Promise<void>;

  /** Records the link, replacing the uid's earlier one (the member signed in again); its member session must exist. */
  linkOidcSession(link: OidcSessionLinkRow): Promise<void>;
  findOidcSessionLink(uid: string): Promise<OidcSessionLinkRow | null>;
  findOidcSessionLinks(filter: OidcSessionLinkFilter): Promise<OidcSessionLinkRow[]>;
  deleteOidcSessionLink(uid: string): Promise<void>;

  /** Deletes the records that expired at or before `before`, and the keys retired at or before `keysRetiredBefore`; how many. */
  purgeOidc(before: number, keysRetiredBefore: number): Promise<number>;

  // The SAML identity provider (src/service/saml/, docs/saml.md).
  /** Throws StoreConflictError when the id, the name or the entity id is taken. */
  createSamlSp(sp: SamlSpRow): Promise<void>;
  getSamlSp(id: string): Promise<SamlSpRow | null>;
  getSamlSpByName(name: string): Promise<SamlSpRow | null>;
  getSamlSpByEntityId(entityId: string): Promise<SamlSpRow | null>;
  /** By name. */
  listSamlSps(): Promise<SamlSpRow[]>;
  /** Whether any SP is registered: the identity provider answers only then. */
  hasSamlSps(): Promise<boolean>;
  /** Removes the SP with its session participants and pending requests; false when no SP has this id. */
  deleteSamlSp(id: string): Promise<boolean>;

  /** Every key kept: the signing key (activated, not retired), then the next, then the retired, newest first. */
  listSamlKeys(): Promise<SamlKeyRow[]>;
  /**
   * Adds the key, signing from its createdAt, unless a signing key (activated, not retired) exists; whether it did.
   * Of two calls at once, on one instance or several, one adds its key.
   */
  addFirstSamlKey(key: SamlKeyRow): Promise<boolean>;
  /** Adds the key as the next one (published, not signing) unless a next key exists; whether it did. Of two calls at once, one adds its key. */
  addNextSamlKey(key: SamlKeyRow): Promise<boolean>;
  /**
   * The next key signs from `at` on and the keys signing until then are retired at `at`, in one transaction; the
   * kid of the key activated, or null when there was no next key (another activation took it).
   */
  activateNextSamlKey(at: number): Promise<string | null>;

  /** Records that the SP takes part in the member session, replacing its earlier participation in it; the session must exist. */
  joinSamlSession(row: SamlParticipantRow): Promise<void>;
  /** Ordered by member session, then creation, then SP id. */
  findSamlParticipants(filter: SamlParticipantFilter): Promise<SamlParticipantRow[]>;
  leaveSamlSession(memberSessionId: string, spId: string): Promise<void>;

  /** Stores the request; false, writing nothing, when the SP's request with this ID is stored already (a replay). */
  openSamlRequest(row: SamlRequestRow): Promise<boolean>;
  findSamlRequest(handle: string): Promise<SamlRequestRow | null>;
  /** Replaces the request's payload if it is unconsumed and expires after `now`; whether it did. */
  updateSamlRequest(handle: string, payloadSealed: string, now: number): Promise<boolean>;
  /**
   * Marks the request consumed at `now` if it is unconsumed and expires after `now`. Atomic: of two calls, on
   * one instance or several, one gets true.
   */
  consumeSamlRequest(handle: string, now: number): Promise<boolean>;

  /** Deletes the requests that expired at or before `before`, and the keys retired at or before `keysRetiredBefore`; how many. */
  purgeSaml(before: number, keysRetiredBefore: number): Promise<number>;

  // The events (src/service/events.ts, docs/operations.md "Events").
  /** Inserts the events in one transaction: all or none. An empty list writes nothing. */
  insertEvents(events: readonly EventRow[]): Promise<void>;
  /** The events meeting the filter, newest first (by time, then id, both descending). */
  listEvents(filter: EventFilter): Promise<EventRow[]>;
  /**
   * At most `limit` events at or after `since`, oldest first (by time, then id), those after `after` when given:
   * every event a page at a time, for an export.
   */
  exportEvents(since: number, after: EventCursor | null, limit: number): Promise<EventRow[]>;
  /** Deletes the events at or before `before`; how many. */
  purgeEvents(before: number): Promise<number>;

  // Staff roles (src/service/staff.ts, docs/staff.md).
  /** Gives the member this role in place of any it had; false, writing nothing, when no member has this id. */
  setStaffRole(row: StaffRoleRow): Promise<boolean>;
  getStaffRole(memberId: string): Promise<StaffRoleRow | null>;
  /** By member id. */
  listStaffRoles(): Promise<StaffRoleRow[]>;
  /** False when the member had no role. */
  deleteStaffRole(memberId: string): Promise<boolean>;

  /** Adds a member's passkey. Throws StoreConflictError when its credential id is stored already (any member's). */
  createPasskey(row: PasskeyRow): Promise<void>;
  /** The passkey with this credential id, whoever's it is, or null. */
  findPasskey(id: string): Promise<PasskeyRow | null>;
  /** The member's passkeys, oldest first. */
  listPasskeys(memberId: string): Promise<PasskeyRow[]>;
  /**
   * Records a sign-in with the passkey: its counter, backup flag and last use, only while its counter is still
   * `use.previousCounter` (two sign-ins racing with one counter: one wins). False when nothing was written.
   */
  usePasskey(id: string, use: PasskeyUse): Promise<boolean>;
  /** Renames the member's passkey; false when the member has no passkey of this id. */
  renamePasskey(memberId: string, id: string, name: string): Promise<boolean>;
  /** Removes the member's passkey; false when the member has no passkey of this id. */
  deletePasskey(memberId: string, id: string): Promise<boolean>;
  /** Stores a challenge (replacing one of the same id), and deletes those expired at `now`. */
  createPasskeyChallenge(row: PasskeyChallengeRow, now: number): Promise<void>;
  /** The challenge of this id, deleted as it is read, so that it is taken once; null when there is none (expired or not, the caller checks). */
  takePasskeyChallenge(id: string): Promise<PasskeyChallengeRow | null>;
  /** Records that the member session was opened with this passkey; it goes with the session. */
  recordPasskeySession(sessionId: string, passkeyId: string): Promise<void>;
  /** Whether the member session was opened with a passkey. */
  isPasskeySession(sessionId: string): Promise<boolean>;
}

export class StoreConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}

/** A conditional write found the member at another version than its writer read: someone else changed it since. */
export class StoreVersionConflictError extends StoreConflictError {
  constructor(
    readonly memberId: string,
    readonly expectedVersion: number,
  ) {
    super(`member "${memberId}" is no longer at version ${expectedVersion}`);
    this.name = 'StoreVersionConflictError';
  }
}
