import soap from 'soap';
import { OPERATION_PARAMETERS, type OperationName } from '../../service/wsdl-types.js';
import { escapeXmlAttribute, escapeXmlText } from '../xml-text.js';
import { SCHEMA_NAMESPACES } from './faults.js';
import { ENVELOPE_NS, FAULT_CODE, SERVER_UNABLE, type SoapVersion } from './protocol.js';

/** One call's work, handed to node-soap's method handler through the serverless request's connection. */
export interface SoapCall {
  /** Resolves to the result string, or rejects with a SoapFaultError. */
  invoke(operation: OperationName, parameters: Record<string, string | null>): Promise<string>;
}

/** A fault the operation raises (a wrong security password): its text after ASMX's "Server was unable…". */
export class SoapFaultError extends Error {}

export interface SoapReply {
  status: number;
  body: string;
}

export interface NodeSoapStack {
  process(version: SoapVersion, operation: OperationName, parameters: Map<string, string | null>, call: SoapCall): Promise<SoapReply>;
}

const ENDPOINT_PATH = '/Authentication.asmx';

/**
 * node-soap is the SOAP stack: it loads the WSDL, reads the operation's arguments, dispatches on SOAPAction
 * and writes the response and fault envelopes. It is used serverless (processRequest), one instance per SOAP
 * version because its 1.2 switch is global, and it is handed a canonical envelope that the ASMX routing rules
 * in front have already validated: client bytes never reach its parser, which has no size limit and reads
 * parameters without regard to their namespace.
 */
export async function createNodeSoapStack(options: { wsdlXml: string; serviceName: string; namespace: string }): Promise<NodeSoapStack> {
  const servers = {
    '1.1': await createServer(options, '1.1'),
    '1.2': await createServer(options, '1.2'),
  };
  return {
    async process(version, operation, parameters, call) {
      const reply = await servers[version].processRequest(canonicalEnvelope(operation, parameters, options.namespace), {
        method: 'POST',
        url: ENDPOINT_PATH,
        headers: { soapaction: `"${options.namespace}${operation}"`, 'content-type': 'text/xml; charset=utf-8' },
        connection: { call },
      });
      return { status: reply.statusCode, body: reply.body };
    },
  };
}

async function createServer(options: { wsdlXml: string; serviceName: string; namespace: string }, version: SoapVersion): Promise<soap.Server> {
  const methods = Object.fromEntries(
    (Object.keys(OPERATION_PARAMETERS) as OperationName[]).map((operation) => [operation, methodFor(operation, version)]),
  );
  const server = await new Promise<soap.Server>((resolve, reject) => {
    const created: soap.Server = soap.listen(null, {
      path: ENDPOINT_PATH,
      xml: options.wsdlXml,
      services: { [options.serviceName]: { [`${options.serviceName}Soap`]: methods } },
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

/**
 * Two settings that live on node-soap's non-public server.wsdl, pinned by test/bindings/soap/node-soap.test.ts:
 * the envelope declares xsi and xsd as ASMX's does (node-soap declares the WSDL's prefixes), and parameter
 * text keeps its white space as ASMX reads it (soap.listen does not pass preserveWhitespace on).
 */
function adjustWsdl(server: soap.Server): void {
  const wsdl = (server as unknown as { wsdl: { xmlnsInEnvelope?: unknown; options?: Record<string, unknown> } }).wsdl;
  if (typeof wsdl.xmlnsInEnvelope !== 'string' || typeof wsdl.options !== 'object') {
    throw new Error('node-soap no longer keeps wsdl.xmlnsInEnvelope and wsdl.options on its server');
  }
  wsdl.xmlnsInEnvelope = SCHEMA_NAMESPACES;
  wsdl.options.preserveWhitespace = true;
}

type SoapMethod = (args: Record<string, unknown> | undefined, callback: unknown, headers: unknown, req: { connection: { call: SoapCall } }) => Promise<unknown>;

function methodFor(operation: OperationName, version: SoapVersion): SoapMethod {
  return async (args, _callback, _headers, req) => {
    const parameters = Object.fromEntries(
      OPERATION_PARAMETERS[operation].map((name) => {
        const value = args?.[name];
        return [name, typeof value === 'string' ? value : null];
      }),
    );
    try {
      const result = await req.connection.call.invoke(operation, parameters);
      return { [`${operation}Result`]: escapeXmlText(result) };
    } catch (error) {
      if (!(error instanceof SoapFaultError)) throw error;
      throw { Fault: faultObject(version, SERVER_UNABLE + error.message) };
    }
  };
}

/** node-soap's object form of a Server/Receiver fault with an empty detail, as ASMX sends it. */
function faultObject(version: SoapVersion, text: string): Record<string, unknown> {
  const code = FAULT_CODE.server[version];
  if (version === '1.1') return { faultcode: code, faultstring: escapeXmlText(text), detail: '', statusCode: 500 };
  return {
    Code: { Value: code },
    // node-soap escapes a $value itself, even with escapeXML off; our fault texts hold no quotes.
    Reason: { Text: { attributes: { 'xml:lang': 'en' }, $value: text } },
    Detail: '',
    statusCode: 500,
  };
}

/** The validated call as a minimal envelope; a null parameter is left out, which node-soap reads as absent. */
function canonicalEnvelope(operation: OperationName, parameters: Map<string, string | null>, namespace: string): string {
  const elements = OPERATION_PARAMETERS[operation]
    .map((name) => {
      const value = parameters.get(name);
      return value === undefined || value === null ? '' : `<t:${name}>${escapeXmlText(value)}</t:${name}>`;
    })
    .join('');
  return `<s:Envelope xmlns:s="${ENVELOPE_NS['1.1']}"><s:Body><t:${operation} xmlns:t="${escapeXmlAttribute(namespace)}">${elements}</t:${operation}></s:Body></s:Envelope>`;
}
