import type { CallerRow, MemberRow } from '../store/store.js';
import type { CallerService } from './callers.js';
import type { Clock } from './clock.js';
import { CallerThrottledError, ServiceError } from './errors.js';
import type { NotSignedInReason, SessionCheck, SessionService } from './sessions.js';
import type { KeyedThrottle } from './throttle.js';
import type { AuthenticateCookieRequest, AuthenticateTokenRequest, OperationName } from './wsdl-types.js';

/** What the bindings render: who is signed in, or why nobody is (the reason is for logs only). */
export type Outcome =
  | { operation: OperationName; caller: string; signedIn: true; member: MemberRow; token: string }
  | { operation: OperationName; caller: string; signedIn: false; reason: NotSignedInReason };

/** What the bindings know of a call besides its parameters. */
export interface CallContext {
  /** The client's address, as the call log records it (src/bindings/client-address.ts). */
  clientAddress: string;
}

/**
 * The two operations of Authentication.asmx. Parameters arrive as ASMX reads them: a missing parameter is
 * null. A wrong or missing security password throws ServiceError INVALID_SECURITY_PASSWORD; a visitor who is
 * not signed in is a normal outcome, never an error.
 *
 * Failed security passwords are counted per client address (`throttle`, keys `caller-address:<address>`).
 * Once an address has reached the threshold, every call from it throws CallerThrottledError until the lock
 * ends, before its password is looked at: the right password does not get through, and a locked guesser
 * costs no password check. A correct password does not clear the count (see verify below).
 */
export class AuthenticationService {
  constructor(
    private readonly callers: CallerService,
    private readonly sessions: SessionService,
    private readonly throttle: KeyedThrottle,
    private readonly clock: Clock,
  ) {}

  async authenticateToken(request: AuthenticateTokenRequest, context: CallContext): Promise<Outcome> {
    const caller = await this.#verify(request.securityPassword, context);
    return outcome('AuthenticateToken', caller.name, await this.sessions.checkToken(request.token));
  }

  async authenticateCookie(request: AuthenticateCookieRequest, context: CallContext): Promise<Outcome> {
    const caller = await this.#verify(request.securityPassword, context);
    return outcome('AuthenticateCookie', caller.name, await this.sessions.checkCookie(request.loginCookie, request.cookieDomain));
  }

  /**
   * The lock first, then the password. The failure that reaches the threshold is still answered as what it
   * is, a wrong password; the calls after it are refused. Success leaves the count alone: an address is often
   * a NAT or proxy that several partners share, and a guesser behind it who also holds one valid password (or
   * shares the address with a partner calling every second) must not be able to wipe out its failures. The
   * count ends with its window instead.
   */
  async #verify(securityPassword: string | null, context: CallContext): Promise<CallerRow> {
    const lock = await this.throttle.check(context.clientAddress, this.clock());
    if (lock) throw new CallerThrottledError(lock.retryAfterSeconds);
    try {
      return await this.callers.verify(securityPassword);
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'INVALID_SECURITY_PASSWORD') {
        await this.throttle.failure(context.clientAddress, this.clock());
      }
      throw error;
    }
  }
}

function outcome(operation: OperationName, caller: string, check: SessionCheck): Outcome {
  return check.ok
    ? { operation, caller, signedIn: true, member: check.found.member, token: check.token }
    : { operation, caller, signedIn: false, reason: check.reason };
}
