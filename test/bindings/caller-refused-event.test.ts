/**
 * A partner calling with a wrong security password: the password is what tells callers apart, so the event names
 * none; it records what the call tells of itself (its address, its software, a browser page's origin) and its
 * request id, on SOAP and on the HTTP GET/POST binding alike.
 */
import { asmxRequest } from '../helpers/asmx-request.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp();
});
afterEach(() => app.close());

async function refusedCall(binding: 'soap11' | 'httpget', headers: Record<string, string>): Promise<string> {
  const { path, element: _element, ...init } = asmxRequest(REFERENCE.namespace, binding, 'AuthenticateToken', { securityPassword: 'not the password', token: REFERENCE.token });
  const res = await fetch(`${app.baseUrl}${path}`, { ...init, headers: { ...init.headers, ...headers } });
  expect(res.status).toBe(500);
  return res.headers.get('x-request-id') ?? '';
}

it('records the address, the software, the page\'s origin and the request id, never the password', async () => {
  const soap = await refusedCall('soap11', { 'User-Agent': 'MS Web Services Client Protocol 4.0.30319.42000' });
  const get = await refusedCall('httpget', { 'User-Agent': 'Mozilla/5.0 Firefox/128.0', Referer: 'https://events.example.net/login?next=1' });
  const events = await app.services.events.list({ type: 'caller-refused' });
  expect(events).toEqual([
    expect.objectContaining({ memberId: null, actor: { kind: 'partner' }, clientAddress: '127.0.0.1', device: 'Mozilla/5.0 Firefox/128.0', via: 'https://events.example.net', requestId: get, outcome: 'AuthenticateToken', reason: 'wrong-security-password' }),
    expect.objectContaining({ memberId: null, actor: { kind: 'partner' }, clientAddress: '127.0.0.1', device: 'MS Web Services Client Protocol 4.0.30319.42000', via: null, requestId: soap, reason: 'wrong-security-password' }),
  ]);
  expect(JSON.stringify(events)).not.toContain('not the password');
});
