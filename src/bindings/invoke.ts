import type { AuthenticationService, Outcome } from '../service/authentication.js';
import type { OperationName } from '../service/wsdl-types.js';

/** What a caller sees of an unexpected failure (a store outage, a bug); the details go to the log. */
export const INTERNAL_ERROR_TEXT = 'An internal error occurred; it has been logged.';

/** Calls an operation with parameters as the bindings read them (absent means null). */
export type Invoke = (operation: OperationName, parameters: Readonly<Record<string, string | null>>) => Promise<Outcome>;

export function operationInvoker(authentication: AuthenticationService): Invoke {
  const value = (parameters: Readonly<Record<string, string | null>>, name: string) => parameters[name] ?? null;
  return (operation, parameters) =>
    operation === 'AuthenticateToken'
      ? authentication.authenticateToken({ securityPassword: value(parameters, 'securityPassword'), token: value(parameters, 'token') })
      : authentication.authenticateCookie({
          securityPassword: value(parameters, 'securityPassword'),
          loginCookie: value(parameters, 'loginCookie'),
          cookieDomain: value(parameters, 'cookieDomain'),
        });
}
