import type { MemberCredentials, MemberRow, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { equalizeTiming, hashPassword, needsRehash, verifyPassword } from './passwords.js';
import type { Secrets } from './secrets.js';
import type { IssuedSession, SessionService } from './sessions.js';
import type { SignInThrottle } from './throttle.js';

export interface CredentialRequest {
  /** Username or email address, as typed. */
  login: string;
  password: string;
  clientAddress: string;
}

export interface SignInRequest extends CredentialRequest {
  /** The domain the login cookie is set for: the configured cookie domain, or the request's host. */
  cookieDomain: string;
}

/** How a check of a login and password ended. */
export type CredentialCheck =
  | { ok: true; member: MemberRow }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

export type SignInResult = Exclude<CredentialCheck, { ok: true }> | { ok: true; member: MemberRow; issued: IssuedSession };

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
  ) {}

  async signIn(request: SignInRequest): Promise<SignInResult> {
    const check = await this.checkCredentials(request);
    if (!check.ok) return check;
    return { ok: true, member: check.member, issued: await this.sessions.create(check.member.id, request.cookieDomain) };
  }

  /** The password check alone, throttled and counted as a sign-in is; a legacy hash is replaced on success. */
  async checkCredentials(request: CredentialRequest): Promise<CredentialCheck> {
    const login = request.login.trim();
    const lock = await this.throttle.check(login, request.clientAddress, this.clock());
    if (lock) return { ok: false, reason: 'throttled', retryAfterSeconds: lock.retryAfterSeconds };

    const credentials = await this.#find(login);
    const member = credentials?.member;
    const stored = member?.enabled ? credentials?.passwordHash : null;
    const verified = stored ? await verifyPassword(stored, request.password) : null;
    if (!member || !verified?.ok) {
      // Legacy hashes verify in microseconds: without the dummy argon2id run, speed would tell they exist.
      if (!stored || needsRehash(stored)) await equalizeTiming(request.password);
      const locked = await this.throttle.failure(login, request.clientAddress, this.clock());
      return locked ? { ok: false, reason: 'throttled', retryAfterSeconds: locked.retryAfterSeconds } : { ok: false, reason: 'invalid' };
    }
    if (verified.needsRehash) await this.store.setMemberPassword(member.id, await hashPassword(request.password));
    await this.throttle.success(login);
    return { ok: true, member };
  }

  /** Ends the session this login cookie belongs to, at once for every instance sharing the store. */
  signOut(cookie: string): Promise<boolean> {
    return this.sessions.revokeByCookie(cookie);
  }

  /** Ends the live session this token belongs to (ISGweb's Token cookie); false when none was live. */
  async signOutToken(token: string): Promise<boolean> {
    const check = await this.sessions.checkToken(token);
    return check.ok && this.sessions.end(check.found.session.id);
  }

  /** The member signed in with this login cookie for this domain, or null. */
  async current(cookie: string, cookieDomain: string): Promise<MemberRow | null> {
    const check = await this.sessions.checkCookie(cookie, cookieDomain);
    return check.ok ? check.found.member : null;
  }

  /**
   * Binds a form nonce to the server key: the sign-in form carries this proof and the browser carries the
   * nonce in a cookie, so a page on another site can submit neither (signed double-submit against CSRF).
   */
  formProof(nonce: string): string {
    return this.secrets.hash('form-proof', nonce);
  }

  /** A username match wins; an email shared by two members signs neither in (treated as unknown). */
  async #find(login: string): Promise<MemberCredentials | null> {
    if (!login) return null;
    const [first, second] = await this.store.findMembersByLogin(login);
    if (!first) return null;
    if (first.member.username.toLowerCase() === login.toLowerCase() || !second) return first;
    return null;
  }
}
