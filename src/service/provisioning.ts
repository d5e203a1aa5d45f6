import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { MemberFilter, MemberPage, MemberRow, MemberSearch, Store } from '../store/store.js';
import { StoreConflictError } from '../store/store.js';
import type { Clock } from './clock.js';
import type { EventContext, EventService } from './events.js';
import { ServiceError } from './errors.js';
import { checkedPassword, checkedProfile, memberIdLookup, type MemberIdFormat } from './members.js';
import { hashPassword } from './passwords.js';
import type { SessionService } from './sessions.js';

/** What a provisioning write sets: every field at once, and a new password (null removes it) or, left out, none. */
export type ProvisionedFields = Pick<MemberRow, 'externalId' | 'username' | 'email' | 'firstName' | 'lastName' | 'displayName' | 'formattedName' | 'enabled' | 'attributes'> & {
  password?: string | null;
};

/** What a create or a replace did; `invalid` carries the service's reason, which the client is shown. */
export type ProvisioningWrite =
  | { ok: true; member: MemberRow }
  | { ok: false; reason: 'notFound' | 'stale' | 'userNameTaken' }
  | { ok: false; reason: 'invalid'; detail: string };

/** The fields checked and the password hashed, as they are stored; or why they cannot be. */
type Prepared = { ok: true; fields: Omit<ProvisionedFields, 'password'>; passwordHash: string | null | undefined } | { ok: false; reason: 'invalid'; detail: string };

/**
 * Members as SCIM provisioning reads and writes them (src/provisioning/port.ts): the same checks as MemberService
 * (fields trimmed, lengths, attributes, password lengths), every field written at once if the member is still at
 * the version read, ids issued as random UUIDs. Every change forgets the cached sessions and members, as
 * MemberService's changes do, so that a member disabled or removed stops verifying at once here (within
 * CACHE_TTL_MS on other instances), and the next answer for any of its sessions has its new fields.
 */
