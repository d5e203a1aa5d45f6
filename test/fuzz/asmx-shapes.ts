import { SaxesParser, type SaxesTagNS } from 'saxes';
import { SOAP_NS } from '../helpers/soap-envelopes.js';
import { header, type WireResponse } from './wire.js';

/** What ASMX answers with, and nothing else: the shapes every fuzzed response must take. */
const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/';
const DISCO_NS = 'http://schemas.xmlsoap.org/disco/';

export const CONTENT_TYPES = {
  xml: 'text/xml; charset=utf-8',
  soap12: 'application/soap+xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
} as const;

export const ALLOWED_STATUSES = new Set([200, 400, 404, 405, 413, 415, 429, 500]);
const FAULT_CODES = {
  '1.1': new Set(['soap:Server', 'soap:Client', 'soap:MustUnderstand', 'soap:VersionMismatch']),
  '1.2': new Set(['soap:Receiver', 'soap:Sender', 'soap:MustUnderstand', 'soap:VersionMismatch']),
};
const OPERATIONS = ['AuthenticateToken', 'AuthenticateCookie'];

/** What nobody may ever see: a stack frame, a source or dependency path, the text of an unexpected failure. */
export const NEVER_IN_A_BODY = ['    at ', '/src/', 'node_modules', '.ts:', 'An internal error occurred'];

/** A marker the fuzzers put into echoed places (methods, SOAPAction, ?op=, hosts): HTML must never carry it raw. */
export const MARKUP_MARKER = '<x-fuzz';

export interface XmlElement {
  local: string;
  uri: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  text: string;
}

