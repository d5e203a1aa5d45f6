/**
 * The sign-in and sign-out pages beside the membership site (its <machineKey> set), on both stores: signing in
 * sets the site's Forms cookie (FORMS_COOKIE_NAME, a ticket the site reads) on COOKIE_DOMAIN, and signing out
 * clears it there and ends it here, also when the site issued or renewed it.
 */
import { machineKey } from '../../src/service/forms-ticket/machine-key.js';
import { readFormsTicket } from '../../src/service/forms-ticket/ticket.js';
import type { Environment } from '../../src/config/config.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { SITE_ENV, SITE_KEY, siteCookie } from '../helpers/site-tickets.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { memberOfCookie as memberOfPageCookie } from '../helpers/asmx-calls.js';
import { setCookie } from '../helpers/cookies.js';
import { PageClient } from '../helpers/page-client.js';

const PASSWORD = 'correct horse battery staple';
const NOW = Date.UTC(2026, 0, 1);
const COOKIE = '.IMISAUTH';

for (const store of ['sqlite', 'postgres'] as const) {
  const describeStore = store === 'postgres' ? describeWithPostgres : describe;

  describeStore(`the sign-in page beside the site, on ${store}`, () => {
    let app: TestApp;

    async function start(env: Environment = {}): Promise<PageClient> {
      app = await startTestApp({ env: { COOKIE_DOMAIN: '.example.org', FORMS_COOKIE_NAME: COOKIE, ...SITE_ENV, ...env }, store, clock: () => NOW });
      await app.services.members.setPassword(REFERENCE.memberId, PASSWORD);
      return new PageClient(app.baseUrl);
    }
    afterEach(() => app.close());

    const memberOfCookie = (cookie: string) => memberOfPageCookie(app.baseUrl, cookie, '.example.org');

    it('signing in sets the Forms cookie on COOKIE_DOMAIN, Path=/, HttpOnly, Secure: a ticket of the site for the username', async () => {
      const visitor = await start();
      const signedIn = await visitor.signIn('ada', PASSWORD);
      expect(signedIn.status).toBe(303);
      const line = setCookie(signedIn, COOKIE);
      expect(line?.split('; ').slice(1).sort()).toEqual(['Domain=.example.org', 'HttpOnly', 'Path=/', 'SameSite=Lax', 'Secure']);
      expect(setCookie(signedIn, '.ASPXAUTH')).toBeUndefined();
      const ticket = visitor.cookies.get(COOKIE) ?? '';
      expect(readFormsTicket(machineKey(SITE_KEY), ticket, new Date(NOW))).toMatchObject({ ok: true, ticket: { name: 'ada', cookiePath: '/', isPersistent: false } });
      expect(await memberOfCookie(ticket)).toBe(REFERENCE.memberId);
      expect((await visitor.get('/Login')).text).toContain('Ada');
    });

    it('drops Secure with COOKIE_SECURE=false', async () => {
      const visitor = await start({ COOKIE_SECURE: 'false' });
      const line = setCookie(await visitor.signIn('ada', PASSWORD), COOKIE);
      expect(line).toBeDefined();
      expect(line).not.toMatch(/Secure/);
    });

    it('signing out clears the Forms cookie on the same domain and path, and its ticket no longer answers', async () => {
      const visitor = await start();
      await visitor.signIn('ada', PASSWORD);
      const ticket = visitor.cookies.get(COOKIE) ?? '';
      const signedOut = await visitor.get('/Logout');
      expect(signedOut.status).toBe(303);
      const cleared = setCookie(signedOut, COOKIE) ?? '';
      expect(cleared).toMatch(new RegExp(`^${COOKIE.replace('.', '\\.')}=;`));
      expect(cleared).toContain('Domain=.example.org');
      expect(cleared).toContain('Path=/');
      expect(cleared).toContain('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
      expect(visitor.cookies.has(COOKIE)).toBe(false);
      expect(await memberOfCookie(ticket)).toBe('');
    });

    it('signing out with a cookie the site issued or renewed ends the member\'s sessions here, and that ticket', async () => {
      const visitor = await start();
      const renewed = siteCookie('ada', NOW);
      expect(await memberOfCookie(renewed)).toBe(REFERENCE.memberId);
      visitor.cookies.set(COOKIE, renewed);
      const signedOut = await visitor.get('/Logout');
      expect(setCookie(signedOut, COOKIE)).toMatch(/Expires=Thu, 01 Jan 1970/);
      expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'sign-out', outcome: 'signed-out' }));
      expect(await app.services.sessions.list({ memberId: REFERENCE.memberId })).toEqual([]);
      expect(await memberOfCookie(renewed)).toBe('');
      expect(await memberOfCookie(REFERENCE.cookie)).toBe('');
    });
  });
}
