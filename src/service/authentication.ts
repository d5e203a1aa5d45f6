import type { CallerRow, MemberRow, Store } from '../store/store.js';
import { CallRead } from './call-read.js';
import type { CallerService } from './callers.js';
import { MAX_FIELD_LENGTH, MAX_PASSWORD_LENGTH } from './members.js';
import type { Clock } from './clock.js';
import type { EventContext, EventService } from './events.js';
import { normalizeCookieDomain } from './domains.js';
import { CallerThrottledError, ServiceError } from './errors.js';
import type { FormsTickets, TicketCheck } from './forms-tickets.js';
import type { NotSignedInReason, SessionCheck, SessionService } from './sessions.js';
import type { CredentialCheck, SignInService } from './signin.js';
import type { KeyedThrottle } from './throttle.js';
import { isValidText } from './valid-text.js';
import type {
  AuthenticateCookieRequest,
  AuthenticateTokenRequest,
  AuthenticateUserRequest,
  DeleteUserSessionRequest,
  LoginRequest,
  OperationName,
  ValidateUserRequest,
} from './wsdl-types.js';

/** A live session's secrets, as the member's partner needs them: the token, and the login cookie when it is known. */
export interface SessionCredentials {
  token: string;
  /** Null for a session created before login cookies were kept (sealed). */
  cookie: string | null;
}

/**
 * Why an operation answered without a member. Each is reported in band (the visitor's or the partner's
 * mistake, not the calling application's), with a stable text per kind.
 */
export type Refusal =
  /** No live session for this token or cookie (the reason is for logs only). */
  | { kind: 'not-signed-in'; reason: NotSignedInReason }
  /** Unknown login, wrong password, disabled member: one answer for all, so it tells nothing. */
  | { kind: 'invalid-credentials' }
  /** Too many failed sign-ins for this login or from this address. */
  | { kind: 'locked'; retryAfterSeconds: number }
  /** The member has a second factor (or MFA=required), and authenticationToken was missing or wrong. */
  | { kind: 'second-factor-required' };

/** What the bindings render: the answer, with the operation and the calling application's name. */
export type Outcome = { operation: OperationName; caller: string } & (
  | { kind: 'member'; member: MemberRow; session: SessionCredentials | null }
  | { kind: 'session-ended'; member: MemberRow }
  | { kind: 'refused'; refusal: Refusal }
);

/** What the bindings know of a call besides its parameters. */
export interface CallContext {
  /** The client's address, as the call log records it (src/web/client-address.ts). */
  clientAddress: string;
  /**
   * The domain a session created by this call is for: the configured cookie domain, or the service's host.
   * Asked for only by the operation that creates sessions, and by AuthenticateCookie for a Forms ticket of the
   * membership site, which answers for this domain only.
   */
  cookieDomain(): string;
  /** The request's id (src/web/request-id.ts), for the events the call records. */
  requestId?: string | undefined;
  /**
   * What the call says of its sender (its software's User-Agent, the origin of a browser's page): asked for only
   * when a wrong security password leaves nothing else to tell the caller by.
   */
  sender?(): { software: string | undefined; origin: string | undefined };
}

/**
 * The operations of Authentication.asmx. Parameters arrive as ASMX reads them: a missing parameter is null. A
 * wrong or missing security password throws ServiceError INVALID_SECURITY_PASSWORD; a visitor who is not
 * signed in, or whose credentials are wrong, is a normal outcome, never an error.
 *
 * Failed security passwords are counted per client address (`throttle`, keys `caller-address:<address>`).
 * Once an address has reached the threshold, every call from it throws CallerThrottledError until the lock
 * ends, before its password is looked at: the right password does not get through. A correct password does not
 * clear the count (see verify below).
 *
 * What a call reads of the store that the caches do not hold (the address's throttle state, the caller, the
 * session) it reads in one statement (CallRead): each service asks for its part before anything is read.
 *
 * With the membership site's keys (`tickets`), AuthenticateCookie also answers for the site's own login cookie,
 * a Forms ticket (src/service/forms-tickets.ts), when it is no session's cookie here.
 */
export class AuthenticationService {
  constructor(
    private readonly store: Store,
    private readonly callers: CallerService,
    private readonly sessions: SessionService,
    private readonly signin: SignInService,
    private readonly throttle: KeyedThrottle,
    private readonly clock: Clock,
    private readonly events: EventService,
    private readonly tickets?: FormsTickets,
  ) {}

  async authenticateToken(request: AuthenticateTokenRequest, context: CallContext): Promise<Outcome> {
    const read = this.#read(request.securityPassword, context);
    this.sessions.askToken(request.token, this.clock(), read);
    const caller = await this.#verify('AuthenticateToken', request.securityPassword, context, read);
    return sessionOutcome('AuthenticateToken', caller.name, await this.sessions.checkToken(request.token, read));
  }

