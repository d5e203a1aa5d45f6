import { asmxRequest, resultText, type Binding } from '../helpers/asmx-request.js';
import type { RequestOptions, Response } from '../helpers/processes.js';
import { rawRequest, sendPartly } from '../helpers/raw-http.js';
import { operationElement, soapEnvelope } from '../helpers/soap-envelopes.js';
import { unreadBytes } from '../helpers/tcp-queue.js';
import { waitUntil } from '../helpers/wait.js';

/** Where a call goes: an instance's own port, or nginx over HTTP or HTTPS. */
export type Endpoint = (path: string, options?: RequestOptions) => Promise<Response>;

export { BINDINGS, type Binding } from '../helpers/asmx-request.js';
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

/** The result string of a call, parsed as the json format; throws with the response when it is not a 200 with a result. */
export async function call(endpoint: Endpoint, binding: Binding, operation: Operation, params: Record<string, string>): Promise<JsonResult> {
  const { path, element, ...options } = asmxRequest(NS, binding, operation, params);
  const response = await endpoint(path, options);
  const result = resultText(response.body, element);
  if (response.status !== 200 || result === null) throw new Error(`${binding} ${operation}: HTTP ${response.status}: ${response.body.slice(0, 300)}`);
  return JSON.parse(result) as JsonResult;
}

export const authenticateToken = (endpoint: Endpoint, binding: Binding, securityPassword: string, token: string) =>
  call(endpoint, binding, 'AuthenticateToken', { securityPassword, token });

export const authenticateCookie = (endpoint: Endpoint, binding: Binding, securityPassword: string, loginCookie: string, cookieDomain: string) =>
  call(endpoint, binding, 'AuthenticateCookie', { securityPassword, loginCookie, cookieDomain });

/**
 * A SOAP 1.1 AuthenticateToken call straight to an instance whose body arrives in two parts: the headers and
 * half the body now, the rest when finish() is called. In between, the instance has a request in flight.
 */
export function slowCall(port: number, securityPassword: string, token: string) {
  const body = soapEnvelope('1.1', operationElement(NS, 'AuthenticateToken', { securityPassword, token }));
  const headers = { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}AuthenticateToken"` };
  const call = sendPartly(port, rawRequest(port, { method: 'POST', target: '/Authentication.asmx', headers, body }), Buffer.byteLength(body) >> 1);
  return {
    /**
     * Resolves once the instance has read what was sent: the request is in flight there. The instance is
     * another process, so what shows it is its socket's queue of bytes not yet read, empty.
     */
    async read(): Promise<void> {
      const clientPort = await call.written;
      await waitUntil(() => unreadBytes(port, clientPort) === 0, 'the instance to read the request so far');
    },
    async finish(): Promise<{ status: number; body: string }> {
      // The instance closes the connection after answering (Connection: close while it stops).
      call.finish();
      const text = await call.received;
      return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
    },
  };
}
