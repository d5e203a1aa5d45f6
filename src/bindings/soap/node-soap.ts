import soap from 'soap';
import type { CallContext } from '../../service/authentication.js';
import type { OperationName } from '../../service/wsdl-types.js';
import { soapFault } from '../asmx-errors.js';
import type { Config } from '../../config/config.js';
import type { CallAnswer, OperationTable } from '../operations.js';
import { escapeXmlAttribute, escapeXmlText } from '../xml-text.js';
import { SCHEMA_NAMESPACES } from './faults.js';
import { ENVELOPE_NS, FAULT_CODE, type SoapVersion } from './protocol.js';

/**
 * One call on its way through node-soap: what the binding knows of it going in, and the operation's answer
 * coming out (for the call log and Retry-After). It rides on the serverless request's connection, which
 * node-soap hands to the operation's method.
 */
export interface SoapCall {
  context: CallContext;
  answer?: CallAnswer<OperationName>;
}

export interface SoapReply {
  status: number;
  body: string;
}

export interface NodeSoapStack {
  process(version: SoapVersion, operation: OperationName, parameters: Map<string, string | null>, call: SoapCall): Promise<SoapReply>;
}

const ENDPOINT_PATH = '/Authentication.asmx';

export interface StackOptions {
  wsdlXml: string;
  /** The WSDL's service and port names, under which node-soap looks the methods up. */
  names: Config['wsdlNames'];
  namespace: string;
  operations: OperationTable;
}

/**
 * node-soap is the SOAP stack: it loads the WSDL, reads the operation's arguments, dispatches on SOAPAction
 * to the operation table and writes the response and fault envelopes. It is used serverless (processRequest),
 * one instance per SOAP version because its 1.2 switch is global, and it is handed a canonical envelope that
 * the ASMX routing rules in front have already validated: client bytes never reach its parser, which reads
 * parameters without regard to their namespace.
 */
export async function createNodeSoapStack(options: StackOptions): Promise<NodeSoapStack> {
  const servers = {
    '1.1': await createSoapServer(options, '1.1'),
    '1.2': await createSoapServer(options, '1.2'),
  };
  return {
    async process(version, operation, parameters, call) {
      const xml = canonicalEnvelope(operation, options.operations.parameters(operation), parameters, options.namespace);
      const reply = await servers[version].processRequest(xml, {
        method: 'POST',
        url: ENDPOINT_PATH,
        headers: { soapaction: `"${options.namespace}${operation}"`, 'content-type': 'text/xml; charset=utf-8' },
        connection: { call },
      });
      return { status: reply.statusCode, body: reply.body };
    },
  };
}

/** One node-soap server for one SOAP version, set up as described below. */
export async function createSoapServer(options: StackOptions, version: SoapVersion): Promise<soap.Server> {
  const methods = Object.fromEntries(options.operations.names.map((operation) => [operation, methodFor(operation, version, options.operations)]));
  const server = await new Promise<soap.Server>((resolve, reject) => {
    const created: soap.Server = soap.listen(null, {
      path: ENDPOINT_PATH,
      xml: options.wsdlXml,
      services: { [options.names.service]: { [`${options.names.binding}Soap`]: methods } },
      forceSoap12Headers: version === '1.2',
      // We escape as ASMX does (&, < and > only); node-soap would also turn quotes into entities.
      escapeXML: false,
      useEmptyTag: true,
      suppressStack: true,
      returnFault: true,
      enableChunkedEncoding: false,
      callback: (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(created)),
    });
  });
  adjustWsdl(server);
  return server;
}

interface NodeSoapMessage {
  description(definitions: unknown): unknown;
}

interface NodeSoapWsdl {
  xmlnsInEnvelope?: unknown;
  options?: Record<string, unknown>;
  definitions?: { messages?: Record<string, NodeSoapMessage> };
}

/** node-soap's WSDL object, which holds the settings below; pinned by test/bindings/soap/node-soap.test.ts. */
export function wsdlOf(server: soap.Server): NodeSoapWsdl {
  return (server as unknown as { wsdl: NodeSoapWsdl }).wsdl;
}

/**
 * What lives on node-soap's non-public server.wsdl:
 * - the envelope declares xsi and xsd as ASMX's does (node-soap declares the WSDL's prefixes);
 * - parameter text keeps its white space as ASMX reads it (soap.listen does not pass preserveWhitespace on);
 * - each message's schema description is built once: node-soap's reader rebuilds it from the WSDL for every
 *   request, though the WSDL never changes after start-up, and only reads it.
 */
function adjustWsdl(server: soap.Server): void {
  const wsdl = wsdlOf(server);
  const messages = wsdl.definitions?.messages;
  if (typeof wsdl.xmlnsInEnvelope !== 'string' || typeof wsdl.options !== 'object' || typeof messages !== 'object') {
    throw new Error('node-soap no longer keeps wsdl.xmlnsInEnvelope, wsdl.options and wsdl.definitions.messages on its server');
  }
  wsdl.xmlnsInEnvelope = SCHEMA_NAMESPACES;
  wsdl.options.preserveWhitespace = true;
  for (const message of Object.values(messages)) {
    const described = message.description(wsdl.definitions);
    message.description = () => described;
  }
}

type SoapMethod = (args: Record<string, unknown> | undefined, callback: unknown, headers: unknown, req: { connection: { call: SoapCall } }) => Promise<unknown>;

/** The operation's method as node-soap calls it: its arguments to the operation table, its answer back. */
function methodFor(operation: OperationName, version: SoapVersion, operations: OperationTable): SoapMethod {
  return async (args, _callback, _headers, req) => {
    const call = req.connection.call;
    const answer = await operations.invoke(operation, (name) => {
      const value = args?.[name];
      return typeof value === 'string' ? value : null;
    }, call.context);
    call.answer = answer;
    if (!answer.ok) throw { Fault: faultObject(version, soapFault(answer.fault)) };
    // node-soap writes values as given (escapeXML is off): escape them as ASMX does.
    return Object.fromEntries(Object.entries(answer.response).map(([name, value]) => [name, typeof value === 'string' ? escapeXmlText(value) : value]));
  };
}

/** node-soap's object form of a fault, as ASMX sends it. */
function faultObject(version: SoapVersion, fault: { role: keyof typeof FAULT_CODE; text: string; detail: boolean }): Record<string, unknown> {
  const code = FAULT_CODE[fault.role][version];
  if (version === '1.1') return { faultcode: code, faultstring: escapeXmlText(fault.text), ...(fault.detail ? { detail: '' } : {}), statusCode: 500 };
  return {
    Code: { Value: code },
    // node-soap escapes a $value itself, even with escapeXML off; our fault texts hold no quotes.
    Reason: { Text: { attributes: { 'xml:lang': 'en' }, $value: fault.text } },
    ...(fault.detail ? { Detail: '' } : {}),
    statusCode: 500,
  };
}

/**
 * The validated call as a minimal envelope of the operation's declared parameters; a null or unbound one is
 * left out, which node-soap reads as absent.
 */
function canonicalEnvelope(operation: OperationName, declared: readonly string[], bound: Map<string, string | null>, namespace: string): string {
  let elements = '';
  for (const name of declared) {
    const value = bound.get(name);
    if (value !== undefined && value !== null) elements += `<t:${name}>${escapeXmlText(value)}</t:${name}>`;
  }
  return `<s:Envelope xmlns:s="${ENVELOPE_NS['1.1']}"><s:Body><t:${operation} xmlns:t="${escapeXmlAttribute(namespace)}">${elements}</t:${operation}></s:Body></s:Envelope>`;
}