  /**
   * The session of this login cookie, as it always was. Only a cookie that is no session's here (reason
   * `unknown`) and looks like a Forms ticket of the site is then read as one: the sessions' own cookies cost
   * nothing more. A ticket answers for the service's cookie domain only, without a session: no token and no
   * USER_COOKIE, as Login's answer (docs/imis.md).
   */
  async authenticateCookie(request: AuthenticateCookieRequest, context: CallContext): Promise<Outcome> {
    const { loginCookie, cookieDomain } = request;
    const read = this.#read(request.securityPassword, context);
    this.sessions.askCookie(loginCookie, this.clock(), read);
    const caller = await this.#verify('AuthenticateCookie', request.securityPassword, context, read);
    const check = await this.sessions.checkCookie(loginCookie, cookieDomain, read);
    const ticket = !check.ok && check.reason === 'unknown' && loginCookie ? await this.tickets?.check(loginCookie) : undefined;
    if (!ticket) return sessionOutcome('AuthenticateCookie', caller.name, check);
    const forThisDomain = normalizeCookieDomain(cookieDomain ?? '') === normalizeCookieDomain(context.cookieDomain());
    return ticketOutcome('AuthenticateCookie', caller.name, forThisDomain ? ticket : { ok: false, reason: 'domain-mismatch' });
  }

  /**
   * Checks the member's password (and second factor) as the sign-in page does and, when they are right, opens
   * a session for the cookie domain as the page would.
   */
  async authenticateUser(request: AuthenticateUserRequest, context: CallContext): Promise<Outcome> {
    const caller = await this.#verify('AuthenticateUser', request.securityPassword, context);
    const check = await this.#credentials(request, context, caller.name);
    if (!check.ok) return refused('AuthenticateUser', caller.name, check);
    const issued = await this.sessions.create(check.member.id, context.cookieDomain(), {}, { through: { kind: 'partner', name: caller.name } });
    this.#signedIn('AuthenticateUser', check.member, context, caller.name);
    return { operation: 'AuthenticateUser', caller: caller.name, kind: 'member', member: check.member, session: { token: issued.token, cookie: issued.cookie } };
  }

  /** The same check as AuthenticateUser, without a session. */
  async login(request: LoginRequest, context: CallContext): Promise<Outcome> {
    return this.#checkOnly('Login', request, context);
  }

  /** CRM4M's name for Login. */
  async validateUser(request: ValidateUserRequest, context: CallContext): Promise<Outcome> {
    return this.#checkOnly('ValidateUser', request, context);
  }

  /** Ends the live session this token belongs to; an unknown or ended token is a not-signed-in answer. */
  async deleteUserSession(request: DeleteUserSessionRequest, context: CallContext): Promise<Outcome> {
    const read = this.#read(request.securityPassword, context);
    this.sessions.askToken(request.token, this.clock(), read);
    const caller = await this.#verify('DeleteUserSession', request.securityPassword, context, read);
    const check = await this.sessions.checkToken(request.token, read);
    if (!check.ok) return sessionOutcome('DeleteUserSession', caller.name, check);
    const ended = await this.sessions.end(check.found.session.id);
    if (!ended) return sessionOutcome('DeleteUserSession', caller.name, { ok: false, reason: 'revoked' });
    const memberId = check.found.member.id;
    this.events.record({ ...this.#context(context, caller.name), type: 'signed-out', memberId, actor: { kind: 'partner', id: caller.name }, outcome: 'DeleteUserSession' });
    return { operation: 'DeleteUserSession', caller: caller.name, kind: 'session-ended', member: check.found.member };
  }

  async #checkOnly(operation: 'Login' | 'ValidateUser', request: LoginRequest | ValidateUserRequest, context: CallContext): Promise<Outcome> {
    const caller = await this.#verify(operation, request.securityPassword, context);
    const check = await this.#credentials(request, context, caller.name);
    if (!check.ok) return refused(operation, caller.name, check);
    this.#signedIn(operation, check.member, context, caller.name);
    return { operation, caller: caller.name, kind: 'member', member: check.member, session: null };
  }

  /**
   * The password, then the second factor when the member has one (or MFA=required): `authenticationToken` is
   * its code, checked and counted as the sign-in page's second step is. A call without a username or a
   * password, or with one longer than any member's can be or holding what no member types (src/service/valid-text.ts:
   * a NUL, an unpaired surrogate), has nothing to check: it costs no hash, counts no failure (no account could be
   * guessed with it) and never reaches the store.
   */
  async #credentials(request: CredentialsRequest, context: CallContext, caller: string): Promise<CredentialOutcome> {
    const { username, password } = request;
    if (!username?.trim() || !password || username.trim().length > MAX_FIELD_LENGTH || [...password].length > MAX_PASSWORD_LENGTH) {
      return { ok: false, reason: 'invalid' };
    }
    if (!isValidText(username) || !isValidText(password)) return { ok: false, reason: 'invalid' };
    const events = this.#context(context, caller);
    const check = await this.signin.checkCredentials({ ...events, login: username, password, clientAddress: context.clientAddress });
    if (!check.ok || check.step === null) return check;
    const code = 'authenticationToken' in request ? request.authenticationToken?.trim() : undefined;
    // Without a factor (MFA=required, none set up yet) no code can be right: nothing to check or count.
    if (!code || check.step === 'setup') {
      this.events.record({ ...events, type: 'signin-failed', memberId: check.member.id, outcome: 'refused', reason: check.step === 'setup' ? 'no-second-factor' : 'no-code' });
      return { ok: false, reason: 'second-factor' };
    }
    const checked = await this.signin.checkCode(check.member.id, username.trim(), code, { ...events, clientAddress: context.clientAddress });
    if (checked.ok) return check;
    return checked.reason === 'throttled' ? checked : { ok: false, reason: 'second-factor' };
  }

