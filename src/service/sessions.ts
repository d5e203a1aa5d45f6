import { randomUUID } from 'node:crypto';
import type { SessionFilter, SessionRow, SessionThrough, SessionWithMember, Store } from '../store/store.js';
import type { CallRead } from './call-read.js';
import type { Clock } from './clock.js';
import { isValidCookieDomain, normalizeCookieDomain } from './domains.js';
import { ServiceError } from './errors.js';
import type { CookieTicket, FormsTickets } from './forms-tickets.js';
import { randomSecret, type Secrets } from './secrets.js';
import { LastSeenWriter } from './last-seen-writer.js';
import type { ShortLivedCache } from './short-lived-cache.js';
import { CLI_ACTOR, type EventContext, type EventService } from './events.js';

export interface SessionPolicy {
  absoluteTimeoutSeconds: number;
  idleTimeoutSeconds: number;
  /** Whether a successful verification moves the idle deadline forward. */
  slidingIdle: boolean;
  /**
   * How new tokens look: 'opaque' is a random 43-character secret; 'guid' a random UUID, for partners whose
   * token fields take only a GUID. Login cookies are opaque either way, unless they are the membership site's
   * Forms tickets (FormsTickets).
   */
  tokenFormat: 'opaque' | 'guid';
}

/**
 * Told when sessions begin and end (metrics); optional, so that the services never depend on how, or
 * whether, they are counted. `sessionsEnded` says which ended (the OpenID provider ends their OpenID sessions).
 */
export interface SessionEvents {
  sessionsCreated(count: number): void;
  sessionsRevoked(count: number): void;
  sessionsEnded?(ended: EndedSessions): void;
}

/** Sessions ended by a sign-out or a revocation: one, or every one of a member. */
export type EndedSessions = { sessionId: string } | { memberId: string };

/** Where a session began: the client's address and its User-Agent, when known, and what it was opened through. */
export interface SessionOrigin {
  clientAddress?: string;
  userAgent?: string;
  through?: SessionThrough | undefined;
}

const MAX_USER_AGENT_LENGTH = 512;

export interface IssuedSession {
  session: SessionRow;
  /** Shown once: only hashes are stored. */
  cookie: string;
  token: string;
}

/**
 * Why nobody is signed in; logged, never sent (the wire gets one stable text per operation). A Forms ticket of
 * the membership site adds two: `ticket-invalid` (not signed with the site's key, or not a ticket) and
 * `unknown-member` (no member has its name).
 */
export type NotSignedInReason =
  | 'missing'
  | 'unknown'
  | 'revoked'
  | 'expired'
  | 'idle'
  | 'member-disabled'
  | 'domain-mismatch'
  | 'ticket-invalid'
  | 'unknown-member';

/**
 * A session as found, with its token and login cookie: each the one looked up, or the one unsealed (null when
 * that failed, or when the session predates sealed cookies). Found by a login cookie that is a Forms ticket of
 * the membership site, `cookieTicket` is how that ticket stands: the cookie answers only while the site would
 * take it.
 */
export interface FoundSession {
  found: SessionWithMember;
  token: string | null;
  cookie: string | null;
  cookieTicket?: CookieTicket | undefined;
}

export type SessionCheck = SignedInSession | { ok: false; reason: NotSignedInReason };

/** A live session as a check found it, with its token and the login cookie looked up (or unsealed). */
export interface SignedInSession {
  ok: true;
  found: SessionWithMember;
  token: string;
  cookie: string | null;
}

/**
 * A session's login cookie renewed (FORMS_SLIDING): the new cookie, and how long the browser keeps it when its
 * ticket is persistent ("keep me signed in": as long as the session can live), null for the browser's session.
 */
export interface RenewedCookie {
  cookie: string;
  keepForMs: number | null;
}

/**
 * Sessions, found by the hash of their token or login cookie. Found sessions are cached for CACHE_TTL_MS
 * (`cache`); whatever is decided from a cached row (expiry, idleness) is decided against the current time.
 * With the membership site's keys (`forms`), each new session's login cookie is a Forms ticket of the site for
 * its member, and what `forms` caches is forgotten with the sessions.
 */
