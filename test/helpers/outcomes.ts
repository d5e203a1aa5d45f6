import type { Outcome, Refusal } from '../../src/service/authentication.js';
import type { NotSignedInReason } from '../../src/service/sessions.js';
import type { OperationName } from '../../src/service/wsdl-types.js';

/** The outcomes of the calls the service refuses one caller, by refusal. */
export function refusalsOf(caller: string) {
  const refused = (operation: OperationName, refusal: Refusal): Outcome => ({ operation, caller, kind: 'refused', refusal });
  return {
    refused,
    notSignedIn: (operation: OperationName, reason: NotSignedInReason = 'unknown') => refused(operation, { kind: 'not-signed-in', reason }),
    invalidCredentials: (operation: OperationName) => refused(operation, { kind: 'invalid-credentials' }),
    locked: (operation: OperationName, retryAfterSeconds: number) => refused(operation, { kind: 'locked', retryAfterSeconds }),
    secondFactorRequired: (operation: OperationName) => refused(operation, { kind: 'second-factor-required' }),
  };
}