  /**
   * The lock first, then the password. The failure that reaches the threshold is still answered as what it
   * is, a wrong password; the calls after it are refused. Success leaves the count alone: an address is often
   * a NAT or proxy that several partners share, and a guesser behind it who also holds one valid password (or
   * shares the address with a partner calling every second) must not be able to wipe out its failures. The
   * count ends with its window instead.
   */
  async #verify(operation: OperationName, securityPassword: string | null, context: CallContext, read = this.#read(securityPassword, context)): Promise<CallerRow> {
    const lock = await this.throttle.check(context.clientAddress, this.clock(), read);
    if (lock) throw new CallerThrottledError(lock.retryAfterSeconds);
    try {
      return await this.callers.verify(securityPassword, read);
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'INVALID_SECURITY_PASSWORD') {
        await this.throttle.failure(context.clientAddress, this.clock());
        // One queued row, no store call: the throttle bounds how many an address records. A wrong password names
        // no caller (the password is what tells callers apart): the operation, the address, and what the call says
        // of its software and origin are what there is to tell it by.
        const reason = securityPassword ? 'wrong-security-password' : 'missing-security-password';
        const sender = context.sender?.();
        const said = { device: sender?.software, via: sender?.origin };
        this.events.record({ ...this.#context(context, null), ...said, type: 'caller-refused', actor: { kind: 'partner' }, outcome: operation, reason });
      }
      throw error;
    }
  }

  /** The call's one read, with the address's throttle state and the caller asked for where their caches do not hold them. */
  #read(securityPassword: string | null, context: CallContext): CallRead {
    const read = new CallRead(this.store);
    const now = this.clock();
    this.throttle.ask(context.clientAddress, now, read);
    this.callers.ask(securityPassword, now, read);
    return read;
  }

  /** What the events of a call record besides what happened: the partner, its address and the request. */
  #context(context: CallContext, caller: string | null): EventContext {
    return { clientAddress: context.clientAddress, via: caller, requestId: context.requestId };
  }

  #signedIn(operation: OperationName, member: MemberRow, context: CallContext, caller: string): void {
    this.events.record({ ...this.#context(context, caller), type: 'signin-succeeded', memberId: member.id, outcome: operation });
  }
}

function sessionOutcome(operation: OperationName, caller: string, check: SessionCheck): Outcome {
  return check.ok
    ? { operation, caller, kind: 'member', member: check.found.member, session: { token: check.token, cookie: check.cookie } }
    : { operation, caller, kind: 'refused', refusal: { kind: 'not-signed-in', reason: check.reason } };
}

function ticketOutcome(operation: OperationName, caller: string, check: TicketCheck): Outcome {
  return check.ok
    ? { operation, caller, kind: 'member', member: check.member, session: null }
    : { operation, caller, kind: 'refused', refusal: { kind: 'not-signed-in', reason: check.reason } };
}

type CredentialsRequest = { username: string | null; password: string | null } & ({ authenticationToken: string | null } | object);

/** How the credentials of a call ended: the password check's result, or a second factor still wanted. */
type CredentialOutcome = CredentialCheck | { ok: false; reason: 'second-factor' };

function refused(operation: OperationName, caller: string, check: Exclude<CredentialOutcome, { ok: true }>): Outcome {
  const refusal: Refusal =
    check.reason === 'throttled'
      ? { kind: 'locked', retryAfterSeconds: check.retryAfterSeconds }
      : check.reason === 'second-factor'
        ? { kind: 'second-factor-required' }
        : { kind: 'invalid-credentials' };
  return { operation, caller, kind: 'refused', refusal };
}
