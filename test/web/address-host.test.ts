/**
 * A service reached at an address or at `localhost`, not at a name a cookie domain can be (HOST=::1, 127.0.0.1 or
 * localhost, no COOKIE_DOMAIN): the sessions it opens are for that host, with a host-only login cookie, and no
 * request ends in an internal error for it.
 */
import { callAsmx } from '../helpers/asmx-request.js';
import { setCookie } from '../helpers/cookies.js';
import { PageClient } from '../helpers/page-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery staple';

describe.each([
  // The host the service listens on, its URL's host, and the spellings of it a partner may give as the cookie domain.
  { host: '::1', urlHost: '[::1]', domains: ['[::1]', '::1', '.[::1]'] },
  { host: '127.0.0.1', urlHost: '127.0.0.1', domains: ['127.0.0.1', '.127.0.0.1'] },
  { host: 'localhost', urlHost: 'localhost', domains: ['localhost', 'LOCALHOST', '.localhost'] },
])('reached at $urlHost', ({ host, urlHost, domains }) => {
  let app: TestApp;
  let securityPassword: string;

  beforeAll(async () => {
    app = await startTestApp({ host, seed: false, env: { PROFILE: 'isgweb', SOAP_NAMESPACE: undefined, RESULT_FORMAT: undefined, COOKIE_DOMAIN: undefined } });
    ({ password: securityPassword } = await app.services.callers.add('portal'));
    await app.services.members.add({ id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
    await app.services.members.setPassword('10042', PASSWORD);
  });
  afterAll(() => app.close());

  const call = (operation: string, params: Record<string, string>) => callAsmx(app, 'httppost', operation, params);

  test(`the service listens on ${host} and is reached at ${urlHost}`, () => {
    expect(app.baseUrl).toBe(`http://${urlHost}:${app.port}`);
  });

  test('AuthenticateUser over HTTP POST opens a session for that host, which AuthenticateCookie answers', async () => {
    const signedIn = await call('AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD, authenticationToken: '' });
    expect(app.logLines.filter((line) => line.level === 'error')).toEqual([]);
    expect(signedIn.status).toBe(200);
    const cookie = /USER_COOKIE="\.ASPXAUTH=([^"|]+)/.exec(signedIn.result ?? '')?.[1];
    expect(cookie).toBeDefined();
    for (const cookieDomain of domains) {
      const answer = await call('AuthenticateCookie', { securityPassword, loginCookie: cookie ?? '', cookieDomain });
      expect(answer.result).toContain('ID="10042"');
    }
    const elsewhere = await call('AuthenticateCookie', { securityPassword, loginCookie: cookie ?? '', cookieDomain: 'example.org' });
    expect(elsewhere.result).not.toContain('ID="10042"');
  });

  test('the sign-in page signs the member in with a host-only cookie', async () => {
    const visitor = new PageClient(app.baseUrl);
    const page = await visitor.signIn('ada', PASSWORD);
    expect(page.status).toBe(303);
    const line = setCookie(page, '.ASPXAUTH');
    expect(line).toBeDefined();
    expect(line).not.toMatch(/Domain=/i);
    const account = await visitor.get('/Account');
    expect(account.status).toBe(200);
    expect(account.text).toContain('This session');
    expect(app.logLines.filter((line) => line.level === 'error')).toEqual([]);
  });
});
