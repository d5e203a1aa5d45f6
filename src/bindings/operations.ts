import type { Config } from '../config/config.js';
import type { AuthenticationService, CallContext, Outcome } from '../service/authentication.js';
import {
  OPERATION_PARAMETERS,
  OPERATION_RESULTS,
  type OperationName,
  type OperationRequest,
  type OperationResponse,
} from '../service/wsdl-types.js';
import { faultOf, type AsmxError } from './asmx-errors.js';
import type { FaultCode } from './errors/catalogue.js';
import type { ResultRenderer } from './result/formats.js';

/** How the service answers one operation of the WSDL. */
type Handler<K extends OperationName> = (service: AuthenticationService, request: OperationRequest<K>, context: CallContext) => Promise<Outcome>;

/**
 * Every operation of wsdl/Authentication.wsdl and the service method that answers it. The keys come from the
 * generated types: an operation added to the WSDL fails the build here until it has a handler, which takes its
 * generated request type.
 */
const HANDLERS: { [K in OperationName]: Handler<K> } = {
  AuthenticateCookie: (service, request, context) => service.authenticateCookie(request, context),
  AuthenticateToken: (service, request, context) => service.authenticateToken(request, context),
  AuthenticateUser: (service, request, context) => service.authenticateUser(request, context),
  DeleteUserSession: (service, request, context) => service.deleteUserSession(request, context),
  Login: (service, request, context) => service.login(request, context),
  ValidateUser: (service, request, context) => service.validateUser(request, context),
};

/** How a call ended: the service's outcome and its result as the WSDL's response, or a fault. */
export type CallAnswer<K extends OperationName> =
  | { ok: true; outcome: Outcome; result: string; response: OperationResponse<K> }
  | { ok: false; fault: AsmxError<FaultCode>; error?: unknown };

export interface OperationTable {
  /** The operations the endpoint offers (OPERATIONS), in WSDL order; the others answer as unknown methods. */
  readonly names: readonly OperationName[];
  /** Whether the endpoint offers an operation of exactly this name. */
  offers(name: string): name is OperationName;
  /** The operation's parameters, in WSDL order. */
  parameters(operation: OperationName): readonly string[];
  /**
   * Calls an operation with its parameters as a binding read them: `read` gives a parameter's value, null
   * when the request left it out (as ASMX reads a missing parameter).
   */
  invoke<K extends OperationName>(operation: K, read: (parameter: string) => string | null, context: CallContext): Promise<CallAnswer<K>>;
}

/** The table of the offered operations over one service, rendering outcomes in the configured result format. */
export function createOperationTable(
  service: AuthenticationService,
  render: ResultRenderer,
  contract: Pick<Config, 'operations' | 'operationParameters'>,
): OperationTable {
  const names = new Set<string>(contract.operations);
  const declared = Object.fromEntries(
    Object.entries(contract.operationParameters).map(([operation, parameters]) => [operation, new Set(parameters)]),
  ) as Partial<Record<OperationName, ReadonlySet<string>>>;
  return {
    names: contract.operations,
    offers: (name): name is OperationName => names.has(name),
    parameters: (operation) => contract.operationParameters[operation],
    async invoke(operation, read, context) {
      const request = requestOf(operation, (name) => (declared[operation]?.has(name) ? read(name) : null));
      try {
        const outcome = await HANDLERS[operation](service, request, context);
        const result = render(outcome);
        return { ok: true, outcome, result, response: responseOf(operation, result) };
      } catch (error) {
        return { ok: false, ...faultOf(error) };
      }
    },
  };
}

/**
 * The generated parameter list is the request type's keys (the generator checks it), so this object is that
 * type; a parameter the endpoint does not declare reads as null.
 */
function requestOf<K extends OperationName>(operation: K, read: (parameter: string) => string | null): OperationRequest<K> {
  const parameters: readonly string[] = OPERATION_PARAMETERS[operation];
  return Object.fromEntries(parameters.map((name) => [name, read(name)])) as unknown as OperationRequest<K>;
}

/** The generated result element is the response type's one key (the generator checks it). */
function responseOf<K extends OperationName>(operation: K, result: string): OperationResponse<K> {
  return { [OPERATION_RESULTS[operation]]: result } as unknown as OperationResponse<K>;
}
