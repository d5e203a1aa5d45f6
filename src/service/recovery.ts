import type { MemberRow, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { CLI_ACTOR, type EventActor, type EventContext, type EventService } from './events.js';
import { ServiceError } from './errors.js';
import { memberByLogin } from './login-match.js';
import type { ChangeSource, MemberNotices } from './member-notices.js';
import { checkedPassword, type MemberService } from './members.js';
import { randomSecret, type Secrets } from './secrets.js';
import type { SessionService } from './sessions.js';
import type { SignInThrottle } from './throttle.js';

/** A recovery link's token: 32 random bytes, base64url, as randomSecret makes them. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface RecoveryRequest {
  /** Username or email address, as typed. */
  login: string;
  clientAddress: string;
  /** The device as the member recognises it ("Firefox on Windows"), for the mail. */
  device?: string | undefined;
  /** The link the mail carries: the new-password page's address, with this token in it. */
  link(token: string): string;
  requestId?: string | undefined;
}

/** The one answer to a request, whether or not an account matched; or the throttle's. */
export type RecoveryRequestResult = { ok: true } | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * How a new password by a recovery link ended: `invalid` for a link that is not (or no longer) good, whether it
 * expired, was used, was replaced by a newer one or never was; the password rules' refusals as the account
 * page's.
 */
export type RedeemResult = { ok: true; member: MemberRow } | { ok: false; reason: 'invalid' | 'too-short' | 'too-long' };

/**
 * Password recovery by email. A member names their account (username or email) and gets a link by mail; the link
 * carries a single-use token of which the store keeps only the keyed hash, one per member (a newer link voids the
 * older), good for RECOVERY_TOKEN_TTL. Opening it, the member chooses a new password, which ends all of their
 * sessions; they then sign in as usual, second factor included.
 *
 * A request gets the same answer after the same work whatever it names: the throttle, the lookup, a new token
 * and its hash, and the store's one statement that writes it (given no member id unless the member is enabled
 * and has an email address, it then writes nothing) all run either way; only the mail differs, and it is queued after the answer.
 * Requests are counted per login as typed and per client address, as sign-in failures are, under keys of their
 * own.
 */
export class RecoveryService {
  constructor(
    private readonly store: Store,
    private readonly members: MemberService,
    private readonly sessions: SessionService,
    private readonly secrets: Secrets,
    private readonly throttle: SignInThrottle,
    private readonly notices: MemberNotices,
    private readonly clock: Clock,
    /** RECOVERY_TOKEN_TTL. */
    private readonly tokenTtlSeconds: number,
    private readonly events: EventService,
  ) {}

  /** Whether links can be sent at all: only with a mailer (SMTP_URL). */
  get enabled(): boolean {
    return this.notices.sending;
  }

  /** How long a link works, in whole minutes, as the mail and the pages say it. */
  get validMinutes(): number {
    return Math.floor(this.tokenTtlSeconds / 60);
  }