export class ProvisioningService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sessions: Pick<SessionService, 'forgetCached' | 'memberDisabled'>,
    private readonly idFormat: MemberIdFormat,
    private readonly events: EventService,
  ) {}

  /** The members a search finds; ids compared as ids are looked up (GUIDs trimmed and lower-cased). */
  list(query: Pick<MemberSearch, 'filter' | 'sort'>, page: { offset: number; limit: number }): Promise<MemberPage> {
    const filter = query.filter && this.#idsLookedUp(query.filter);
    return this.store.searchMembers({ ...query, ...(filter === undefined ? {} : { filter }), ...page });
  }

  #idsLookedUp(filter: MemberFilter): MemberFilter {
    switch (filter.kind) {
      case 'compare':
        return filter.field === 'id' && typeof filter.value === 'string' ? { ...filter, value: memberIdLookup(filter.value, this.idFormat) } : filter;
      case 'and':
      case 'or':
        return { kind: filter.kind, filters: filter.filters.map((inner) => this.#idsLookedUp(inner)) };
      case 'not':
        return { kind: 'not', filter: this.#idsLookedUp(filter.filter) };
      default:
        return filter;
    }
  }

  get(id: string): Promise<MemberRow | null> {
    return this.store.getMember(memberIdLookup(id, this.idFormat));
  }

  /** `by`: the provisioning client (actor) and the request, for the events of each write. */
  async create(fields: ProvisionedFields, by: EventContext = {}): Promise<ProvisioningWrite> {
    const prepared = await prepare(fields);
    if (!prepared.ok) return prepared;
    const { username } = prepared.fields;
    // Sign-in matches usernames ignoring case, as MemberService.add refuses them.
    const sameLogin = await this.store.findMembersByLogin(username);
    if (sameLogin.some(({ member }) => member.username.toLowerCase() === username.toLowerCase())) return { ok: false, reason: 'userNameTaken' };
    try {
      const member = await this.store.createMember({ ...prepared.fields, id: randomUUID(), createdAt: this.clock(), passwordHash: prepared.passwordHash ?? null });
      this.events.record({ ...by, type: 'member-created', memberId: member.id });
      if (!member.enabled) this.events.record({ ...by, type: 'member-disabled', memberId: member.id });
      return { ok: true, member };
    } catch (error) {
      if (error instanceof StoreConflictError) return { ok: false, reason: 'userNameTaken' };
      throw error;
    }
  }

  /**
   * Writes every field of `current` (the member as its writer read it) at once, if the member is still at its
   * version. Fields that, checked as they are stored (texts trimmed, empty attributes left out), are the member's
   * already, without a password, write nothing: the answer is `current`, at its version.
   */
  async replace(current: MemberRow, fields: ProvisionedFields, by: EventContext = {}): Promise<ProvisioningWrite> {
    const prepared = await prepare(fields);
    if (!prepared.ok) return prepared;
    const { passwordHash } = prepared;
    if (passwordHash === undefined && storedAlready(prepared.fields, current)) return { ok: true, member: current };
    const replacement = { ...prepared.fields, ...(passwordHash === undefined ? {} : { passwordHash }), updatedAt: this.clock() };
    const outcome = await this.store.replaceMember(current.id, replacement, current.version);
    this.sessions.forgetCached();
    if (!outcome.ok) return { ok: false, reason: outcome.reason === 'usernameTaken' ? 'userNameTaken' : outcome.reason };
    if (current.enabled && !outcome.member.enabled) this.sessions.memberDisabled(current.id);
    this.#recordReplaced(current, outcome.member, passwordHash !== undefined, by);
    return outcome;
  }

  /** member-changed naming the fields (never their values), and member-disabled or -enabled when that changed. */
  #recordReplaced(before: MemberRow, after: MemberRow, password: boolean, by: EventContext): void {
    const fields = (['externalId', 'username', 'email', 'firstName', 'lastName', 'displayName', 'formattedName'] as const).filter((key) => before[key] !== after[key]);
    const changed = [...fields, ...(isDeepStrictEqual(before.attributes, after.attributes) ? [] : ['attributes']), ...(password ? ['password'] : [])];
    if (changed.length > 0) this.events.record({ ...by, type: 'member-changed', memberId: after.id, outcome: changed.join(' ') });
    if (before.enabled !== after.enabled) this.events.record({ ...by, type: after.enabled ? 'member-enabled' : 'member-disabled', memberId: after.id });
  }

  async remove(id: string, expectedVersion?: number, by: EventContext = {}): Promise<'removed' | 'notFound' | 'stale'> {
    const memberId = memberIdLookup(id, this.idFormat);
    const outcome = await this.store.deleteMember(memberId, expectedVersion);
    this.sessions.forgetCached();
    if (outcome === 'removed') this.events.record({ ...by, type: 'member-removed', memberId });
    return outcome;
  }
}

/** Whether the fields, as stored, are the member's own: attributes compared whatever the order of their keys. */
function storedAlready(fields: Omit<ProvisionedFields, 'password'>, member: MemberRow): boolean {
  const scalars = (['externalId', 'username', 'email', 'firstName', 'lastName', 'displayName', 'formattedName', 'enabled'] as const).every((key) => fields[key] === member[key]);
  return scalars && isDeepStrictEqual(fields.attributes, member.attributes);
}

/** The fields as MemberService checks them, and the password's hash; a refusal's text is the client's to read. */
async function prepare({ password, ...fields }: ProvisionedFields): Promise<Prepared> {
  try {
    const profile = checkedProfile(fields);
    const passwordHash = typeof password === 'string' ? await hashPassword(checkedPassword(password)) : password;
    return { ok: true, fields: { ...fields, ...profile }, passwordHash };
  } catch (error) {
    if (error instanceof ServiceError) return { ok: false, reason: 'invalid', detail: error.message };
    throw error;
  }
}
