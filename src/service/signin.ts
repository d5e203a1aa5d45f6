import type { MemberRow, SessionRow, SessionThrough, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { EventContext, EventService } from './events.js';
import type { FormsTickets } from './forms-tickets.js';
import { memberByLogin } from './login-match.js';
import { equalizeTiming, hashPassword, needsRehash, verifyPassword } from './passwords.js';
import type { SecondFactorService, SecondFactorSetup } from './second-factor.js';
import type { Secrets } from './secrets.js';
import type { EndedSessions, IssuedSession, RenewedCookie, SessionOrigin, SessionService } from './sessions.js';
import type { SignInThrottle } from './throttle.js';

export interface CredentialRequest extends EventContext {
  /** Username or email address, as typed. */
  login: string;
  password: string;
  clientAddress: string;
}

/** Why a sign-in was refused, as its event records it (the answer tells none of them apart, but the throttle). */
export type SignInRefusal = 'unknown-login' | 'member-disabled' | 'no-password' | 'wrong-password' | 'wrong-code' | 'throttled' | 'expired';

/** The member signed in on a visit to the pages, the session, and its login cookie if the visit renewed it. */
export interface SignedInVisit {
  member: MemberRow;
  session: SessionRow;
  renewed: RenewedCookie | null;
}

/** What the sessions opened here are opened through, unless another site's sign-in brought the member (`through`). */
const SIGN_IN_PAGE: SessionThrough = { kind: 'signin-page' };

/** Where a session is opened: for which cookie domain, and from which client. */
export interface SessionPlace extends SessionOrigin, EventContext {
  /** The domain the login cookie is set for: the configured cookie domain, or the request's host. */
  cookieDomain: string;
  clientAddress: string;
  /** The device as the member reads it ("Firefox on Windows"), for the mails a step may send. */
  device?: string | undefined;
  /** "Keep me signed in": the login cookie is to outlive the browser (a Forms ticket is issued persistent). */
  persistent?: boolean;
}

export type SignInRequest = CredentialRequest & SessionPlace;

/** How a check of a login and password ended. */
export type CredentialCheck =
  /** `step`: what the member must still give before a session (a code, or a set-up), or null for nothing. */
  | { ok: true; member: MemberRow; step: ChallengeStep | null }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/** How a check of a second factor's code ended. */
export type CodeCheck = { ok: true } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * How a sign-in ended: a session, a refusal, or a further step. The step's challenge stands for the password
 * just checked, so that the step carries no password: `code` asks for the member's second factor, `setup`
 * (MFA=required) has the member set one up first.
 */
export type SignInResult =
  | Exclude<CredentialCheck, { ok: true }>
  | { ok: true; member: MemberRow; issued: IssuedSession }
  | { ok: false; reason: 'second-factor'; step: ChallengeStep; member: MemberRow; challenge: string };

export type ChallengeStep = 'code' | 'setup';

/** What the second step of a sign-in ends in: a session (and, after a set-up, the recovery codes), or not. */
export type StepResult =
  | { ok: true; member: MemberRow; issued: IssuedSession; recoveryCodes?: string[] }
  | { ok: false; reason: 'expired' }
  | Exclude<CodeCheck, { ok: true }>;

/** How long the second step may take after the password. */
const CHALLENGE_TTL_MS = 5 * 60_000;

/** Whether members must have a second factor (MFA=required) or choose (optional). */
export type MfaPolicy = 'optional' | 'required';

/**
 * Signing in with a username or email and a password: on the sign-in page, and through AuthenticateUser,
 * Login and ValidateUser. Every way of failing short of the throttle (unknown login, ambiguous email,
 * disabled member, no password yet, wrong password) gives the same result after the same work, so that the
 * answer never tells whether an account exists.
 */
export class SignInService {
  constructor(
    private readonly store: Store,
    private readonly sessions: SessionService,
    private readonly throttle: SignInThrottle,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly secondFactor: SecondFactorService,
    private readonly mfa: MfaPolicy,
    private readonly events: EventService,
    private readonly tickets?: FormsTickets,
  ) {}

  async signIn(request: SignInRequest): Promise<SignInResult> {
    const check = await this.checkCredentials(request);
    if (!check.ok) return check;
    const { member, step } = check;
    if (step) return { ok: false, reason: 'second-factor', step, member, challenge: this.#challenge(step, member.id, request.login.trim()) };
    return { ok: true, member, issued: await this.#open(member, request, 'password') };
  }

  /** The second step with a code from the member's app or a recovery code; the session only after it. */
  async completeWithCode(challenge: string, code: string, place: SessionPlace): Promise<StepResult> {
    const pending = await this.#pending(challenge, 'code');
    if (!pending) return this.#expired(place);
    const checked = await this.checkCode(pending.member.id, pending.login, code, place);
    if (!checked.ok) return checked;
    return { ok: true, member: pending.member, issued: await this.#open(pending.member, place, 'code') };
  }

  /** The set-up step (MFA=required): the secret to show, begun once and shown again on a reload. */
  async setupFor(challenge: string): Promise<{ member: MemberRow; setup: SecondFactorSetup } | null> {
    const pending = await this.#pending(challenge, 'setup');
    if (!pending) return null;
    const account = pending.member.email || pending.member.username;
    const setup = (await this.secondFactor.pendingSetup(pending.member.id, account)) ?? (await this.secondFactor.beginSetup(pending.member.id, account));
    return { member: pending.member, setup };
  }

  /** Confirms the set-up with its first code, then opens the session: the recovery codes come with it. */
  async completeSetup(challenge: string, code: string, place: SessionPlace): Promise<StepResult> {
    const pending = await this.#pending(challenge, 'setup');
    if (!pending) return this.#expired(place);
    const memberId = pending.member.id;
    const lock = await this.throttle.check(pending.login, place.clientAddress, this.clock());
    if (lock) return this.#refused(place, memberId, 'throttled', { ok: false, reason: 'throttled', retryAfterSeconds: lock.retryAfterSeconds });
    const from = { client: place.clientAddress, device: place.device };
    const recoveryCodes = await this.secondFactor.confirmSetup(memberId, code, { by: 'account', from, requestId: place.requestId ?? undefined });
    if (!recoveryCodes) return this.#failed(pending.login, place, memberId);
    await this.throttle.success(pending.login);
    return { ok: true, member: pending.member, issued: await this.#open(pending.member, place, 'setup'), recoveryCodes };
  }

  /**
   * A second factor's code for a member whose password was just checked under `login`: throttled and
   * counted with the same counters as passwords, and used up when right. A recovery code used is told to the
   * member by mail, with the client and `device` (absent for a call from a partner's server). A refusal is
   * recorded as a failed sign-in, a recovery code used as such.
   */
  async checkCode(memberId: string, login: string, code: string, context: EventContext & { clientAddress: string }): Promise<CodeCheck> {
    const lock = await this.throttle.check(login, context.clientAddress, this.clock());
    if (lock) return this.#refused(context, memberId, 'throttled', { ok: false, reason: 'throttled', retryAfterSeconds: lock.retryAfterSeconds });
    const checked = await this.secondFactor.check(memberId, code);
    if (!checked.ok) return this.#failed(login, context, memberId);
    await this.throttle.success(login);
    if (checked.kind === 'recovery') await this.secondFactor.recoveryCodeUsed(memberId, context);
    return { ok: true };
  }

  /** What this member must give after the password: a code (a confirmed factor), a set-up (MFA=required), or nothing. */
  async secondFactorStep(memberId: string): Promise<ChallengeStep | null> {
    if (await this.secondFactor.isEnabled(memberId)) return 'code';
    return this.mfa === 'required' ? 'setup' : null;
  }

  /** A wrong code: counted, and recorded (`locked` when this failure locked the login or the address). */
  async #failed(login: string, context: EventContext & { clientAddress: string }, memberId: string): Promise<Exclude<CodeCheck, { ok: true }>> {
    const locked = await this.throttle.failure(login, context.clientAddress, this.clock());
    this.events.record({ ...context, type: 'signin-failed', memberId, outcome: locked ? 'locked' : 'refused', reason: 'wrong-code' });
    return locked ? { ok: false, reason: 'throttled', retryAfterSeconds: locked.retryAfterSeconds } : { ok: false, reason: 'invalid' };
  }

  #refused<R>(context: EventContext, memberId: string | null, reason: SignInRefusal, result: R): R {
    this.events.record({ ...context, type: 'signin-failed', memberId, outcome: 'refused', reason });
    return result;
  }

  /** A second step whose challenge is too old, or not the service's own: whose it was is not known. */
  #expired(place: SessionPlace): { ok: false; reason: 'expired' } {
    return this.#refused(place, null, 'expired', { ok: false, reason: 'expired' });
  }

  /** Opens the member's session, recorded as a sign-in that succeeded after this `step`. */
  async #open(member: MemberRow, place: SessionPlace, step: 'password' | 'code' | 'setup'): Promise<IssuedSession> {
    const { cookieDomain, persistent, actor, device, via, requestId, ...origin } = place;
    const issued = await this.sessions.create(member.id, cookieDomain, { persistent: persistent ?? false }, { ...origin, through: origin.through ?? SIGN_IN_PAGE });
    this.events.record({ actor, clientAddress: place.clientAddress, device, via, requestId, type: 'signin-succeeded', memberId: member.id, outcome: step });
    return issued;
  }

  /** `step.memberId.login.expiresAt`, base64url, then its keyed hash: it cannot be made or changed without the server key. */
  #challenge(step: ChallengeStep, memberId: string, login: string): string {
    const payload = Buffer.from(JSON.stringify([step, memberId, login, this.clock() + CHALLENGE_TTL_MS])).toString('base64url');
    return `${payload}.${this.secrets.hash('signin-challenge', payload)}`;
  }

  /** The member and login a challenge stands for, while it is fresh, of this step, and its member enabled. */
  async #pending(challenge: string, step: ChallengeStep): Promise<{ member: MemberRow; login: string } | null> {
    const [payload = '', proof = ''] = challenge.split('.');
    if (!payload || !this.secrets.proves('signin-challenge', payload, proof)) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (!Array.isArray(parsed)) return null;
    const [kind, memberId, login, expiresAt] = parsed as unknown[];
    if (kind !== step || typeof memberId !== 'string' || typeof login !== 'string' || typeof expiresAt !== 'number' || this.clock() >= expiresAt) return null;
    const member = await this.store.getMember(memberId);
    return member?.enabled ? { member, login } : null;
  }

  /** The password check alone, throttled and counted as a sign-in is; a legacy hash is replaced on success. */
  async checkCredentials(request: CredentialRequest): Promise<CredentialCheck> {
    const login = request.login.trim();
    const lock = await this.throttle.check(login, request.clientAddress, this.clock());
    if (lock) return this.#refused(request, null, 'throttled', { ok: false, reason: 'throttled', retryAfterSeconds: lock.retryAfterSeconds });

    const credentials = await memberByLogin(this.store, login);
    const member = credentials?.member;
    const stored = member?.enabled ? credentials?.passwordHash : null;
    const verified = stored ? await verifyPassword(stored, request.password) : null;
    if (!member || !verified?.ok) {
      // Legacy hashes verify in microseconds: without the dummy argon2id run, speed would tell they exist.
      if (!stored || needsRehash(stored)) await equalizeTiming(request.password);
      const locked = await this.throttle.failure(login, request.clientAddress, this.clock());
      // The event tells why, which the answer never does; never the login as typed (it may be a password typed in the wrong field).
      const reason: SignInRefusal = !member ? 'unknown-login' : !member.enabled ? 'member-disabled' : !stored ? 'no-password' : 'wrong-password';
      const { login: _login, password: _password, ...context } = request;
      this.events.record({ ...context, type: 'signin-failed', memberId: member?.id ?? null, outcome: locked ? 'locked' : 'refused', reason });
      return locked ? { ok: false, reason: 'throttled', retryAfterSeconds: locked.retryAfterSeconds } : { ok: false, reason: 'invalid' };
    }
    if (verified.needsRehash) await this.store.setMemberPassword(member.id, await hashPassword(request.password), this.clock());
    // With a second step to come, the count stays until its code is right: a right password alone clearing
    // it would give whoever knows the password a fresh set of guesses at the code on every sign-in.
    const step = await this.secondFactorStep(member.id);
    if (step === null) await this.throttle.success(login);
    return { ok: true, member, step };
  }

  /**
   * Ends the session this login cookie belongs to, at once for every instance sharing the store. A cookie that
   * is no session's but a Forms ticket of the membership site that still answers (the site signed the member
   * in, or renewed the cookie of a session here) ends every session of its member here: which of them was this
   * browser's cannot be told, and their end is what makes the member's tickets issued until now stop answering.
   * Says which sessions ended (for the identity providers to tell their sites through the browser), or null.
   */
  async signOut(cookie: string, context: EventContext = {}): Promise<EndedSessions | null> {
    const sessionId = await this.sessions.revokeByCookie(cookie, context);
    if (sessionId !== null) return { sessionId };
    const member = await this.tickets?.memberOf(cookie);
    const ended = member ? await this.sessions.revokeAllOf(member.id, { ...context, actor: { kind: 'member', id: member.id }, reason: 'forms-ticket-signed-out' }) : 0;
    return member && ended > 0 ? { memberId: member.id } : null;
  }

  /** Ends the live session this token belongs to (ISGweb's Token cookie): which one, or null when none was live. */
  async signOutToken(token: string, context: EventContext = {}): Promise<EndedSessions | null> {
    const check = await this.sessions.checkToken(token);
    if (!check.ok || !(await this.sessions.end(check.found.session.id))) return null;
    this.events.record({ ...context, type: 'signed-out', memberId: check.found.member.id });
    return { sessionId: check.found.session.id };
  }

  /**
   * A visit of the member's browser to the service's own pages with this login cookie for this domain: the
   * member and the session it signs in, and the cookie renewed for the page to set (FORMS_SLIDING, see
   * SessionService.renewCookie) or null; null when nobody is signed in.
   */
  async current(cookie: string, cookieDomain: string): Promise<SignedInVisit | null> {
    const check = await this.sessions.checkCookie(cookie, cookieDomain);
    if (!check.ok) return null;
    return { member: check.found.member, session: check.found.session, renewed: await this.sessions.renewCookie(check) };
  }

  /**
   * Binds a form nonce to the server key: the sign-in form carries this proof and the browser carries the
   * nonce in a cookie, so a page on another site can submit neither (signed double-submit against CSRF).
   */
  formProof(nonce: string): string {
    return this.secrets.hash('form-proof', nonce);
  }
}
