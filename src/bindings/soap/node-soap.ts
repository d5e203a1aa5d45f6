import soap from 'soap';
import type { Config } from '../../config/config.js';
import type { CallContext } from '../../service/authentication.js';
import type { OperationName, OperationResponse } from '../../service/wsdl-types.js';
import { errorResponse } from '../asmx-errors.js';
import type { AsmxResponse } from '../asmx-response.js';
import type { CallAnswer, OperationTable } from '../operations.js';
import { escapeXmlText } from '../../web/xml-text.js';
import { SCHEMA_NAMESPACES } from './faults.js';
import { SOAP_CONTENT_TYPE, type SoapVersion } from './protocol.js';

/** A call ASMX's routing rules accepted: its version, its operation, and the parameters the envelope reader bound. */
export interface RoutedCall {
  version: SoapVersion;
  operation: OperationName;
  parameters: ReadonlyMap<string, string | null>;
}

/** The response to a routed call, and the operation's answer it was written from (for the call log). */
export interface SoapReply {
  response: AsmxResponse;
  answer: CallAnswer<OperationName>;
}

export interface SoapStack {
  reply(call: RoutedCall, context: CallContext): Promise<SoapReply>;
}

export interface StackOptions {
  wsdlXml: string;
  /** The WSDL's service and binding names, under which node-soap keeps the ports. */
  names: Config['wsdlNames'];
  operations: OperationTable;
}

const ENDPOINT_PATH = '/Authentication.asmx';

/**
 * node-soap is the SOAP stack, and this the one module that holds it: from the WSDL, each version's node-soap
 * server writes the operation's response element (the WSDL's output message, as node-soap's own dispatch
 * does for a document-style operation) and its envelope. The client's bytes were read once, by the strict
 * envelope reader in front, and the parameters it bound go to the operation table as they are. A fault is
 * written by the one fault writer, asmx-errors.ts, as for every other SOAP error.
 */
export async function createSoapStack(options: StackOptions): Promise<SoapStack> {
  const writers: Record<SoapVersion, ResponseWriter> = {
    '1.1': responseWriter(await createSoapServer(options, '1.1'), options, '1.1'),
    '1.2': responseWriter(await createSoapServer(options, '1.2'), options, '1.2'),
  };
  return {
    async reply({ version, operation, parameters }, context) {
      const answer = await options.operations.invoke(operation, (name) => parameters.get(name) ?? null, context);
      const response: AsmxResponse = answer.ok
        ? { status: 200, contentType: SOAP_CONTENT_TYPE[version], body: writers[version](operation, answer.response), cacheControl: 'private, max-age=0' }
        : errorResponse('soap', answer.fault, { version, routed: true });
      return { response, answer };
    },
  };
}

/**
 * One node-soap server for one SOAP version (its 1.2 switch is one per server), serverless: it never reads a
 * request, so it has no services to dispatch to.
 */
export async function createSoapServer(options: Pick<StackOptions, 'wsdlXml'>, version: SoapVersion): Promise<soap.Server> {
  const server = await new Promise<soap.Server>((resolve, reject) => {
    const created: soap.Server = soap.listen(null, {
      path: ENDPOINT_PATH,
      xml: options.wsdlXml,
      services: {},
      forceSoap12Headers: version === '1.2',
      // We escape as ASMX does (&, < and > only); node-soap would also turn quotes and line ends into entities.
      escapeXML: false,
      useEmptyTag: true,
      callback: (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(created)),
    });
  });
  // The envelope declares xsi and xsd as ASMX's does (node-soap declares the WSDL's prefixes).
  internalsOf(server).wsdl.xmlnsInEnvelope = SCHEMA_NAMESPACES;
  return server;
}

/**
 * What node-soap keeps on its server beyond its typed API: its WSDL, and the envelope writer its own dispatch
 * ends with. Pinned by test/bindings/soap/node-soap.test.ts, so that an upgrade that changes them fails there.
 */
export interface NodeSoapInternals {
  wsdl: soap.WSDL;
  _envelope(body: string, headers: string, includeTimestamp: boolean): string;
}

export function internalsOf(server: soap.Server): NodeSoapInternals {
  const internals = server as unknown as Partial<NodeSoapInternals>;
  if (!(internals.wsdl instanceof soap.WSDL) || typeof internals._envelope !== 'function') {
    throw new Error('node-soap no longer keeps its WSDL on server.wsdl and its envelope writer in server._envelope');
  }
  return internals as NodeSoapInternals;
}

type ResponseWriter = (operation: OperationName, response: OperationResponse<OperationName>) => string;

/**
 * The response envelope of an operation, written by node-soap as its _executeMethod writes a document-style
 * operation's: the output element named and namespaced by the version's port in the WSDL, then the envelope.
 * node-soap writes values as given (escapeXML is off): they are escaped here as ASMX escapes them.
 */
function responseWriter(server: soap.Server, options: StackOptions, version: SoapVersion): ResponseWriter {
  const internals = internalsOf(server);
  const { service, binding: bindingName } = options.names;
  const port = `${bindingName}${version === '1.1' ? 'Soap' : 'Soap12'}`;
  const binding = internals.wsdl.definitions.services[service]?.ports[port]?.binding;
  if (!binding) throw new Error(`node-soap found no port ${port} of service ${service} in the WSDL`);
  const outputs = new Map(
    options.operations.names.map((operation) => {
      const element = binding.methods[operation]?.output;
      const name = binding.topElements?.[operation]?.outputName;
      if (!element || !name) throw new Error(`node-soap found no output element for ${operation} in the WSDL`);
      return [operation, { name, prefix: element.targetNSAlias ?? '', namespace: element.targetNamespace }];
    }),
  );
  return (operation, response) => {
    const output = outputs.get(operation);
    if (!output) throw new Error(`${operation} is not offered`);
    const escaped = Object.fromEntries(Object.entries(response).map(([name, value]: [string, string | null]) => [name, value === null ? null : escapeXmlText(value)]));
    const body: string = internals.wsdl.objectToDocumentXML(output.name, escaped, output.prefix, output.namespace);
    return internals._envelope(body, '', false);
  };
}
