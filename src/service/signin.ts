import type { MemberCredentials, MemberRow, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { equalizeTiming, hashPassword, needsRehash, verifyPassword } from './passwords.js';
import type { Secrets } from './secrets.js';
import type { IssuedSession, SessionService } from './sessions.js';
import type { SignInThrottle } from './throttle.js';

export interface SignInRequest {
  /** Username or email address, as typed. */
  login: string;
  password: string;
  clientAddress: string;
  /** The domain the login cookie is set for: the configured cookie domain, or the request's host. */
  cookieDomain: string;
}

export type SignInResult =
  | { ok: true; member: MemberRow; issued: IssuedSession }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * Signing in with a username or email and a password. Every way of failing short of the throttle (unknown
 * login, ambiguous email, disabled member, no password yet, wrong password) gives the same result after the
 * same work, so that the answer never tells whether an account exists.
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
    return { ok: true, member, issued: await this.sessions.create(member.id, request.cookieDomain) };
  }

  /** Ends the session this login cookie belongs to, at once for every instance sharing the store. */
  signOut(cookie: string): Promise<boolean> {
    return this.sessions.revokeByCookie(cookie);
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
