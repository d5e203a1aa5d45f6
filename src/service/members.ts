import { randomUUID } from 'node:crypto';
import type { PasswordChangedBy } from '../mail/mail.js';
import type { MemberAttributes, MemberChanges, MemberRow, NewMember, NewMemberOutcome, Store } from '../store/store.js';
import { StoreConflictError, StoreVersionConflictError } from '../store/store.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import { validateAttributes } from './member-attributes.js';
import { CLI_ACTOR, type EventActor, type EventService } from './events.js';
import { changeContext, type Change, type MemberNotices } from './member-notices.js';
import { hashPassword } from './passwords.js';
import type { SessionService } from './sessions.js';
import { holdsValidText, INVALID_TEXT } from './valid-text.js';

export interface MemberInput {
  /** Required unless the id format is 'guid', which issues one when it is missing. */
  id?: string;
  username: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  attributes?: MemberAttributes;
}

/**
 * What member ids may be: 'any' non-empty text, or 'guid' for partners that take only GUIDs
 * (8-4-4-4-12 hex digits, without braces; stored lower-cased, so that one GUID has one spelling).
 */
export type MemberIdFormat = 'any' | 'guid';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The longest id, username, email or name: no login longer than this can match a member. */
export const MAX_FIELD_LENGTH = 256;
export const MIN_PASSWORD_LENGTH = 8;
/** Bounds the work a sign-in does for one request. */
export const MAX_PASSWORD_LENGTH = 1024;
/**
 * How often update makes its change, the first time included, while other writers keep changing the member:
 * more than two writers at once on one member is rare, even with provisioning.
 */
const UPDATE_ATTEMPTS = 3;

export class MemberService {
  /**
   * `sessions` is told when a member is disabled or removed, so that none of its cached sessions outlives that.
   * `clock` is the services' clock: members' creation times, and the member import's batch ages. `notices`
   * tells members of a password changed for them.
   */
  constructor(
    private readonly store: Store,
    readonly clock: Clock,
    private readonly sessions: Pick<SessionService, 'forgetCached' | 'memberDisabled'>,
    private readonly idFormat: MemberIdFormat,
    private readonly notices: MemberNotices,
    private readonly events: EventService,
  ) {}

  /** passwordHash is a stored hash from passwords.ts (an import's), or null: no password until one is set. */
  async add(input: MemberInput, passwordHash: string | null = null, actor: EventActor = CLI_ACTOR): Promise<MemberRow> {
    const member = this.#checked(input);
    // Sign-in matches usernames ignoring case, so two that differ only in case would lock each other out.
    const sameLogin = await this.store.findMembersByLogin(member.username);
    if (sameLogin.some(({ member: other }) => other.username.toLowerCase() === member.username.toLowerCase())) {
      throw new ServiceError('MEMBER_EXISTS', member.username);
    }
    try {
      const created = await this.store.createMember({ ...member, passwordHash });
      this.events.record({ type: 'member-created', memberId: created.id, actor });
      return created;
    } catch (error) {
      if (error instanceof StoreConflictError) throw new ServiceError('MEMBER_EXISTS', member.id);
      throw error;
    }
  }

  /**
   * The member as add would store it (id as the id format has it, fields trimmed and checked), without writing
   * it: for addMany. Throws MEMBER_INVALID.
   */
  prepare(input: MemberInput, passwordHash: string | null = null): NewMember {
    return { ...this.#checked(input), passwordHash };
  }

  #checked(input: MemberInput): NewMember {
    const id = this.#idOf(input.id);
    if (!id || !input.username.trim()) throw new ServiceError('MEMBER_INVALID', 'id and username are required');
    refuseInvalidFields({ id });
    const profile = checkedProfile({
      username: input.username,
      email: input.email ?? '',
      firstName: input.firstName ?? '',
      lastName: input.lastName ?? '',
      attributes: input.attributes ?? {},
    });
    return { id, ...profile, enabled: true, createdAt: this.clock() };
  }

  /**
   * Stores prepared members in one transaction, skipping those whose id or username (ignoring case, as add
   * refuses it) is taken; what became of each, in order, is Store.createMembers's answer.
   */
  async addMany(members: readonly NewMember[], actor: EventActor = CLI_ACTOR): Promise<NewMemberOutcome[]> {
    const outcomes = await this.store.createMembers(members);
    members.forEach((member, index) => {
      if (outcomes[index] === 'created') this.events.record({ type: 'member-created', memberId: member.id, actor });
    });
    return outcomes;
  }

