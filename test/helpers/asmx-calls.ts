import { REFERENCE } from './reference-data.js';

/** The three ways the browser tests ask the service, as partner sites would. Results are the plain format. */
const resultOf = (xml: string, element: string) => {
  const match = new RegExp(`<${element}(?: [^>]*)?(?:/>|>([^<]*)</${element}>)`).exec(xml);
  if (!match) throw new Error(`no <${element}> in: ${xml.slice(0, 300)}`);
  return match[1] ?? '';
};

export async function soap11AuthenticateCookie(baseUrl: string, cookie: string, domain: string): Promise<string> {
  const body = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><AuthenticateCookie xmlns="${REFERENCE.namespace}"><securityPassword>${REFERENCE.password}</securityPassword><loginCookie>${cookie}</loginCookie><cookieDomain>${domain}</cookieDomain></AuthenticateCookie></soap:Body></soap:Envelope>`;
  const response = await fetch(`${baseUrl}/Authentication.asmx`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${REFERENCE.namespace}AuthenticateCookie"` },
    body,
  });
  return resultOf(await response.text(), 'AuthenticateCookieResult');
}

export async function soap12AuthenticateToken(baseUrl: string, token: string): Promise<string> {
  const body = `<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope"><soap12:Body><AuthenticateToken xmlns="${REFERENCE.namespace}"><securityPassword>${REFERENCE.password}</securityPassword><token>${token}</token></AuthenticateToken></soap12:Body></soap12:Envelope>`;
  const response = await fetch(`${baseUrl}/Authentication.asmx`, {
    method: 'POST',
    headers: { 'Content-Type': `application/soap+xml; charset=utf-8; action="${REFERENCE.namespace}AuthenticateToken"` },
    body,
  });
  return resultOf(await response.text(), 'AuthenticateTokenResult');
}

export async function httpGetAuthenticateToken(baseUrl: string, token: string): Promise<string> {
  const query = new URLSearchParams({ securityPassword: REFERENCE.password, token });
  const response = await fetch(`${baseUrl}/Authentication.asmx/AuthenticateToken?${query}`);
  return resultOf(await response.text(), 'string');
}
