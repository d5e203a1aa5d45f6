/**
 * node-soap's client, generated from each profile's live WSDL as .NET-style tooling does, calls every
 * operation the profile offers, over SOAP 1.1 and SOAP 1.2.
 */
import soap from 'soap';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const PASSWORD = 'correct horse battery staple';

type Method = (args: Record<string, string>) => Promise<[Record<string, string | undefined>]>;

async function clientFor(app: TestApp, soap12: boolean): Promise<Record<string, Method>> {
  const client = await soap.createClientAsync(`${app.baseUrl}${app.config.basePath}/Authentication.asmx?wsdl`, { forceSoap12Headers: soap12 });
  return client as unknown as Record<string, Method>;
}

describe.each([
  ['isgweb', ['AuthenticateCookie', 'AuthenticateToken', 'AuthenticateUser', 'DeleteUserSession', 'Login']],
  ['crm4m', ['AuthenticateToken', 'AuthenticateUser', 'DeleteUserSession', 'ValidateUser']],
] as const)('PROFILE=%s', (profile, operations) => {
  let app: TestApp;
  let securityPassword: string;

  beforeAll(async () => {
    app = await startTestApp({ env: { PROFILE: profile, SOAP_NAMESPACE: undefined, RESULT_FORMAT: undefined, COOKIE_DOMAIN: '.example.org' }, seed: false });
    ({ password: securityPassword } = await app.services.callers.add('partner'));
    const member = await app.services.members.add({ id: profile === 'isgweb' ? '10042' : undefined, username: 'ada', email: 'ada@example.org' });
    await app.services.members.setPassword(member.id, PASSWORD);
  });
  afterAll(() => app.close());

  test.each([false, true])('a client generated from the WSDL (SOAP 1.2: %s) has every operation and calls each', async (soap12) => {
    const client = await clientFor(app, soap12);
    for (const operation of operations) expect(typeof client[`${operation}Async`]).toBe('function');

    const call = async (operation: string, args: Record<string, string>) => (await client[`${operation}Async`]?.({ securityPassword, ...args }))?.[0]?.[`${operation}Result`] ?? '';
    const signedIn = await call('AuthenticateUser', { username: 'ada', password: PASSWORD });
    const token = profile === 'isgweb' ? /TOKEN="([^"]+)"/.exec(signedIn)?.[1] : (JSON.parse(signedIn) as { pa_token?: string }).pa_token;
    expect(token).toBeTruthy();
    const results: Record<string, string> = {
      AuthenticateToken: await call('AuthenticateToken', { token: token ?? '' }),
      [profile === 'isgweb' ? 'Login' : 'ValidateUser']: await call(profile === 'isgweb' ? 'Login' : 'ValidateUser', { username: 'ada', password: PASSWORD }),
      DeleteUserSession: await call('DeleteUserSession', { token: token ?? '' }),
    };
    if (profile === 'isgweb') {
      results.AuthenticateCookie = await call('AuthenticateCookie', { loginCookie: 'unknown', cookieDomain: '.example.org' });
      expect(results.AuthenticateCookie).toMatch(/<Error Number="1002"/);
      for (const operation of ['AuthenticateToken', 'Login']) expect(results[operation]).toMatch(/<User ID="10042"/);
      expect(results.DeleteUserSession).not.toMatch(/<Errors>/);
    } else {
      for (const operation of ['AuthenticateToken', 'ValidateUser']) expect(JSON.parse(results[operation] ?? '')).toMatchObject({ status: 'Success', emailaddress1: 'ada@example.org' });
      expect(JSON.parse(results.DeleteUserSession ?? '')).toEqual({ status: 'Success' });
    }
    expect(Object.keys(results).sort()).toEqual(operations.filter((op) => op !== 'AuthenticateUser').sort());
  });
});
