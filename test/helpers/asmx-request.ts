/**
 * The tests' one request builder: calls as partner code writes them by hand, one per binding, for any operation
 * of the WSDL (the SOAP envelopes from soap-envelopes.ts).
 */
import { operationElement, soapEnvelope } from './soap-envelopes.js';

export const BINDINGS = ['soap11', 'soap12', 'httpget', 'httppost'] as const;
export type Binding = (typeof BINDINGS)[number];

/** A request to send, relative to the endpoint's directory (`path` starts with /Authentication.asmx). */
export interface AsmxRequest {
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** The element whose text is the result string. */
  element: string;
}

export const unescapeXml = (text: string) =>
  text
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The operation's call on a binding; parameters left out of `params` are left out of the request. */
export function asmxRequest(namespace: string, binding: Binding, operation: string, params: Record<string, string>): AsmxRequest {
  const call = operationElement(namespace, operation, params);
  switch (binding) {
    case 'soap11':
      return {
        path: '/Authentication.asmx',
        method: 'POST',
        element: `${operation}Result`,
        headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${namespace}${operation}"` },
        body: soapEnvelope('1.1', call),
      };
    case 'soap12':
      return {
        path: '/Authentication.asmx',
        method: 'POST',
        element: `${operation}Result`,
        headers: { 'Content-Type': `application/soap+xml; charset=utf-8; action="${namespace}${operation}"` },
        body: soapEnvelope('1.2', call),
      };
    case 'httpget':
      return { path: `/Authentication.asmx/${operation}?${new URLSearchParams(params)}`, method: 'GET', element: 'string', headers: {} };
    case 'httppost':
      return {
        path: `/Authentication.asmx/${operation}`,
        method: 'POST',
        element: 'string',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: String(new URLSearchParams(params)),
      };
  }
}

/** The result string in a response body, unescaped; null when the body has no result element. */
export function resultText(body: string, element: string): string | null {
  const match = new RegExp(`<${element}(?: [^>]*)?(?:/>|>([^<]*)</${element}>)`).exec(body);
  return match ? unescapeXml(match[1] ?? '') : null;
}

/** An answer to a call: its status, Content-Type and body, and the result string of a 200 (null otherwise). */
export interface AsmxReply {
  status: number;
  contentType: string | null;
  body: string;
  result: string | null;
}

/** Where a test app answers: its URL, and the endpoint's namespace and base path as configured. */
export interface AsmxEndpoint {
  baseUrl: string;
  config: { soapNamespace: string; basePath: string };
}

/** Sends the operation's call on a binding (asmxRequest) to an app's endpoint. */
export async function callAsmx(app: AsmxEndpoint, binding: Binding, operation: string, params: Record<string, string>): Promise<AsmxReply> {
  const { path, element, ...init } = asmxRequest(app.config.soapNamespace, binding, operation, params);
  const response = await fetch(`${app.baseUrl}${app.config.basePath}${path}`, init);
  const body = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), body, result: response.status === 200 ? resultText(body, element) : null };
}
