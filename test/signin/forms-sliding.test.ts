/**
 * FORMS_SLIDING through the real pages, on both stores: a signed-in member's visit to the sign-in or account page
 * past half the ticket's life sets a renewed Forms cookie on COOKIE_DOMAIN, which AuthenticateCookie answers over
 * HTTP GET; a partner's AuthenticateCookie never renews (the session's row stays as it was).
 */
import { machineKey } from '../../src/service/forms-ticket/machine-key.js';
import { dateFromTicks } from '../../src/service/forms-ticket/ticks.js';
import { readFormsTicket } from '../../src/service/forms-ticket/ticket.js';
import type { Environment } from '../../src/config/config.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { SITE_ENV, SITE_KEY } from '../helpers/site-tickets.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { memberOfCookie as memberOfPageCookie } from '../helpers/asmx-calls.js';
import { setCookie } from '../helpers/cookies.js';
import { PageClient } from '../helpers/page-client.js';

const PASSWORD = 'correct horse battery staple';
const T0 = Date.UTC(2026, 0, 1, 9);
const MINUTE = 60_000;
const COOKIE = '.IMISAUTH';

for (const store of ['sqlite', 'postgres'] as const) {
  const describeStore = store === 'postgres' ? describeWithPostgres : describe;

  describeStore(`FORMS_SLIDING on the pages, on ${store}`, () => {
    let app: TestApp;
    let now: number;

    async function start(env: Environment = {}): Promise<PageClient> {
      now = T0;
      const site = { COOKIE_DOMAIN: '.example.org', FORMS_COOKIE_NAME: COOKIE, FORMS_TIMEOUT: '30', SESSION_IDLE_TIMEOUT: '2h' };
      app = await startTestApp({ env: { ...site, ...SITE_ENV, ...env }, store, clock: () => now });
      await app.services.members.setPassword(REFERENCE.memberId, PASSWORD);
      return new PageClient(app.baseUrl);
    }
    afterEach(() => app.close());

    const memberOfCookie = (cookie: string) => memberOfPageCookie(app.baseUrl, cookie, '.example.org');

    /** When the ticket in this cookie expires, read with the site's key. */
    function expiryOf(cookie: string): number {
      const read = readFormsTicket(machineKey(SITE_KEY), cookie, new Date(now));
      if (!read.ok) throw new Error(`not a valid ticket: ${read.reason}`);
      return dateFromTicks(read.ticket.expirationTicks).getTime();
    }

    /** What a renewal changes of the member's stored sessions (a visit also moves lastSeenAt, written in batches). */
    const storedSessions = async () =>
      (await app.store.listSessions({ memberId: REFERENCE.memberId })).map(({ id, cookieHash, cookieSealed, expiresAt }) => ({ id, cookieHash, cookieSealed, expiresAt }));

    it('the sign-in page renews the cookie past half its life, on COOKIE_DOMAIN; AuthenticateCookie answers the renewed one', async () => {
      const visitor = await start();
      await visitor.signIn('ada', PASSWORD);
      const signedIn = visitor.cookies.get(COOKIE) ?? '';
      expect(expiryOf(signedIn)).toBe(T0 + 30 * MINUTE);

      now = T0 + 10 * MINUTE;
      const early = await visitor.get('/Login');
      expect(early.text).toContain('Ada');
      expect(setCookie(early, COOKIE)).toBeUndefined();

      now = T0 + 20 * MINUTE;
      const late = await visitor.get('/Login');
      expect(late.status).toBe(200);
      const line = setCookie(late, COOKIE) ?? '';
      expect(line.split('; ').slice(1).sort()).toEqual(['Domain=.example.org', 'HttpOnly', 'Path=/', 'SameSite=Lax', 'Secure']);
      const renewed = visitor.cookies.get(COOKIE) ?? '';
      expect(renewed).not.toBe(signedIn);
      expect(expiryOf(renewed)).toBe(T0 + 50 * MINUTE);
      expect(await memberOfCookie(renewed)).toBe(REFERENCE.memberId);

      // Past the first ticket's expiry, only the renewed cookie answers; the member is still signed in on the pages.
      now = T0 + 31 * MINUTE;
      expect(await memberOfCookie(signedIn)).toBe('');
      expect(await memberOfCookie(renewed)).toBe(REFERENCE.memberId);
      expect((await visitor.get('/Account')).status).toBe(200);
    });

    it('the account page renews too, and a "keep me signed in" cookie stays persistent for as long as the session can live', async () => {
      const visitor = await start();
      await visitor.signIn('ada', PASSWORD, { remember: 'yes' });
      now = T0 + 20 * MINUTE;
      const account = await visitor.get('/Account');
      expect(account.status).toBe(200);
      const line = setCookie(account, COOKIE) ?? '';
      expect(line).toContain(`Max-Age=${12 * 3600 - 20 * 60}`);
      expect(expiryOf(visitor.cookies.get(COOKIE) ?? '')).toBe(T0 + 50 * MINUTE);
    });

    it('a partner\'s AuthenticateCookie never renews: the session\'s row is unchanged', async () => {
      const visitor = await start();
      await visitor.signIn('ada', PASSWORD);
      const cookie = visitor.cookies.get(COOKIE) ?? '';
      const before = await storedSessions();
      now = T0 + 25 * MINUTE;
      expect(await memberOfCookie(cookie)).toBe(REFERENCE.memberId);
      expect(await storedSessions()).toEqual(before);
      now = T0 + 30 * MINUTE + 1;
      expect(await memberOfCookie(cookie)).toBe('');
    });

    it('renews nothing with FORMS_SLIDING=false', async () => {
      const visitor = await start({ FORMS_SLIDING: 'false' });
      await visitor.signIn('ada', PASSWORD);
      const before = await storedSessions();
      now = T0 + 25 * MINUTE;
      const page = await visitor.get('/Login');
      expect(page.text).toContain('Ada');
      expect(setCookie(page, COOKIE)).toBeUndefined();
      expect(await storedSessions()).toEqual(before);
    });
  });
}