export class SessionService {
  /**
   * Moves of lastSeenAt are spaced out so that busy sessions do not turn every read into a write, and are
   * written in batches, off the call's path.
   */
  readonly #touchIntervalMs: number;
  readonly #lastSeen: LastSeenWriter;

  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    private readonly policy: SessionPolicy,
    private readonly clock: Clock,
    private readonly cache: ShortLivedCache<FoundSession>,
    private readonly recorded: EventService,
    private readonly events?: SessionEvents,
    private readonly forms?: FormsTickets,
  ) {
    this.#touchIntervalMs = Math.min(60_000, (policy.idleTimeoutSeconds * 1000) / 10);
    this.#lastSeen = new LastSeenWriter(store);
  }

  /** Writes the idle-deadline moves still queued (a graceful stop; tests). */
  flushLastSeen(): Promise<void> {
    return this.#lastSeen.flush();
  }

  /**
   * Values may be supplied (migrations, tests); otherwise fresh random ones are issued. `persistent`: the
   * member asked to stay signed in, so a Forms ticket issued as the login cookie is persistent. `origin` is where
   * the session began, for the member's own list of sessions.
   */
  async create(
    memberId: string,
    cookieDomain: string,
    values: { cookie?: string; token?: string; persistent?: boolean } = {},
    origin: SessionOrigin = {},
  ): Promise<IssuedSession> {
    const member = await this.store.getMember(memberId);
    if (!member) throw new ServiceError('MEMBER_NOT_FOUND', memberId);
    const now = this.clock();
    const cookie = values.cookie ?? this.forms?.issue(member.username, now, values.persistent ?? false) ?? randomSecret();
    const issued = this.#issue({ memberId, cookieDomain, ...values, cookie }, origin, now);
    await this.store.createSession(issued.session);
    this.events?.sessionsCreated(1);
    return issued;
  }

  /**
   * Creates many sessions with the values given, in one store transaction (bulk seeding and imports): all or
   * none. Unlike create, it does not look each member up: a member that does not exist fails the whole list
   * in the store.
   */
  async createMany(sessions: ReadonlyArray<{ memberId: string; cookieDomain: string; cookie: string; token: string }>): Promise<void> {
    const now = this.clock();
    await this.store.createSessions(sessions.map((values) => this.#issue(values, {}, now).session));
    this.events?.sessionsCreated(sessions.length);
  }

  #issue(values: { memberId: string; cookieDomain: string; cookie: string; token?: string }, origin: SessionOrigin, now: number): IssuedSession {
    const { memberId, cookieDomain, cookie } = values;
    const domain = normalizeCookieDomain(cookieDomain);
    if (!isValidCookieDomain(domain)) throw new ServiceError('DOMAIN_INVALID', cookieDomain);
    const token = values.token ?? (this.policy.tokenFormat === 'guid' ? randomUUID() : randomSecret());
    const session: SessionRow = {
      id: randomUUID(),
      memberId,
      cookieDomain: domain,
      cookieHash: this.secrets.hash('cookie', cookie),
      tokenHash: this.secrets.hash('token', token),
      tokenSealed: this.secrets.seal(token),
      cookieSealed: this.secrets.seal(cookie),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + this.policy.absoluteTimeoutSeconds * 1000,
      revokedAt: null,
      clientAddress: origin.clientAddress ?? null,
      // Browsers' own strings; a longer one is cut rather than stored whole.
      userAgent: origin.userAgent?.slice(0, MAX_USER_AGENT_LENGTH) ?? null,
      ...(origin.through ? { through: origin.through } : {}),
    };
    return { session, cookie, token };
  }

  /** Asks the call's one read (`read`) for this token's session, unless the cache holds it at `now`. */
  askToken(token: string | null, now: number, read: CallRead): void {
    if (token && this.cache.get(`token:${token}`, now) === undefined) read.askSession({ tokenHash: this.secrets.hash('token', token) }, this.cache.generation);
  }

  /** Asks the call's one read (`read`) for this login cookie's session, unless the cache holds it at `now`. */
  askCookie(cookie: string | null, now: number, read: CallRead): void {
    if (cookie && this.cache.get(`cookie:${cookie}`, now) === undefined) read.askSession({ cookieHash: this.secrets.hash('cookie', cookie) }, this.cache.generation);
  }

  /** The token's session; read by the call's one read when it was asked for there (askToken). */
  async checkToken(token: string | null, read?: CallRead): Promise<SessionCheck> {
    if (!token) return { ok: false, reason: 'missing' };
    const key = `token:${token}`;
    // Unsealed once per fetch, as checkCookie does the token.
    const entry = await this.cache.fetch(key, this.clock(), async () => {
      const asked = await read?.part('session', this.cache.generation);
      const found = asked !== undefined ? asked : await this.store.findSessionByTokenHash(this.secrets.hash('token', token));
      if (!found) return null;
      const { cookieSealed } = found.session;
      return { found, token, cookie: cookieSealed === null ? null : this.secrets.unseal(cookieSealed) };
    });
    return this.#check(entry);
  }

  /** The login cookie's session; read by the call's one read when it was asked for there (askCookie). */
  async checkCookie(cookie: string | null, cookieDomain: string | null, read?: CallRead): Promise<SessionCheck> {
    if (!cookie) return { ok: false, reason: 'missing' };
    const key = `cookie:${cookie}`;
    // Unsealed (and a ticket read) once per fetch: AES costs more than the rest of a cached call.
    const now = this.clock();
    const entry = await this.cache.fetch(key, now, async () => {
      const asked = await read?.part('session', this.cache.generation);
      const found = asked !== undefined ? asked : await this.store.findSessionByCookieHash(this.secrets.hash('cookie', cookie));
      return found && { found, token: this.secrets.unseal(found.session.tokenSealed), cookie, cookieTicket: this.forms?.cookieTicket(cookie, now) };
    });
    if (entry && normalizeCookieDomain(cookieDomain ?? '') !== entry.found.session.cookieDomain) {
      return { ok: false, reason: 'domain-mismatch' };
    }
    return this.#check(entry);
  }

  /**
   * FORMS_SLIDING: a visit of the member's browser to the service's own pages renews the login cookie of the
   * session it found, once its ticket has passed half its life (FormsTickets.renew). The session keeps its
   * expiry (SESSION_ABSOLUTE_TIMEOUT holds whatever happens) and takes the new cookie in one store write; the
   * cookie it replaces still answers until its own ticket expires, for whoever read it before the browser got
   * the new one. Null when nothing was renewed: no ticket to renew, or the session's cookie is no longer this
   * one (renewed meanwhile, or ended). Partners' reads never come here: they cannot set the member's cookie.
   */
  async renewCookie(signedIn: SignedInSession): Promise<RenewedCookie | null> {
    const { found, cookie } = signedIn;
    if (cookie === null || !this.forms) return null;
    const now = this.clock();
    const renewed = this.forms.renew(cookie, now);
    if (!renewed) return null;
    const { session } = found;
    const replaced = await this.store.renewSessionCookie(session.id, {
      currentCookieHash: this.secrets.hash('cookie', cookie),
      cookieHash: this.secrets.hash('cookie', renewed.cookie),
      cookieSealed: this.secrets.seal(renewed.cookie),
      now,
    });
    if (!replaced) return null;
    // A cached token lookup would give the replaced cookie as the session's.
    this.cache.clear();
    return { cookie: renewed.cookie, keepForMs: renewed.persistent ? session.expiresAt - now : null };
  }

  /** Forgets every cached session (and what the Forms tickets cache of members): a member changed, or sessions ended. */
  forgetCached(): void {
    this.cache.clear();
    this.forms?.forgetCached();
  }

  #check(entry: FoundSession | null): SessionCheck {
    if (!entry) return { ok: false, reason: 'unknown' };
    const { found, token, cookie, cookieTicket } = entry;
    const { session, member } = found;
    const now = this.clock();
    if (session.revokedAt !== null) return { ok: false, reason: 'revoked' };
    if (now >= session.expiresAt) return { ok: false, reason: 'expired' };
    if (cookieTicket && !cookieTicket.ok) return { ok: false, reason: cookieTicket.reason };
    if (cookieTicket && now > cookieTicket.expiresAt) return { ok: false, reason: 'expired' };
    const lastSeenAt = this.#lastSeen.lastSeen(session.id, session.lastSeenAt);
    if (now >= lastSeenAt + this.policy.idleTimeoutSeconds * 1000) return { ok: false, reason: 'idle' };
    if (!member.enabled) return { ok: false, reason: 'member-disabled' };
    // A token sealed under another key cannot be returned; such a session cannot be trusted either.
    if (token === null) return { ok: false, reason: 'unknown' };
    if (this.policy.slidingIdle && now - lastSeenAt >= this.#touchIntervalMs) this.#lastSeen.queue(session.id, now);
    return { ok: true, found, token, cookie };
  }

  /**
   * Revokes one session (the CLI's `sessions revoke`): recorded as its member's sessions-ended, one, by whoever
   * `context` says (the CLI's unless told). SESSION_NOT_FOUND when it was not there or already revoked.
   */
  async revoke(sessionId: string, context: EventContext & { reason?: string } = { actor: CLI_ACTOR }): Promise<void> {
    const memberId = await this.#revoke(sessionId);
    if (memberId === null) throw new ServiceError('SESSION_NOT_FOUND', sessionId);
    this.recorded.record({ ...context, type: 'sessions-ended', memberId, outcome: '1' });
  }

  /** Revokes the session; false when it was not there or already revoked. */
  async end(sessionId: string): Promise<boolean> {
    return (await this.#revoke(sessionId)) !== null;
  }

  /** The revoked session's member, or null. */
  async #revoke(sessionId: string): Promise<string | null> {
    const memberId = await this.store.revokeSession(sessionId, this.clock());
    this.forgetCached();
    if (memberId !== null) this.#ended(1, { sessionId });
    return memberId;
  }

  /**
   * Signs out the session this login cookie belongs to, whatever its domain: its id, or null when none was live.
   * Recorded as its member's sign-out.
   */
  async revokeByCookie(cookie: string, context: EventContext = {}): Promise<string | null> {
    const found = await this.store.findSessionByCookieHash(this.secrets.hash('cookie', cookie));
    const revoked = found !== null && (await this.store.revokeSession(found.session.id, this.clock())) !== null;
    this.forgetCached();
    if (!found || !revoked) return null;
    this.recorded.record({ ...context, type: 'signed-out', memberId: found.session.memberId });
    this.#ended(1, { sessionId: found.session.id });
    return found.session.id;
  }

  /**
   * Ends every session of the member: how many. Recorded as sessions-ended, with how many (`outcome`), why
   * (`reason`: a password reset, a sign-out by a Forms ticket…) and who did it (`context`, the CLI's unless told).
   */
  async revokeAllOf(memberId: string, context: EventContext & { reason?: string } = { actor: CLI_ACTOR }): Promise<number> {
    if (!(await this.store.getMember(memberId))) throw new ServiceError('MEMBER_NOT_FOUND', memberId);
    const count = await this.store.revokeMemberSessions(memberId, this.clock());
    this.forgetCached();
    this.recorded.record({ ...context, type: 'sessions-ended', memberId, outcome: String(count) });
    if (count > 0) this.#ended(count, { memberId });
    return count;
  }

  /**
   * The member was disabled: their sessions answer no more (and again should the member be enabled), and those
   * who keep sessions of their own on them (the OpenID provider, the SAML SPs) hear of it as of sessions that
   * ended, so that the sites signed in through them sign the member out too.
   */
  memberDisabled(memberId: string): void {
    this.forgetCached();
    this.events?.sessionsEnded?.({ memberId });
  }

  #ended(count: number, which: EndedSessions): void {
    this.events?.sessionsRevoked(count);
    this.events?.sessionsEnded?.(which);
  }

  /** Live sessions (not revoked, expired or idle), or all of them with includeEnded. */
  async list(filter: { memberId?: string; includeEnded?: boolean } = {}): Promise<SessionRow[]> {
    const storeFilter: SessionFilter = {};
    if (filter.memberId !== undefined) storeFilter.memberId = filter.memberId;
    if (filter.includeEnded) return this.store.listSessions(storeFilter);
    const now = this.clock();
    storeFilter.liveAt = now;
    const idleMs = this.policy.idleTimeoutSeconds * 1000;
    return (await this.store.listSessions(storeFilter)).filter((session) => now < session.lastSeenAt + idleMs);
  }
}
