import type { MemberRow, SessionRow, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { EventContext, EventService } from './events.js';
import { ServiceError } from './errors.js';
import type { MemberService } from './members.js';
import { verifyPassword } from './passwords.js';
import type { SecondFactorService } from './second-factor.js';
import type { SessionService } from './sessions.js';
import type { SignInThrottle } from './throttle.js';

/** Why a change a member asked for on the account page was not made. */
export type AccountRefusal = 'wrong-password' | 'wrong-code' | 'too-short' | 'too-long' | 'throttled';

export type AccountResult = { ok: true } | { ok: false; reason: AccountRefusal; retryAfterSeconds?: number };

/** A change asked for with the current password, as its refusal records it (outcome), with who asked and from where. */
interface AskedChange {
  change: 'password-change' | 'second-factor-off';
  clientAddress: string;
  device?: string | undefined;
  requestId?: string | undefined;
}

/**
 * What a signed-in member may do on their own account: change the password, see and end their sessions, and
 * turn a second factor on or off. Every change that needs the current password counts a wrong one against the
 * member's sign-in throttle, so that a session left open does not let anyone guess it.
 */
export class AccountService {
  constructor(
    private readonly store: Store,
    private readonly members: MemberService,
    private readonly sessions: SessionService,
    private readonly secondFactor: SecondFactorService,
    private readonly throttle: SignInThrottle,
    private readonly clock: Clock,
    private readonly events: EventService,
  ) {}

  /**
   * Sets a new password after checking the current one, and ends every other session of the member (the ids of
   * those it ended: `endedSessions`). The member is told by mail, with the client and the `device` the change came from.
   */
  async changePassword(
    member: MemberRow,
    current: string,
    next: string,
    keep: SessionRow,
    clientAddress: string,
    device?: string,
    requestId?: string,
  ): Promise<Exclude<AccountResult, { ok: true }> | { ok: true; endedSessions: string[] }> {
    const checked = await this.#password(member, current, { change: 'password-change', clientAddress, device, requestId });
    if (!checked.ok) return checked;
    try {
      await this.members.setPassword(member.id, next, { by: 'account', from: { client: clientAddress, device }, requestId });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'MEMBER_PASSWORD_TOO_SHORT') return { ok: false, reason: 'too-short' };
      if (error instanceof ServiceError && error.code === 'MEMBER_PASSWORD_TOO_LONG') return { ok: false, reason: 'too-long' };
      throw error;
    }
    return { ok: true, endedSessions: await this.endOtherSessions(member.id, keep.id, { clientAddress, device, requestId, reason: 'password-changed' }) };
  }

  /** The member's live sessions, newest first. */
  async liveSessions(memberId: string): Promise<SessionRow[]> {
    return (await this.sessions.list({ memberId })).sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Ends one of the member's own sessions; false when it is not a live session of theirs. */
  async endSession(memberId: string, sessionId: string, context: EventContext = {}): Promise<boolean> {
    const own = (await this.sessions.list({ memberId })).some((session) => session.id === sessionId);
    const ended = own && (await this.sessions.end(sessionId));
    if (ended) this.events.record({ ...context, type: 'sessions-ended', memberId, outcome: '1', reason: 'ended-on-account-page' });
    return ended;
  }

  /** Ends every live session of the member but one: the ids of those it ended. Recorded as the member's, for `reason`. */
  async endOtherSessions(memberId: string, keepId: string, context: EventContext & { reason?: string } = {}): Promise<string[]> {
    const others = (await this.sessions.list({ memberId })).filter((session) => session.id !== keepId);
    const ended = (await Promise.all(others.map(async (session) => ((await this.sessions.end(session.id)) ? session.id : null)))).filter((id) => id !== null);
    if (ended.length > 0) this.events.record({ reason: 'ended-on-account-page', ...context, type: 'sessions-ended', memberId, outcome: String(ended.length) });
    return ended;
  }

  /**
   * Turns the second factor off: the current password and a code (or a recovery code) are both needed. The
   * member is told by mail, as for a password change.
   */
  async removeSecondFactor(member: MemberRow, current: string, code: string, clientAddress: string, device?: string, requestId?: string): Promise<AccountResult> {
    const asked: AskedChange = { change: 'second-factor-off', clientAddress, device, requestId };
    const checked = await this.#password(member, current, asked);
    if (!checked.ok) return checked;
    if (!(await this.secondFactor.check(member.id, code)).ok) return this.#failed(member, 'wrong-code', asked);
    await this.secondFactor.remove(member.id, { by: 'account', from: { client: clientAddress, device }, requestId });
    return { ok: true };
  }

  async #password(member: MemberRow, current: string, asked: AskedChange): Promise<AccountResult> {
    const lock = await this.throttle.check(member.username, asked.clientAddress, this.clock());
    if (lock) {
      this.#record(member, asked, 'throttled');
      return { ok: false, reason: 'throttled', retryAfterSeconds: lock.retryAfterSeconds };
    }
    const stored = (await this.store.getMemberCredentials(member.id))?.passwordHash;
    if (!stored || !(await verifyPassword(stored, current)).ok) return this.#failed(member, 'wrong-password', asked);
    return { ok: true };
  }

  /**
   * A wrong password or code: counted against the member's sign-in throttle, and recorded as what it was (the
   * failure that locks the throttle too; the attempts after it are recorded as throttled).
   */
  async #failed(member: MemberRow, reason: 'wrong-password' | 'wrong-code', asked: AskedChange): Promise<AccountResult> {
    const locked = await this.throttle.failure(member.username, asked.clientAddress, this.clock());
    this.#record(member, asked, reason);
    return locked ? { ok: false, reason: 'throttled', retryAfterSeconds: locked.retryAfterSeconds } : { ok: false, reason };
  }

  /** Records the change refused, as account-change-refused: the change asked for (outcome) and why (reason). */
  #record(member: MemberRow, asked: AskedChange, reason: 'wrong-password' | 'wrong-code' | 'throttled'): void {
    const { change, ...context } = asked;
    this.events.record({ ...context, type: 'account-change-refused', memberId: member.id, outcome: change, reason });
  }
}
