import type { MemberRow, Store } from '../store/store.js';
import { StoreConflictError } from '../store/store.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';

export interface MemberInput {
  id: string;
  username: string;
  email?: string;
  firstName?: string;
  lastName?: string;
}

const MAX_FIELD_LENGTH = 256;

export class MemberService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async add(input: MemberInput): Promise<MemberRow> {
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
    try {
      return await this.store.createMember(member);
    } catch (error) {
      if (error instanceof StoreConflictError) throw new ServiceError('MEMBER_EXISTS', member.id);
      throw error;
    }
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
    if (!(await this.store.setMemberEnabled(id, enabled))) throw new ServiceError('MEMBER_NOT_FOUND', id);
  }

  async remove(id: string): Promise<void> {
    if (!(await this.store.deleteMember(id))) throw new ServiceError('MEMBER_NOT_FOUND', id);
  }
}
