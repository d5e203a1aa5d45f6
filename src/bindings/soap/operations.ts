import type { OperationName } from '../../service/wsdl-types.js';

/** The operations as SOAP sees them: each has an action URI and a body element, both in the namespace. */
export interface SoapOperations {
  namespace: string;
  byAction(action: string): OperationName | undefined;
  byElement(local: string, ns: string): OperationName | undefined;
  actionOf(operation: OperationName): string;
}

/** Over the offered operations only: any other is an unknown SOAPAction or body element, as in ASMX. */
export function soapOperations(namespace: string, names: readonly OperationName[]): SoapOperations {
  const actions = new Map(names.map((name) => [namespace + name, name]));
  return {
    namespace,
    byAction: (action) => actions.get(action),
    byElement: (local, ns) => (ns === namespace ? names.find((n) => n === local) : undefined),
    actionOf: (operation) => namespace + operation,
  };
}
