import { asmxRequest, resultText, type Binding } from './asmx-request.js';
import { REFERENCE } from './reference-data.js';

/** The ways the page and browser tests ask the service, as partner sites would, as the reference caller. Results are the plain format. */

/** Sends one call built by the tests' request builder (asmx-request.ts) and returns its result text. */
async function call(baseUrl: string, binding: Binding, operation: string, params: Record<string, string>): Promise<string> {
  const { path, element, ...init } = asmxRequest(REFERENCE.namespace, binding, operation, params);
  const xml = await (await fetch(`${baseUrl}${path}`, init)).text();
  const result = resultText(xml, element);
  if (result === null) throw new Error(`no <${element}> in: ${xml.slice(0, 300)}`);
  return result;
}

export function soap11AuthenticateCookie(baseUrl: string, cookie: string, domain: string): Promise<string> {
  return call(baseUrl, 'soap11', 'AuthenticateCookie', { securityPassword: REFERENCE.password, loginCookie: cookie, cookieDomain: domain });
}

export function soap12AuthenticateToken(baseUrl: string, token: string): Promise<string> {
  return call(baseUrl, 'soap12', 'AuthenticateToken', { securityPassword: REFERENCE.password, token });
}

/** The member AuthenticateCookie answers for this login cookie over HTTP GET (the plain result: the member id), or '' when it is not signed in. */
export function memberOfCookie(baseUrl: string, cookie: string, cookieDomain: string): Promise<string> {
  return call(baseUrl, 'httpget', 'AuthenticateCookie', { securityPassword: REFERENCE.password, loginCookie: cookie, cookieDomain });
}

export function httpGetAuthenticateToken(baseUrl: string, token: string): Promise<string> {
  return call(baseUrl, 'httpget', 'AuthenticateToken', { securityPassword: REFERENCE.password, token });
}
