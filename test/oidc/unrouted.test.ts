/**
 * What the provider has no route for, while it is on: an unknown path below /oidc is the service's 404, as any
 * unknown path, and the authorization and end-session endpoints refuse POST (405, GET only) as the provider
 * refuses a request; each with the request's id, never an error in the log.
 */
import type { TestApp } from '../helpers/test-app.js';
import { register, startOidcApp } from './relying-party.js';

let app: TestApp;
beforeEach(async () => {
  app = await startOidcApp();
  await register(app, { firstParty: true });
});
afterEach(() => app.close());

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const AUTHORIZATION = 'client_id=x&response_type=code&scope=openid&redirect_uri=https%3A%2F%2Frp.example.org%2Fcallback';

it('answers an unknown path below /oidc with the service\'s 404 and its request id, and logs nothing', async () => {
  const requests: Array<[string, RequestInit]> = [
    ['/oidc/nothing', {}],
    ['/oidc/', {}],
    ['/oidc/token/nothing', { method: 'POST', headers: FORM, body: 'a=b' }],
    ['/oidc/request', {}],
    ['/oidc/jwks', { method: 'DELETE' }],
  ];
  for (const [path, init] of requests) {
    const response = await fetch(`${app.baseUrl}${path}`, { ...init, headers: { ...init.headers, 'X-Request-Id': `unknown-${path.length}` } });
    expect([path, response.status]).toEqual([path, 404]);
    expect(response.headers.get('x-request-id')).toBe(`unknown-${path.length}`);
    expect(await response.text()).toContain('The resource cannot be found.');
  }
  expect(app.logLines).toEqual([]);
});

it('refuses POST at the authorization and end-session endpoints: 405, GET only, one refusal line with the request id', async () => {
  for (const [path, route] of [
    ['/oidc/auth', 'authorization'],
    ['/oidc/session/end', 'end_session'],
  ] as const) {
    const response = await fetch(`${app.baseUrl}${path}`, { method: 'POST', headers: { ...FORM, 'X-Request-Id': route }, body: AUTHORIZATION });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(response.headers.get('x-request-id')).toBe(route);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await response.text()).toContain('invalid_request: this endpoint takes GET requests only');
  }
  expect(app.logLines.map(({ level, message, route, error, requestId }) => ({ level, message, route, error, requestId }))).toEqual([
    { level: 'info', message: 'oidc refused', route: 'authorization', error: 'invalid_request', requestId: 'authorization' },
    { level: 'info', message: 'oidc refused', route: 'end_session', error: 'invalid_request', requestId: 'end_session' },
  ]);
});
