/**
 * The vendors' operations over the four bindings, on both stores, as partner code calls them: an ISGweb
 * WordPress plugin (AuthenticateUser, then AuthenticateToken with USER_COOKIE, DeleteUserSession) and a CRM4M
 * client (JSON with GUIDs), each against its PROFILE.
 */
import { BINDINGS, callAsmx, type AsmxReply as Reply, type Binding } from '../helpers/asmx-request.js';
import { iBridge } from '../helpers/ibridge.js';
import { scrape } from '../helpers/metrics.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery staple';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The profile's settings, nothing of the test app's own defaults in their way. */
const profileEnv = (profile: string, env: Record<string, string> = {}) => ({
  PROFILE: profile,
  SOAP_NAMESPACE: undefined,
  RESULT_FORMAT: undefined,
  COOKIE_DOMAIN: '.example.org',
  ...env,
});

function caller(app: TestApp) {
  return (binding: Binding, operation: string, params: Record<string, string>): Promise<Reply> => callAsmx(app, binding, operation, params);
}

for (const store of ['sqlite', 'postgres'] as const) {
  const describeStore = store === 'postgres' ? describeWithPostgres : describe;

  describeStore(`PROFILE=isgweb on ${store}`, () => {
    let app: TestApp;
    let securityPassword: string;
    let call: ReturnType<typeof caller>;

    beforeAll(async () => {
      app = await startTestApp({ env: profileEnv('isgweb', { SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3' }), seed: false, store });
      ({ password: securityPassword } = await app.services.callers.add('wordpress'));
      const others = BINDINGS.map((binding, i): [string, string] => [String(10050 + i), `grace-${binding}`]);
      const members: Array<[string, string]> = [['10042', 'ada'], ['10043', 'grace'], ...others];
      for (const [id, username] of members) {
        await app.services.members.add({ id, username, email: `${username}@example.org`, firstName: 'Ada', lastName: 'Lovelace' });
        await app.services.members.setPassword(id, PASSWORD);
      }
      call = caller(app);
    });
    afterAll(() => app.close());

    test('the endpoint is where ISGweb keeps it', () => {
      expect(app.config.basePath).toBe('/iservices');
    });

    describe.each(BINDINGS)('%s', (binding) => {
      test('AuthenticateUser, then AuthenticateToken carries USER_COOKIE and EMAIL; DeleteUserSession ends the session', async () => {
        const signedIn = await call(binding, 'AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD, authenticationToken: '' });
        const { user } = await iBridge(signedIn.result);
        expect(user).toMatchObject({ ID: '10042', EMAIL: 'ada@example.org', FULL_NAME: 'Ada Lovelace' });
        const token = user?.TOKEN ?? '';
        expect(token).not.toBe('');

        const verified = await iBridge((await call(binding, 'AuthenticateToken', { securityPassword, token })).result);
        expect(verified.user).toMatchObject({ ID: '10042', TOKEN: token, EMAIL: 'ada@example.org' });
        const pairs = (verified.user?.USER_COOKIE ?? '').split('|');
        expect(pairs).toEqual([expect.stringMatching(/^\.ASPXAUTH=.+/), `Token=${token}`]);

        // The login cookie in USER_COOKIE is the session's: the partner sets it on the shared domain.
        const cookie = (pairs[0] ?? '').slice('.ASPXAUTH='.length);
        const byCookie = await iBridge((await call(binding, 'AuthenticateCookie', { securityPassword, loginCookie: cookie, cookieDomain: '.example.org' })).result);
        expect(byCookie.user).toMatchObject({ ID: '10042', TOKEN: token });

        const deleted = await iBridge((await call(binding, 'DeleteUserSession', { securityPassword, token })).result);
        expect(deleted.error).toBeUndefined();
        expect(Object.keys(deleted.root)).not.toHaveLength(0);

        const after = await iBridge((await call(binding, 'AuthenticateToken', { securityPassword, token })).result);
        expect(after.error?.Description).toMatch(/token/i);
        const again = await iBridge((await call(binding, 'DeleteUserSession', { securityPassword, token })).result);
        expect(again.error?.Description).toMatch(/token/i);
      });

      test('a wrong password, an unknown user and missing credentials read as bad credentials', async () => {
        for (const params of [
          { username: `grace-${binding}`, password: 'not the password' },
          { username: `nobody-${binding}`, password: PASSWORD },
          { username: `grace-${binding}@example.org`, password: '' },
        ]) {
          const { error, user } = await iBridge((await call(binding, 'AuthenticateUser', { securityPassword, ...params, authenticationToken: '' })).result);
          expect(user).toBeUndefined();
          expect(error?.Description).toMatch(/invalid username/i);
        }
      });

      test('Login checks the password by email too, and opens no session', async () => {
        const before = (await app.services.sessions.list({ memberId: '10043' })).length;
        const { user } = await iBridge((await call(binding, 'Login', { securityPassword, username: 'GRACE@example.org', password: PASSWORD, authenticationToken: '' })).result);
        expect(user).toMatchObject({ ID: '10043', EMAIL: 'grace@example.org' });
        expect(user?.TOKEN).toBeUndefined();
        expect(user?.USER_COOKIE).toBeUndefined();
        expect(await app.services.sessions.list({ memberId: '10043' })).toHaveLength(before);
      });

      test('a wrong security password is the calling application\'s fault, as for the first two operations', async () => {
        const credentials = { username: 'ada', password: PASSWORD, authenticationToken: '' };
        for (const [operation, params] of Object.entries({ AuthenticateUser: credentials, Login: credentials, DeleteUserSession: { token: 'x' } })) {
          const reply = await call(binding, operation, { securityPassword: 'wrong', ...params });
          expect(reply.status).toBe(500);
          expect(reply.body).toContain('Invalid security password');
        }
      });

      test('ValidateUser, which ISGweb lacks, is answered as an unknown method', async () => {
        const offered = await call(binding, 'ValidateUser', { securityPassword, username: 'ada', password: PASSWORD });
        const unknown = await call(binding, 'NoSuchMethod', { securityPassword, username: 'ada', password: PASSWORD });
        expect(offered.status).not.toBe(200);
        expect(offered.status).toBe(unknown.status);
        expect(offered.body.replaceAll('ValidateUser', 'X')).toBe(unknown.body.replaceAll('NoSuchMethod', 'X'));
      });
    });

    test('a SOAP client generated before authenticationToken existed sends three parameters and signs in', async () => {
      const reply = await call('soap11', 'AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD });
      expect((await iBridge(reply.result)).user?.ID).toBe('10042');
    });

    test('a locked login is neither bad credentials nor a token problem, and says when to retry', async () => {
      await app.services.members.add({ id: '10044', username: 'locked', email: 'locked@example.org' });
      await app.services.members.setPassword('10044', PASSWORD);
      for (let i = 0; i < 3; i++) await call('httppost', 'AuthenticateUser', { securityPassword, username: 'locked', password: 'wrong', authenticationToken: '' });
      const { error } = await iBridge((await call('soap12', 'AuthenticateUser', { securityPassword, username: 'locked', password: PASSWORD })).result);
      expect(error?.Description).not.toMatch(/token|invalid username/i);
      expect(error?.Description).toMatch(/try again in \d+ seconds/);
    });

    test('the metrics count each operation by outcome', async () => {
      const credentials = { securityPassword, username: 'ada', password: PASSWORD, authenticationToken: '' };
      const token = (await iBridge((await call('soap11', 'AuthenticateUser', credentials)).result)).user?.TOKEN ?? '';
      await call('soap11', 'AuthenticateUser', { ...credentials, username: 'nobody-metrics' });
      await call('soap11', 'Login', credentials);
      await call('soap11', 'DeleteUserSession', { securityPassword, token });
      await call('soap11', 'DeleteUserSession', { securityPassword, token });
      const metrics = await scrape(app.baseUrl);
      for (const [operation, outcome] of [
        ['AuthenticateUser', 'signed_in'],
        ['AuthenticateUser', 'invalid_credentials'],
        ['Login', 'verified'],
        ['DeleteUserSession', 'session_ended'],
        ['DeleteUserSession', 'not_signed_in'],
      ]) {
        expect(metrics).toMatch(new RegExp(`asmx_calls_total\\{binding="\\w+",operation="${operation}",outcome="${outcome}"\\} [1-9]`));
      }
    });

    test('the call log names the outcome and never the password or the token', async () => {
      const reply = await call('soap11', 'AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD });
      const token = (await iBridge(reply.result)).user?.TOKEN ?? '';
      const lines = JSON.stringify(app.logLines);
      expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'call', operation: 'AuthenticateUser', outcome: 'signed-in', member: '10042' }));
      for (const secret of [PASSWORD, token, securityPassword]) expect(lines).not.toContain(secret);
    });
  });

  describeStore(`PROFILE=crm4m on ${store}`, () => {
    let app: TestApp;
    let securityPassword: string;
    let memberId: string;
    let call: ReturnType<typeof caller>;
    const json = (reply: Reply) => JSON.parse(reply.result ?? 'null') as Record<string, unknown>;

    beforeAll(async () => {
      app = await startTestApp({ env: profileEnv('crm4m'), seed: false, store });
      ({ password: securityPassword } = await app.services.callers.add('portal'));
      const member = await app.services.members.add({
        username: 'ada',
        email: 'ada@example.org',
        firstName: 'Ada',
        lastName: 'Lovelace',
        attributes: { isMember: true, roles: [{ id: '8d7f3c1e-6a2b-4c5d-9e8f-0a1b2c3d4e5f', name: 'Member' }] },
      });
      memberId = member.id;
      await app.services.members.setPassword(memberId, PASSWORD);
      call = caller(app);
    });
    afterAll(() => app.close());

    test('member ids are GUIDs', () => {
      expect(memberId).toMatch(GUID);
    });

    test("AuthenticateUser takes CRM4M's three parameters: authenticationToken is not declared", async () => {
      const wsdl = await (await fetch(`${app.baseUrl}${app.config.basePath}/Authentication.asmx?wsdl`)).text();
      expect(wsdl).not.toContain('authenticationToken');
      const reply = await call('httpget', 'AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD, authenticationToken: '123456' });
      expect(json(reply)).toMatchObject({ status: 'Success', contactid: memberId });
    });

    describe.each(BINDINGS)('%s', (binding) => {
      test('AuthenticateUser and AuthenticateToken answer the CRM4M JSON with GUIDs; DeleteUserSession ends the session', async () => {
        const signedIn = json(await call(binding, 'AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD }));
        expect(signedIn).toMatchObject({ status: 'Success', contactid: memberId, pa_member: true, pa_webroles: [{ id: '8d7f3c1e-6a2b-4c5d-9e8f-0a1b2c3d4e5f', name: 'Member' }] });
        expect(signedIn.pa_token).toMatch(GUID);
        const verified = json(await call(binding, 'AuthenticateToken', { securityPassword, token: String(signedIn.pa_token) }));
        expect(verified).toMatchObject({ status: 'Success', contactid: memberId, pa_token: signedIn.pa_token, emailaddress1: 'ada@example.org' });

        expect(json(await call(binding, 'DeleteUserSession', { securityPassword, token: String(signedIn.pa_token) }))).toEqual({ status: 'Success' });
        const after = await call(binding, 'AuthenticateToken', { securityPassword, token: String(signedIn.pa_token) });
        expect(json(after)).toMatchObject({ status: 'Failure' });
        expect((after.result ?? '').toLowerCase()).not.toContain('success');
      });

      test('ValidateUser checks the password without a session; a wrong one is a failure', async () => {
        expect(json(await call(binding, 'ValidateUser', { securityPassword, username: 'ada', password: PASSWORD }))).toMatchObject({ status: 'Success', contactid: memberId, pa_token: null });
        const wrong = await call(binding, 'ValidateUser', { securityPassword, username: 'ada', password: 'nope' });
        expect(json(wrong)).toEqual({ status: 'Failure', message: 'Invalid username or password' });
        expect((wrong.result ?? '').toLowerCase()).not.toContain('success');
      });
    });
  });
}

describe('the default configuration', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  test.each(BINDINGS)('offers only the seed\'s two operations over %s: the others are unknown methods', async (binding) => {
    const call = caller(app);
    for (const operation of ['AuthenticateUser', 'Login', 'DeleteUserSession', 'ValidateUser']) {
      const offered = await call(binding, operation, { securityPassword: 's3cret', token: 'x' });
      const unknown = await call(binding, 'NoSuchMethod', { securityPassword: 's3cret', token: 'x' });
      expect(offered.status).not.toBe(200);
      expect(offered.body.replaceAll(operation, 'X')).toBe(unknown.body.replaceAll('NoSuchMethod', 'X'));
    }
  });

  test('the help page lists the two and treats ?op=AuthenticateUser as an unknown operation', async () => {
    const page = await (await fetch(`${app.baseUrl}/Authentication.asmx`)).text();
    const op = await (await fetch(`${app.baseUrl}/Authentication.asmx?op=AuthenticateUser`)).text();
    expect(page).toContain('?op=AuthenticateToken');
    expect(page).not.toContain('AuthenticateUser');
    expect(op).toBe(page);
  });
});
