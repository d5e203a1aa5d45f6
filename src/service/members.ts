import type { MemberRow, Store } from '../store/store.js';
import { StoreConflictError } from '../store/store.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import { hashPassword } from './passwords.js';
import type { SessionService } from './sessions.js';

export interface MemberInput {
  id: string;
  username: string;
  email?: string;
  firstName?: string;
  lastName?: string;
}

const MAX_FIELD_LENGTH = 256;
const MIN_PASSWORD_LENGTH = 8;
/** Bounds the work a sign-in does for one request. */
const MAX_PASSWORD_LENGTH = 1024;

export class MemberService {
  /** `sessions` is told when a member is disabled or removed, so that none of its cached sessions outlives that. */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sessions?: Pick<SessionService, 'forgetCached'>,
  ) {}

  /** passwordHash is a stored hash from passwords.ts (an import's), or null: no password until one is set. */
  async add(input: MemberInput, passwordHash: string | null = null): Promise<MemberRow> {
    const member = {
      id: input.id.trim(),
      username: input.username.trim(),
      email: (input.email ?? '').trim(),
      firstName: (input.firstName ?? '').trim(),
      lastName: (input.lastName ?? '').trim(),
      enabled: true,
      createdAt: this.clock(),
    };
    if (!member.id || !member.username) throw new ServiceError('MEMBER_INVALID', 'id and username are required');
    const tooLong = Object.entries(member).find(([, v]) => typeof v === 'string' && v.length > MAX_FIELD_LENGTH);
    if (tooLong) throw new ServiceError('MEMBER_INVALID', `${tooLong[0]} is longer than ${MAX_FIELD_LENGTH} characters`);
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

  /** Lets a bulk import skip known members before it spends a password hash on them. */
  async exists(id: string): Promise<boolean> {
    return (await this.store.getMember(id)) !== null;
  }

  async setPassword(id: string, password: string): Promise<void> {
    // Code points, as people count characters; UTF-16 units would count an emoji twice.
    const length = [...password].length;
    if (length < MIN_PASSWORD_LENGTH) throw new ServiceError('MEMBER_PASSWORD_TOO_SHORT');
    if (length > MAX_PASSWORD_LENGTH) throw new ServiceError('MEMBER_PASSWORD_TOO_LONG');
    if (!(await this.store.setMemberPassword(id, await hashPassword(password)))) throw new ServiceError('MEMBER_NOT_FOUND', id);
  }

  list(): Promise<MemberRow[]> {
    return this.store.listMembers();
  }

  async get(id: string): Promise<MemberRow> {
    const member = await this.store.getMember(id);
    if (!member) throw new ServiceError('MEMBER_NOT_FOUND', id);
    return member;
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    const found = await this.store.setMemberEnabled(id, enabled);
    this.sessions?.forgetCached();
    if (!found) throw new ServiceError('MEMBER_NOT_FOUND', id);
  }

  async remove(id: string): Promise<void> {
    const found = await this.store.deleteMember(id);
    this.sessions?.forgetCached();
    if (!found) throw new ServiceError('MEMBER_NOT_FOUND', id);
  }
}
