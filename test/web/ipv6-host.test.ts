/**
 * A service reached at an address, not a name (HOST=::1, no COOKIE_DOMAIN): the sessions it opens are for that
 * address, with a host-only login cookie, and no request ends in an internal error for it.
 */
import { asmxRequest, resultText } from '../helpers/asmx-request.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { PageClient, setCookie } from '../signin/page-client.js';

const PASSWORD = 'correct horse battery staple';

let app: TestApp;
let securityPassword: string;

beforeAll(async () => {
  app = await startTestApp({ host: '::1', seed: false, env: { PROFILE: 'isgweb', SOAP_NAMESPACE: undefined, RESULT_FORMAT: undefined, COOKIE_DOMAIN: undefined } });
  ({ password: securityPassword } = await app.services.callers.add('portal'));
  await app.services.members.add({ id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
  await app.services.members.setPassword('10042', PASSWORD);
});
afterAll(() => app.close());

async function call(operation: string, params: Record<string, string>): Promise<{ status: number; result: string | null }> {
  const { path, element, ...init } = asmxRequest(app.config.soapNamespace, 'httppost', operation, params);
  const response = await fetch(`${app.baseUrl}${app.config.basePath}${path}`, init);
  const body = await response.text();
  return { status: response.status, result: response.status === 200 ? resultText(body, element) : null };
}

test('the service listens on ::1 and is reached at [::1]', () => {
  expect(app.baseUrl).toMatch(/^http:\/\/\[::1\]:\d+$/);
});

test('AuthenticateUser over HTTP POST at [::1] opens a session for that address, which AuthenticateCookie answers', async () => {
  const signedIn = await call('AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD, authenticationToken: '' });
  expect(app.logLines.filter((line) => line.level === 'error')).toEqual([]);
  expect(signedIn.status).toBe(200);
  const cookie = /USER_COOKIE="\.ASPXAUTH=([^"|]+)/.exec(signedIn.result ?? '')?.[1];
  expect(cookie).toBeDefined();
  for (const cookieDomain of ['[::1]', '::1', '.[::1]']) {
    const answer = await call('AuthenticateCookie', { securityPassword, loginCookie: cookie ?? '', cookieDomain });
    expect(answer.result).toContain('ID="10042"');
  }
  const elsewhere = await call('AuthenticateCookie', { securityPassword, loginCookie: cookie ?? '', cookieDomain: 'example.org' });
  expect(elsewhere.result).not.toContain('ID="10042"');
});

test('the sign-in page at [::1] signs the member in with a host-only cookie', async () => {
  const visitor = new PageClient(app.baseUrl);
  const page = await visitor.signIn('ada', PASSWORD);
  expect(page.status).toBeLessThan(400);
  const line = setCookie(page, '.ASPXAUTH');
  expect(line).toBeDefined();
  expect(line).not.toMatch(/Domain=/i);
  const account = await visitor.get('/Account');
  expect(account.status).toBe(200);
  expect(account.text).toContain('This session');
});
