import type { MemberRow } from '../store/store.js';
import type { CallerService } from './callers.js';
import type { NotSignedInReason, SessionCheck, SessionService } from './sessions.js';
import type { AuthenticateCookieRequest, AuthenticateTokenRequest, OperationName } from './wsdl-types.js';

/** What the bindings render: who is signed in, or why nobody is (the reason is for logs only). */
export type Outcome =
  | { operation: OperationName; caller: string; signedIn: true; member: MemberRow; token: string }
  | { operation: OperationName; caller: string; signedIn: false; reason: NotSignedInReason };

/**
 * The two operations of Authentication.asmx. Parameters arrive as ASMX reads them: a missing parameter is
 * null. A wrong or missing security password throws ServiceError INVALID_SECURITY_PASSWORD; a visitor who is
 * not signed in is a normal outcome, never an error.
 */
export class AuthenticationService {
  constructor(
    private readonly callers: CallerService,
    private readonly sessions: SessionService,
  ) {}

  async authenticateToken(request: AuthenticateTokenRequest): Promise<Outcome> {
    const caller = await this.callers.verify(request.securityPassword);
    return outcome('AuthenticateToken', caller.name, await this.sessions.checkToken(request.token));
  }

  async authenticateCookie(request: AuthenticateCookieRequest): Promise<Outcome> {
    const caller = await this.callers.verify(request.securityPassword);
    return outcome('AuthenticateCookie', caller.name, await this.sessions.checkCookie(request.loginCookie, request.cookieDomain));
  }
}

function outcome(operation: OperationName, caller: string, check: SessionCheck): Outcome {
  return check.ok
    ? { operation, caller, signedIn: true, member: check.found.member, token: check.token }
    : { operation, caller, signedIn: false, reason: check.reason };
}
