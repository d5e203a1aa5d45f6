import { asmxRequest, resultText, type Binding } from '../helpers/asmx-request.js';
import type { RequestOptions, Response } from '../helpers/processes.js';

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