  /** The stored member with this id, or null. */
  find(id: string): Promise<MemberRow | null> {
    return this.store.getMember(this.#lookup(id));
  }

  /** The stored members with these ids (GUIDs looked up lower-cased), in no particular order; unknown ids left out. */
  findMany(ids: readonly string[]): Promise<MemberRow[]> {
    return this.store.getMembers(ids.map((id) => this.#lookup(id)));
  }

  /** The stored member with exactly this username (not ignoring case), or null. */
  async findByUsername(username: string): Promise<MemberRow | null> {
    const matches = await this.store.findMembersByLogin(username);
    return matches.find(({ member }) => member.username === username)?.member ?? null;
  }

  /** The id to store: as given under 'any' (empty when missing, which add refuses); see MemberIdFormat. */
  #idOf(given: string | undefined): string {
    const id = (given ?? '').trim();
    if (this.idFormat === 'any') return id;
    if (!id) return randomUUID();
    if (!GUID.test(id)) throw new ServiceError('MEMBER_INVALID', 'the id is not a GUID (8-4-4-4-12 hex digits, no braces)');
    return id.toLowerCase();
  }

  #lookup(id: string): string {
    return memberIdLookup(id, this.idFormat);
  }

  /** Whether a member has this id (GUIDs looked up lower-cased). */
  async exists(id: string): Promise<boolean> {
    return (await this.store.getMember(this.#lookup(id))) !== null;
  }

  /**
   * Sets the member's password. With `change` (the member on the account page or by a recovery link, an
   * administrator), the member is told by mail who changed it, when and from where; without, as for the
   * password a test or a migration sets, nothing is sent.
   */
  async setPassword(id: string, password: string, change?: Change<PasswordChangedBy>): Promise<void> {
    const hash = await hashPassword(checkedPassword(password));
    const memberId = this.#lookup(id);
    if (!(await this.store.setMemberPassword(memberId, hash, this.clock()))) throw new ServiceError('MEMBER_NOT_FOUND', id);
    if (change === undefined) return;
    this.events.record({ ...changeContext(memberId, change), type: change.by === 'recovery' ? 'password-reset' : 'password-changed', memberId, outcome: change.by });
    if (!this.notices.sending) return;
    const member = await this.store.getMember(memberId);
    if (member) this.notices.send(member, { kind: 'password_changed', by: change.by }, change.from);
  }

  list(): Promise<MemberRow[]> {
    return this.store.listMembers();
  }

  /** At most `limit` members in id order, after `afterId` ('' for the first page): Store.listMembersAfter. */
  listAfter(afterId: string, limit: number): Promise<MemberRow[]> {
    return this.store.listMembersAfter(afterId, limit);
  }

  async get(id: string): Promise<MemberRow> {
    const member = await this.store.getMember(this.#lookup(id));
    if (!member) throw new ServiceError('MEMBER_NOT_FOUND', id);
    return member;
  }

  /**
   * Changes the fields given (attributes are replaced whole), checked as add checks them, in one write that goes
   * through only if nobody changed the member since it was read (its version), so that no other writer's change
   * is silently overwritten. `change` is the changes, or makes them from the member as it is stored (a merge, such
   * as `members update`'s attributes). Changed meanwhile, the member is read again and the change made again from
   * it, UPDATE_ATTEMPTS times in all; with `expectedVersion` (the version its writer read and based the change
   * on), never. Refused with MEMBER_CHANGED then.
   */
  async update(
    id: string,
    change: MemberChanges | ((current: MemberRow) => MemberChanges),
    options: { expectedVersion?: number; actor?: EventActor } = {},
  ): Promise<MemberRow> {
    const stored = this.#lookup(id);
    for (let attempt = 1; ; attempt += 1) {
      const current = await this.store.getMember(stored);
      if (!current) throw new ServiceError('MEMBER_NOT_FOUND', id);
      const changes = checkedChanges(typeof change === 'function' ? change(current) : change);
      try {
        const updated = await this.store.updateMember(stored, changes, options.expectedVersion ?? current.version, this.clock());
        this.sessions.forgetCached();
        if (!updated) throw new ServiceError('MEMBER_NOT_FOUND', id);
        // Which fields changed, never their values.
        this.events.record({ type: 'member-changed', memberId: updated.id, actor: options.actor ?? CLI_ACTOR, outcome: Object.keys(changes).sort().join(' ') });
        return updated;
      } catch (error) {
        if (!(error instanceof StoreVersionConflictError)) throw error;
        if (options.expectedVersion !== undefined || attempt === UPDATE_ATTEMPTS) throw new ServiceError('MEMBER_CHANGED', `${id}; try again`);
      }
    }
  }

  async setEnabled(id: string, enabled: boolean, actor: EventActor = CLI_ACTOR): Promise<void> {
    const memberId = this.#lookup(id);
    const found = await this.store.setMemberEnabled(memberId, enabled, this.clock());
    this.sessions.forgetCached();
    if (!found) throw new ServiceError('MEMBER_NOT_FOUND', id);
    if (!enabled) this.sessions.memberDisabled(memberId);
    this.events.record({ type: enabled ? 'member-enabled' : 'member-disabled', memberId, actor });
  }

  async remove(id: string, actor: EventActor = CLI_ACTOR): Promise<void> {
    const memberId = this.#lookup(id);
    const outcome = await this.store.deleteMember(memberId);
    this.sessions.forgetCached();
    if (outcome === 'notFound') throw new ServiceError('MEMBER_NOT_FOUND', id);
    this.events.record({ type: 'member-removed', memberId, actor });
  }
}

/** A member's own fields, as members add and provisioning give them; the external id and display name optional. */
export type MemberProfile = Pick<MemberRow, 'username' | 'email' | 'firstName' | 'lastName' | 'attributes'> &
  Partial<Pick<MemberRow, 'externalId' | 'displayName' | 'formattedName'>>;

/**
 * The fields as the service stores them, the others as they are: texts trimmed (an external id, display name or
 * formatted name left empty is none), a username, none too long or holding invalid text, attributes valid. Throws
 * MEMBER_INVALID.
 */
export function checkedProfile<P extends MemberProfile>(profile: P): P {
  const checked = {
    ...profile,
    username: profile.username.trim(),
    email: profile.email.trim(),
    firstName: profile.firstName.trim(),
    lastName: profile.lastName.trim(),
    attributes: validateAttributes(profile.attributes),
    ...(profile.externalId == null ? {} : { externalId: profile.externalId.trim() || null }),
    ...(profile.displayName == null ? {} : { displayName: profile.displayName.trim() || null }),
    ...(profile.formattedName == null ? {} : { formattedName: profile.formattedName.trim() || null }),
  };
  if (!checked.username) throw new ServiceError('MEMBER_INVALID', 'username is required');
  refuseInvalidFields(checked);
  return checked;
}

/** The password, when it is as long as a member's may be; throws MEMBER_PASSWORD_TOO_SHORT or MEMBER_PASSWORD_TOO_LONG. */
export function checkedPassword(password: string): string {
  // Code points, as people count characters; UTF-16 units would count an emoji twice.
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) throw new ServiceError('MEMBER_PASSWORD_TOO_SHORT');
  if (length > MAX_PASSWORD_LENGTH) throw new ServiceError('MEMBER_PASSWORD_TOO_LONG');
  return password;
}

/** A stored member's id as an admin or a provisioning client may give it: GUIDs are stored lower-cased, so they are looked up so. */
export function memberIdLookup(id: string, format: MemberIdFormat): string {
  return format === 'guid' ? id.trim().toLowerCase() : id;
}

/** The changes as add checks a member's fields: texts trimmed, not too long and valid text, attributes valid. */
function checkedChanges(changes: MemberChanges): MemberChanges {
  const checked: MemberChanges = {};
  for (const key of ['email', 'firstName', 'lastName'] as const) {
    const value = changes[key];
    if (value !== undefined) checked[key] = value.trim();
  }
  if (changes.attributes !== undefined) checked.attributes = validateAttributes(changes.attributes);
  refuseInvalidFields(checked);
  return checked;
}

/** Refuses a field too long or holding invalid text (src/service/valid-text.ts), attributes included. */
function refuseInvalidFields(fields: object): void {
  const tooLong = Object.entries(fields).find(([, v]) => typeof v === 'string' && v.length > MAX_FIELD_LENGTH);
  if (tooLong) throw new ServiceError('MEMBER_INVALID', `${tooLong[0]} is longer than ${MAX_FIELD_LENGTH} characters`);
  const invalid = Object.entries(fields).find(([, v]) => !holdsValidText(v));
  if (invalid) throw new ServiceError('MEMBER_INVALID', `${invalid[0]} ${INVALID_TEXT}`);
}
