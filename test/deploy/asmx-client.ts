import type { RequestOptions, Response } from '../helpers/processes.js';

/** Where a call goes: an instance's own port, or nginx over HTTP or HTTPS. */
export type Endpoint = (path: string, options?: RequestOptions) => Promise<Response>;

export const BINDINGS = ['soap11', 'soap12', 'httpget', 'httppost'] as const;
export type Binding = (typeof BINDINGS)[number];
export type Operation = 'AuthenticateCookie' | 'AuthenticateToken';

/** The service's default namespace: the deployment tests run the instances as an operator would, with defaults. */
const NS = 'http://tempuri.org/';

/** The json result format (RESULT_FORMAT=json), as the test instances answer. */
export interface JsonResult {
  status: 'Success' | 'Failure';
  message: string;
  contactid?: string;
  pa_token?: string;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const unescapeXml = (text: string) =>
  text
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function request(operation: Operation, binding: Binding, params: Record<string, string>): { path: string; options: RequestOptions; element: string } {
  const fields = Object.entries(params);
  const xmlParams = fields.map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`).join('');
  const call = `<${operation} xmlns="${NS}">${xmlParams}</${operation}>`;
  switch (binding) {
    case 'soap11':
      return {
        path: '/Authentication.asmx',
        element: `${operation}Result`,
        options: {
          method: 'POST',
          headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}${operation}"` },
          body: `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>${call}</soap:Body></soap:Envelope>`,
        },
      };
    case 'soap12':
      return {
        path: '/Authentication.asmx',
        element: `${operation}Result`,
        options: {
          method: 'POST',
          headers: { 'Content-Type': `application/soap+xml; charset=utf-8; action="${NS}${operation}"` },
          body: `<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope"><soap12:Body>${call}</soap12:Body></soap12:Envelope>`,
        },
      };
    case 'httpget':
      return { path: `/Authentication.asmx/${operation}?${new URLSearchParams(params)}`, element: 'string', options: {} };
    case 'httppost':
      return {
        path: `/Authentication.asmx/${operation}`,
        element: 'string',
        options: { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: String(new URLSearchParams(params)) },
      };
  }
}

/** The result string of a call, parsed as the json format; throws with the response when it is not a 200 with a result. */
export async function call(endpoint: Endpoint, binding: Binding, operation: Operation, params: Record<string, string>): Promise<JsonResult> {
  const { path, options, element } = request(operation, binding, params);
  const response = await endpoint(path, options);
  const match = new RegExp(`<${element}(?: [^>]*)?(?:/>|>([^<]*)</${element}>)`).exec(response.body);
  if (response.status !== 200 || !match) throw new Error(`${binding} ${operation}: HTTP ${response.status}: ${response.body.slice(0, 300)}`);
  return JSON.parse(unescapeXml(match[1] ?? '')) as JsonResult;
}

export const authenticateToken = (endpoint: Endpoint, binding: Binding, securityPassword: string, token: string) =>
  call(endpoint, binding, 'AuthenticateToken', { securityPassword, token });

export const authenticateCookie = (endpoint: Endpoint, binding: Binding, securityPassword: string, loginCookie: string, cookieDomain: string) =>
  call(endpoint, binding, 'AuthenticateCookie', { securityPassword, loginCookie, cookieDomain });