/** Parses with saxes (namespace-aware, strict); throws on anything not well-formed or carrying a DTD. */
export function parseXml(xml: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('doctype', () => {
    failure ??= new Error('a DOCTYPE in a response');
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const element: XmlElement = {
      local: tag.local,
      uri: tag.uri,
      attributes: new Map(Object.values(tag.attributes).map((a) => [a.name, a.value])),
      children: [],
      text: '',
    };
    stack.at(-1)?.children.push(element);
    root ??= element;
    stack.push(element);
  });
  const onText = (text: string) => {
    const current = stack.at(-1);
    if (current) current.text += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.write(xml).close();
  if (failure) throw failure;
  if (!root) throw new Error('no root element');
  return root;
}

export interface ShapeRules {
  /** The service namespace. */
  namespace: string;
  /** What a successful result may hold (the plain format: the member id or ""). */
  results: ReadonlySet<string>;
  /** Strings no body may contain. */
  secrets: readonly string[];
  /** A GET on the endpoint itself may answer with the WSDL or the disco document. */
  discovery: boolean;
}

const only = (element: XmlElement, what: string): XmlElement => {
  if (element.children.length !== 1) throw new Error(`${what}: ${element.children.length} child elements`);
  return element.children[0] as XmlElement;
};

/** A SOAP envelope of this version: one Body holding one result element or one Fault. */
function checkEnvelope(root: XmlElement, version: '1.1' | '1.2', status: number, rules: ShapeRules): void {
  const ns = SOAP_NS[version];
  if (root.local !== 'Envelope' || root.uri !== ns) throw new Error(`root {${root.uri}}${root.local} is not a SOAP ${version} Envelope`);
  const body = only(root, 'Envelope');
  if (body.local !== 'Body' || body.uri !== ns) throw new Error(`{${body.uri}}${body.local} instead of the Body`);
  const content = only(body, 'Body');
  if (content.local === 'Fault' && content.uri === ns) {
    if (status !== 500) throw new Error(`a fault with status ${status}`);
    const byName = new Map(content.children.map((c) => [c.local, c]));
    const code = version === '1.1' ? byName.get('faultcode')?.text : byName.get('Code')?.children.find((c) => c.local === 'Value')?.text;
    if (code === undefined || !FAULT_CODES[version].has(code)) throw new Error(`fault code ${code} is not a SOAP ${version} one`);
    const reason = version === '1.1' ? byName.get('faultstring') : byName.get('Reason')?.children.find((c) => c.local === 'Text');
    if (!reason) throw new Error('a fault without its reason');
    return;
  }
  const operation = OPERATIONS.find((op) => content.local === `${op}Response`);
  if (!operation || content.uri !== rules.namespace) throw new Error(`{${content.uri}}${content.local} is neither a fault nor a result`);
  if (status !== 200) throw new Error(`a result with status ${status}`);
  const result = only(content, content.local);
  if (result.local !== `${operation}Result` || result.uri !== rules.namespace) throw new Error(`{${result.uri}}${result.local} in ${content.local}`);
  if (!rules.results.has(result.text)) throw new Error(`result ${JSON.stringify(result.text)}`);
}

/**
 * Throws, saying why, unless the response is one ASMX could have sent: an allowed status; exactly one of
 * ASMX's content types; Cache-Control as ASMX sends it; an XML body well-formed and either a result
 * envelope, a fault of the version its content type says, <string> or (GET on the endpoint) the WSDL or
 * disco; a text/plain error line; and nowhere a stack, a path, an internal error or a secret.
 */
export function checkAsmxShape(response: WireResponse, rules: ShapeRules, request: { head: boolean }): void {
  const { status } = response;
  if (!ALLOWED_STATUSES.has(status)) throw new Error(`status ${status}`);
  const types = response.headers.get('content-type') ?? [];
  const type = types[0];
  if (types.length !== 1 || !Object.values(CONTENT_TYPES).includes(type as never)) throw new Error(`Content-Type ${JSON.stringify(types)}`);
  const cache = header(response, 'cache-control');
  if (cache !== 'private' && cache !== 'private, max-age=0') throw new Error(`Cache-Control ${cache}`);
  const text = response.body.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(response.body)) throw new Error('the body is not UTF-8');
  for (const forbidden of NEVER_IN_A_BODY) if (text.includes(forbidden)) throw new Error(`the body contains ${JSON.stringify(forbidden)}`);
  for (const secret of rules.secrets) {
    if (text.includes(secret)) throw new Error(`the body contains the secret ${JSON.stringify(secret)}`);
    if (response.head.includes(secret)) throw new Error(`a header carries the secret ${JSON.stringify(secret)}`);
  }
  if (request.head) return;
  if (response.body.length === 0) {
    // ASMX's empty 400 and 415, for SOAP requests it cannot read.
    if ((status === 400 || status === 415) && (type === CONTENT_TYPES.xml || type === CONTENT_TYPES.soap12)) return;
    throw new Error(`an empty ${status} ${type}`);
  }
  switch (type) {
    case CONTENT_TYPES.xml:
    case CONTENT_TYPES.soap12: {
      const root = parseXml(text);
      if (type === CONTENT_TYPES.soap12) return checkEnvelope(root, '1.2', status, rules);
      if (root.local === 'Envelope') return checkEnvelope(root, '1.1', status, rules);
      if (root.local === 'string' && root.uri === rules.namespace) {
        if (status !== 200 || root.children.length > 0 || !rules.results.has(root.text)) throw new Error(`<string> ${status} ${text}`);
        return;
      }
      const document = (root.local === 'definitions' && root.uri === WSDL_NS) || (root.local === 'discovery' && root.uri === DISCO_NS);
      if (rules.discovery && document && status === 200) return;
      throw new Error(`XML root {${root.uri}}${root.local}`);
    }
    case CONTENT_TYPES.text:
      // ASMX's HTTP GET/POST errors are 500; a throttled caller gets the same line with 429.
      if ((status !== 500 && status !== 429) || !text.endsWith('\n')) throw new Error(`text/plain ${status} ${JSON.stringify(text)}`);
      return;
    default:
      if (text.toLowerCase().includes(MARKUP_MARKER)) throw new Error('HTML carries an unescaped marker from the request');
  }
}