  async request(request: RecoveryRequest): Promise<RecoveryRequestResult> {
    const login = request.login.trim();
    const now = this.clock();
    const context = { clientAddress: request.clientAddress, device: request.device, requestId: request.requestId };
    const lock = await this.throttle.check(login, request.clientAddress, now);
    if (lock) {
      this.events.record({ ...context, type: 'recovery-refused', reason: 'throttled' });
      return { ok: false, reason: 'throttled', retryAfterSeconds: lock.retryAfterSeconds };
    }
    const member = (await memberByLogin(this.store, login))?.member;
    const eligible = member !== undefined && member.enabled && member.email !== '' && this.enabled;
    const token = randomSecret();
    // No member has the empty id: for anyone else the statement matches no member and writes nothing.
    const [issued] = await Promise.all([
      this.store.issueRecoveryToken({ memberId: eligible ? member.id : '', tokenHash: this.#hash(token), createdAt: now, expiresAt: now + this.tokenTtlSeconds * 1000 }),
      this.throttle.failure(login, request.clientAddress, now),
    ]);
    // Recorded whatever it named: support sees a member's request that sent nothing, and why; never the login as typed.
    const unsent = !member ? 'unknown-login' : !member.enabled ? 'member-disabled' : member.email === '' ? 'no-email' : !this.enabled ? 'no-mail' : null;
    this.events.record({ ...context, type: 'recovery-requested', memberId: member?.id ?? null, outcome: issued ? 'sent' : 'not-sent', reason: unsent });
    if (issued && member) {
      const mail = { kind: 'recovery' as const, link: request.link(token), validMinutes: this.validMinutes };
      // Rendering the mail is work the other answer does not do: it runs after this answer is sent.
      setImmediate(() => this.notices.send(member, mail, { client: request.clientAddress, device: request.device }));
    }
    return { ok: true };
  }

  /**
   * A link for the member, for support to hand over (`members recovery-link`): it voids any earlier one, as a
   * requested link does. MEMBER_DISABLED for a disabled member, whose link would not work; MEMBER_NOT_FOUND.
   */
  async issue(memberId: string, actor: EventActor = CLI_ACTOR): Promise<{ token: string; expiresAt: number }> {
    const member = await this.members.get(memberId);
    const token = randomSecret();
    const createdAt = this.clock();
    const expiresAt = createdAt + this.tokenTtlSeconds * 1000;
    const issued = await this.store.issueRecoveryToken({ memberId: member.id, tokenHash: this.#hash(token), createdAt, expiresAt });
    if (!issued) throw new ServiceError('MEMBER_DISABLED', `${memberId} (enable it first, or its link would not work)`);
    this.events.record({ type: 'recovery-requested', memberId: member.id, actor, outcome: 'issued' });
    return { token, expiresAt };
  }

  /**
   * Mails the member a new link (staff, for a member who asks by phone): it voids any earlier one, as a requested
   * link does, and is not counted against the member's own requests. The link is made of the token by `link`, and
   * never returned; the event names `by.actor`, the mail where it was asked from. MEMBER_DISABLED, MEMBER_NOT_FOUND as issue().
   */
  async send(memberId: string, link: (token: string) => string, by: { actor: EventActor; from?: ChangeSource }): Promise<void> {
    const member = await this.members.get(memberId);
    const { token } = await this.issue(member.id, by.actor);
    this.notices.send(member, { kind: 'recovery', link: link(token), validMinutes: this.validMinutes }, by.from);
  }

  /** Whether the link's token is good now: stored, not expired, its member enabled. Uses nothing up. */
  async check(token: string): Promise<boolean> {
    return (await this.#refusal(token)) === null;
  }

  /** Why the link's token is not good now, or null when it is: what a refused link's event records. */
  async #refusal(token: string): Promise<{ reason: string; memberId: string | null } | null> {
    if (!TOKEN.test(token)) return { reason: 'malformed-link', memberId: null };
    const row = await this.store.findRecoveryToken(this.#hash(token));
    // Used, replaced by a newer link, purged after its expiry, or never issued: the store cannot tell which.
    if (!row) return { reason: 'unknown-link', memberId: null };
    if (row.expiresAt <= this.clock()) return { reason: 'expired-link', memberId: row.memberId };
    return (await this.store.getMember(row.memberId))?.enabled === true ? null : { reason: 'member-disabled', memberId: row.memberId };
  }

  /**
   * Sets the new password (the account page's rules) with a good token, which is used up only then, ends every
   * session of the member, and tells the member by mail. A password the rules refuse leaves the link working.
   * A link refused is recorded (recovery-refused, with why), a link used too (recovery-used, then the password
   * reset and the sessions ended).
   */
  async redeem(token: string, password: string, from: ChangeSource, requestId?: string): Promise<RedeemResult> {
    const context: EventContext = { clientAddress: from.client, device: from.device, requestId };
    const refusal = await this.#refusal(token);
    if (refusal) {
      this.events.record({ ...context, type: 'recovery-refused', ...refusal });
      return { ok: false, reason: 'invalid' };
    }
    try {
      checkedPassword(password);
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'MEMBER_PASSWORD_TOO_SHORT') return { ok: false, reason: 'too-short' };
      if (error instanceof ServiceError && error.code === 'MEMBER_PASSWORD_TOO_LONG') return { ok: false, reason: 'too-long' };
      throw error;
    }
    // The atomic use: of two submissions of one link, one goes on.
    const memberId = await this.store.consumeRecoveryToken(this.#hash(token), this.clock());
    const member = memberId === null ? null : await this.store.getMember(memberId);
    if (!member?.enabled) {
      this.events.record({ ...context, type: 'recovery-refused', memberId, reason: memberId === null ? 'used-meanwhile' : 'member-disabled' });
      return { ok: false, reason: 'invalid' };
    }
    this.events.record({ ...context, type: 'recovery-used', memberId: member.id });
    await this.members.setPassword(member.id, password, { by: 'recovery', from, requestId });
    await this.sessions.revokeAllOf(member.id, { ...context, actor: { kind: 'member', id: member.id }, reason: 'password-reset' });
    return { ok: true, member };
  }

  #hash(token: string): string {
    return this.secrets.hash('recovery-token', token);
  }
}

/** The recovery link: the new-password page's address with the token, and the return address kept when there is one. */
export function recoveryLink(pageUrl: string, token: string, returnUrl?: string): string {
  const url = new URL(pageUrl);
  url.searchParams.set('token', token);
  if (returnUrl) url.searchParams.set('ReturnUrl', returnUrl);
  return url.href;
}
