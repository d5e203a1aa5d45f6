import { guardXml, MESSAGE_BOUNDS } from '../xml-guard.js';
import { parseRoot } from './dom.js';
import { readMessage, type LogoutResponseMsg } from './messages.js';
import { Refused, refuse } from './refusal.js';

const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

/** The element children of a node. */
function elements(parent: Element): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) if (node.nodeType === node.ELEMENT_NODE) found.push(node as Element);
  return found;
}

/**
 * The LogoutResponse an SP answers a LogoutRequest sent over the SOAP binding with (SAML bindings 3.2): a SOAP
 * 1.1 envelope whose Body holds that one message, read after guardXml as every inbound document is. Its
 * signature is not asked for: the answer comes back on the TLS connection this identity provider opened to the
 * endpoint of the SP's metadata (bindings 3.2.3.4).
 */
export function readSoapLogoutResponse(xml: string): { ok: true; response: LogoutResponseMsg } | { ok: false; reason: string } {
  try {
    const guarded = guardXml(xml, MESSAGE_BOUNDS);
    if (!guarded.ok) refuse('xml', guarded.reason);
    const envelope = parseRoot(xml);
    if (envelope.namespaceURI !== SOAP11_NS || envelope.localName !== 'Envelope') refuse('message', 'not a SOAP 1.1 envelope');
    const body = elements(envelope).filter((child) => child.namespaceURI === SOAP11_NS && child.localName === 'Body');
    const [message, ...more] = body.length === 1 && body[0] !== undefined ? elements(body[0]) : [];
    if (message === undefined || more.length > 0) refuse('message', 'a SOAP envelope without one message in one Body');
    const response = readMessage(message, 'SAMLResponse');
    if (response.kind !== 'LogoutResponse') refuse('message', 'a SOAP answer that is not a LogoutResponse');
    return { ok: true, response };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.refusal.text };
    throw error;
  }
}
