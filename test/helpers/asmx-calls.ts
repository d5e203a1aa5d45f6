import { asmxRequest, type Binding } from './asmx-request.js';
import { REFERENCE } from './reference-data.js';

/** The three ways the browser tests ask the service, as partner sites would. Results are the plain format. */
const resultOf = (xml: string, element: string) => {
  const match = new RegExp(`<${element}(?: [^>]*)?(?:/>|>([^<]*)</${element}>)`).exec(xml);
  if (!match) throw new Error(`no <${element}> in: ${xml.slice(0, 300)}`);
  return match[1] ?? '';
};

/** Sends one call built by the tests' request builder (asmx-request.ts) and returns its result text. */
async function call(baseUrl: string, binding: Binding, operation: string, params: Record<string, string>): Promise<string> {
  const { path, element, ...init } = asmxRequest(REFERENCE.namespace, binding, operation, params);
  const response = await fetch(`${baseUrl}${path}`, init);
  return resultOf(await response.text(), element);
}

export function soap11AuthenticateCookie(baseUrl: string, cookie: string, domain: string): Promise<string> {
  return call(baseUrl, 'soap11', 'AuthenticateCookie', { securityPassword: REFERENCE.password, loginCookie: cookie, cookieDomain: domain });
}

export function soap12AuthenticateToken(baseUrl: string, token: string): Promise<string> {
  return call(baseUrl, 'soap12', 'AuthenticateToken', { securityPassword: REFERENCE.password, token });
}

export function httpGetAuthenticateToken(baseUrl: string, token: string): Promise<string> {
  return call(baseUrl, 'httpget', 'AuthenticateToken', { securityPassword: REFERENCE.password, token });
}
