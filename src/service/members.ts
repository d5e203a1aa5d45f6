import { randomUUID } from 'node:crypto';
import type { MemberAttributes, MemberChanges, MemberRow, NewMember, NewMemberOutcome, Store } from '../store/store.js';
import { StoreConflictError } from '../store/store.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import { validateAttributes } from './member-attributes.js';
import { hashPassword } from './passwords.js';
import type { SessionService } from './sessions.js';

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

export class MemberService {
  /**
   * `sessions` is told when a member is disabled or removed, so that none of its cached sessions outlives that.
   * `clock` is the services' clock: members' creation times, and the member import's batch ages.
   */
  constructor(
    private readonly store: Store,
    readonly clock: Clock,
    private readonly sessions: Pick<SessionService, 'forgetCached'>,
    private readonly idFormat: MemberIdFormat,
  ) {}

  /** passwordHash is a stored hash from passwords.ts (an import's), or null: no password until one is set. */
  async add(input: MemberInput, passwordHash: string | null = null): Promise<MemberRow> {
    const member = this.#checked(input);
    // Sign-in matches usernames ignoring case, so two that differ only in case would lock each other out.
    const sameLogin = await this.store.findMembersByLogin(member.username);
    if (sameLogin.some(({ member: other }) => other.username.toLowerCase() === member.username.toLowerCase())) {
      throw new ServiceError('MEMBER_EXISTS', member.username);
    }
    try {
      return await this.store.createMember({ ...member, passwordHash });
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

  #checked(input: MemberInput): MemberRow {
    const member: MemberRow = {
      id: this.#idOf(input.id),
      username: input.username.trim(),
      email: (input.email ?? '').trim(),
      firstName: (input.firstName ?? '').trim(),
      lastName: (input.lastName ?? '').trim(),
      enabled: true,
      createdAt: this.clock(),
      attributes: validateAttributes(input.attributes ?? {}),
    };
    if (!member.id || !member.username) throw new ServiceError('MEMBER_INVALID', 'id and username are required');
    refuseLongFields(member);
    return member;
  }

  /**
   * Stores prepared members in one transaction, skipping those whose id or username (ignoring case, as add
   * refuses it) is taken; what became of each, in order, is Store.createMembers's answer.
   */
  addMany(members: readonly NewMember[]): Promise<NewMemberOutcome[]> {
    return this.store.createMembers(members);
  }

  /** The stored member with this id, or null. */
  find(id: string): Promise<MemberRow | null> {
    return this.store.getMember(this.#lookup(id));
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

  /** A stored member's id as an admin may type it: GUIDs are stored lower-cased, so they are looked up so. */
  #lookup(id: string): string {
    return this.idFormat === 'guid' ? id.trim().toLowerCase() : id;
  }

  /** Whether a member has this id (GUIDs looked up lower-cased). */
  async exists(id: string): Promise<boolean> {
    return (await this.store.getMember(this.#lookup(id))) !== null;
  }

  async setPassword(id: string, password: string): Promise<void> {
    // Code points, as people count characters; UTF-16 units would count an emoji twice.
    const length = [...password].length;
    if (length < MIN_PASSWORD_LENGTH) throw new ServiceError('MEMBER_PASSWORD_TOO_SHORT');
    if (length > MAX_PASSWORD_LENGTH) throw new ServiceError('MEMBER_PASSWORD_TOO_LONG');
    if (!(await this.store.setMemberPassword(this.#lookup(id), await hashPassword(password)))) throw new ServiceError('MEMBER_NOT_FOUND', id);
  }

  list(): Promise<MemberRow[]> {
    return this.store.listMembers();
  }

  async get(id: string): Promise<MemberRow> {
    const member = await this.store.getMember(this.#lookup(id));
    if (!member) throw new ServiceError('MEMBER_NOT_FOUND', id);
    return member;
  }

  /** Changes the fields given (attributes are replaced whole), checked as add checks them. */
  async update(id: string, changes: MemberChanges): Promise<MemberRow> {
    const checked: MemberChanges = {};
    for (const key of ['email', 'firstName', 'lastName'] as const) {
      const value = changes[key];
      if (value !== undefined) checked[key] = value.trim();
    }
    refuseLongFields(checked);
    if (changes.attributes !== undefined) checked.attributes = validateAttributes(changes.attributes);
    const updated = await this.store.updateMember(this.#lookup(id), checked);
    this.sessions.forgetCached();
    if (!updated) throw new ServiceError('MEMBER_NOT_FOUND', id);
    return updated;
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    const found = await this.store.setMemberEnabled(this.#lookup(id), enabled);
    this.sessions.forgetCached();
    if (!found) throw new ServiceError('MEMBER_NOT_FOUND', id);
  }

  async remove(id: string): Promise<void> {
    const found = await this.store.deleteMember(this.#lookup(id));
    this.sessions.forgetCached();
    if (!found) throw new ServiceError('MEMBER_NOT_FOUND', id);
  }
}

function refuseLongFields(fields: object): void {
  const tooLong = Object.entries(fields).find(([, v]) => typeof v === 'string' && v.length > MAX_FIELD_LENGTH);
  if (tooLong) throw new ServiceError('MEMBER_INVALID', `${tooLong[0]} is longer than ${MAX_FIELD_LENGTH} characters`);
}
