import type { AuthenticationService, CallContext, Outcome } from '../service/authentication.js';
import { CallerThrottledError, ServiceError } from '../service/errors.js';
import type { OperationName } from '../service/wsdl-types.js';
import type { CallFault } from './call-log.js';

/** What a caller sees of an unexpected failure (a store outage, a bug); the details go to the log. */
export const INTERNAL_ERROR_TEXT = 'An internal error occurred; it has been logged.';

/**
 * Calls an operation with parameters as the bindings read them (absent means null), and the context of the
 * request they were read from: the client address the call log also records.
 */
export type Invoke = (operation: OperationName, parameters: Readonly<Record<string, string | null>>, context: CallContext) => Promise<Outcome>;

/**
 * The fault an operation's error is answered with (its message is the text the caller sees), or null for an
 * unexpected error, which the caller sees as INTERNAL_ERROR_TEXT.
 */
export function callFault(error: unknown): (CallFault & { message: string }) | null {
  if (error instanceof CallerThrottledError) return { fault: 'throttled', retryAfterSeconds: error.retryAfterSeconds, message: error.message };
  if (error instanceof ServiceError && error.code === 'INVALID_SECURITY_PASSWORD') return { fault: 'invalid-security-password', message: error.message };
  return null;
}

export function operationInvoker(authentication: AuthenticationService): Invoke {
  const value = (parameters: Readonly<Record<string, string | null>>, name: string) => parameters[name] ?? null;
  return (operation, parameters, context) =>
    operation === 'AuthenticateToken'
      ? authentication.authenticateToken({ securityPassword: value(parameters, 'securityPassword'), token: value(parameters, 'token') }, context)
      : authentication.authenticateCookie(
          {
            securityPassword: value(parameters, 'securityPassword'),
            loginCookie: value(parameters, 'loginCookie'),
            cookieDomain: value(parameters, 'cookieDomain'),
          },
          context,
        );
}
