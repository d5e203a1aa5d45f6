/**
 * Beside a live iMIS (PROFILE=isgweb with the site's <machineKey>), over the four bindings and on both stores:
 * AuthenticateCookie answers for the login cookie real .NET Framework wrote, as partners send it; a ticket of
 * a name no member has, of another key or past its expiry is not signed in; AuthenticateUser's USER_COOKIE is a
 * ticket the site accepts, which AuthenticateCookie answers as the session until DeleteUserSession ends it.
 * In every result format the ticket's answer is the member's, without what only a session has.
 */
import { machineKey } from '../../src/service/forms-ticket/machine-key.js';
import { readFormsTicket } from '../../src/service/forms-ticket/ticket.js';
import { BINDINGS, callAsmx, type Binding } from '../helpers/asmx-request.js';
import { iBridge } from '../helpers/ibridge.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { DOTNET_COOKIE, OTHER_SITE_COOKIE, SITE_ENV, SITE_KEY, siteCookie } from '../helpers/site-tickets.js';
import { startTestApp } from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery staple';
const MINUTE = 60_000;
/** The member the .NET cookie names. */
const MEMBER = { id: '10042', username: DOTNET_COOKIE.name, email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' };
const SIGNING_OUT = { id: '10049', username: 'lin@example.org' };
/** The not-signed-in error of AuthenticateCookie. */
const NOT_SIGNED_IN = '1002';

/** An app beside the site: its keys, the shared domain, and a clock ten minutes into the .NET ticket's hour. */
async function appBesideTheSite(store: 'sqlite' | 'postgres', env: Record<string, string | undefined> = {}) {
  const clock = { now: DOTNET_COOKIE.issuedAt + 10 * MINUTE };
  const app = await startTestApp({
    env: { PROFILE: 'isgweb', SOAP_NAMESPACE: undefined, RESULT_FORMAT: undefined, COOKIE_DOMAIN: '.example.org', ...SITE_ENV, ...env },
    seed: false,
    store,
    clock: () => clock.now,
  });
  const { password: securityPassword } = await app.services.callers.add('wordpress');
  // The .NET cookie's member, one member a binding who signs in here and out again, and one who signs out (a
  // sign-out counts for every ticket of its member).
  const members = [MEMBER, SIGNING_OUT, ...BINDINGS.map((binding, i) => ({ id: String(10050 + i), username: `grace-${binding}` }))];
  for (const member of members) {
    await app.services.members.add(member);
    await app.services.members.setPassword(member.id, PASSWORD);
  }
  const call = async (binding: Binding, operation: string, params: Record<string, string>): Promise<string | null> => {
    const reply = await callAsmx(app, binding, operation, params);
    expect(reply.status).toBe(200);
    return reply.result;
  };
  const authenticateCookie = (binding: Binding, loginCookie: string) => call(binding, 'AuthenticateCookie', { securityPassword, loginCookie, cookieDomain: '.example.org' });
  return { app, clock, securityPassword, call, authenticateCookie };
}

for (const store of ['sqlite', 'postgres'] as const) {
  const describeStore = store === 'postgres' ? describeWithPostgres : describe;

  describeStore(`beside the site, on ${store}`, () => {
    let site: Awaited<ReturnType<typeof appBesideTheSite>>;
    beforeAll(async () => {
      site = await appBesideTheSite(store);
    });
    afterAll(() => site.app.close());

    describe.each(BINDINGS)('%s', (binding) => {
      test('AuthenticateCookie with the cookie .NET wrote answers its member, without TOKEN or USER_COOKIE', async () => {
        const { user, error } = await iBridge(await site.authenticateCookie(binding, DOTNET_COOKIE.value));
        expect(error).toBeUndefined();
        expect(user).toEqual({ ID: '10042', EMAIL: 'ada@example.org', FIRSTNAME: 'Ada', LASTNAME: 'Lovelace', FULL_NAME: 'Ada Lovelace' });
      });

      test('a ticket of a name no member has, of another key, or past its expiry is not signed in', async () => {
        for (const cookie of [siteCookie('nobody@example.org', site.clock.now), OTHER_SITE_COOKIE]) {
          expect((await iBridge(await site.authenticateCookie(binding, cookie))).error?.Number).toBe(NOT_SIGNED_IN);
        }
        const before = site.clock.now;
        site.clock.now = DOTNET_COOKIE.expiresAt + 1;
        try {
          expect((await iBridge(await site.authenticateCookie(binding, DOTNET_COOKIE.value))).error?.Number).toBe(NOT_SIGNED_IN);
        } finally {
          site.clock.now = before;
        }
      });

      test("AuthenticateUser's USER_COOKIE is a ticket the site accepts, answered as the session until DeleteUserSession", async () => {
        const username = `grace-${binding}`;
        const signedIn = await iBridge(await site.call(binding, 'AuthenticateUser', { securityPassword: site.securityPassword, username, password: PASSWORD, authenticationToken: '' }));
        const token = signedIn.user?.TOKEN ?? '';
        const [login, tokenPair] = (signedIn.user?.USER_COOKIE ?? '').split('|');
        expect(tokenPair).toBe(`Token=${token}`);
        expect(login).toMatch(/^\.ASPXAUTH=[0-9A-F]+$/);
        const ticket = (login ?? '').slice('.ASPXAUTH='.length);
        const read = readFormsTicket(machineKey(SITE_KEY), ticket, new Date(site.clock.now));
        expect(read).toMatchObject({ ok: true, ticket: { name: username, isPersistent: false, cookiePath: '/' } });

        expect((await iBridge(await site.authenticateCookie(binding, ticket))).user).toMatchObject({ ID: signedIn.user?.ID, TOKEN: token, USER_COOKIE: signedIn.user?.USER_COOKIE });
        await site.call(binding, 'DeleteUserSession', { securityPassword: site.securityPassword, token });
        expect((await iBridge(await site.authenticateCookie(binding, ticket))).error?.Number).toBe(NOT_SIGNED_IN);
      });
    });

    test('a ticket issued before the member signed out here no longer answers; the site knows nothing of it', async () => {
      const earlier = siteCookie(SIGNING_OUT.username, site.clock.now - MINUTE);
      expect((await iBridge(await site.authenticateCookie('httpget', earlier))).user?.ID).toBe(SIGNING_OUT.id);
      const { token } = await site.app.services.sessions.create(SIGNING_OUT.id, 'example.org');
      site.clock.now += 1;
      await site.call('httpget', 'DeleteUserSession', { securityPassword: site.securityPassword, token });
      expect((await iBridge(await site.authenticateCookie('httpget', earlier))).error?.Number).toBe(NOT_SIGNED_IN);
      expect(readFormsTicket(machineKey(SITE_KEY), earlier, new Date(site.clock.now)).ok).toBe(true);
    });
  });

  describeStore(`the ticket's answer in the other result formats, on ${store}`, () => {
    test.each([
      ['json', (result: string | null) => expect(JSON.parse(result ?? '')).toMatchObject({ status: 'Success', contactid: '10042', pa_token: null, emailaddress1: 'ada@example.org' })],
      ['plain', (result: string | null) => expect(result).toBe('10042')],
    ])('RESULT_FORMAT=%s', async (format, expectAnswer) => {
      const site = await appBesideTheSite(store, { RESULT_FORMAT: format });
      try {
        expectAnswer(await site.authenticateCookie('httppost', DOTNET_COOKIE.value));
      } finally {
        await site.app.close();
      }
    });
  });
}
