/**
 * FORMS_SLIDING, on both stores: a visit of the member's browser to the service's own pages (SignInService.current)
 * renews the login cookie of a session here once its ticket has passed half its life, as
 * FormsAuthentication.RenewTicketIfOld does; the session takes the new cookie and keeps finding the old one until
 * that ticket expires. Partners' reads never renew. Through the pages: test/signin/forms-sliding.test.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { callContext } from '../helpers/call-context.js';
import { describeWithPostgres, tempPostgresStore } from '../helpers/postgres.js';
import { recorded } from '../helpers/recorded-store.js';
import { SESSIONS_OUTLIVING_TICKETS, SITE_FORMS, siteCookie, ticketIn } from '../helpers/site-tickets.js';
import { tempSqliteStore, type OpenStore } from '../helpers/temp-store.js';
import { servicesOver, type TestServiceOptions } from '../helpers/test-services.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1, 9);
const DOMAIN = 'example.org';
const CONTEXT = callContext('192.0.2.10', DOMAIN);
const MEMBER = { id: 'm1', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' };

function slidingSuite(openStore: OpenStore): void {
  let now: number;
  let store: Store;
  let cleanup: () => Promise<void>;
  let services: Services;
  let securityPassword: string;
  /** The store methods called since the last reset, by name. */
  const storeCalls: string[] = [];
  const renewals = () => storeCalls.filter((call) => call === 'renewSessionCookie').length;

  const servicesWith = (options: TestServiceOptions = {}) =>
    servicesOver(recorded(store, storeCalls), { secretKey: randomBytes(32), session: SESSIONS_OUTLIVING_TICKETS, clock: () => now, formsCookie: SITE_FORMS, ...options });

  beforeEach(async () => {
    now = T0;
    ({ store, cleanup } = await openStore());
    services = servicesWith();
    ({ password: securityPassword } = await services.callers.add('portal'));
    await services.members.add(MEMBER);
    storeCalls.length = 0;
  });
  afterEach(() => cleanup());

  const visit = (cookie: string, over = services) => over.signin.current(cookie, DOMAIN);
  const authenticateCookie = (loginCookie: string) => services.authentication.authenticateCookie({ securityPassword, loginCookie, cookieDomain: DOMAIN }, CONTEXT);
  const sessionOf = async (loginCookie: string) => {
    const outcome = await authenticateCookie(loginCookie);
    return outcome.kind === 'member' ? outcome.session : outcome.kind;
  };

  it('renews nothing while less than half the ticket\'s life has passed', async () => {
    const { cookie } = await services.sessions.create('m1', DOMAIN);
    now = T0 + 15 * MINUTE - 1;
    expect(await visit(cookie)).toMatchObject({ member: { id: 'm1' }, renewed: null });
    expect(renewals()).toBe(0);
  });

  it('once half has passed, issues the ticket again: now, FORMS_TIMEOUT, the same name, persistence, user data, version and path', async () => {
    const { cookie, token } = await services.sessions.create('m1', DOMAIN);
    now = T0 + 15 * MINUTE;
    const renewed = (await visit(cookie))?.renewed;
    expect(renewed).toEqual({ cookie: expect.any(String), keepForMs: null });
    const ticket = ticketIn(renewed?.cookie ?? '');
    expect(ticket).toEqual({ ...ticketIn(cookie), issueTicks: ticketIn(siteCookie('x', now)).issueTicks, expirationTicks: ticketIn(siteCookie('x', now, 30)).expirationTicks });
    expect(ticket.expirationTicks).toBeGreaterThan(ticketIn(cookie).expirationTicks);
    // The session answers for the new cookie, by it and by its token; it keeps its expiry.
    expect(await sessionOf(renewed?.cookie ?? '')).toEqual({ token, cookie: renewed?.cookie });
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true, cookie: renewed?.cookie });
    expect((await services.sessions.list({ memberId: 'm1' })).map((s) => s.expiresAt)).toEqual([T0 + 12 * 3600_000]);
  });

  it('keeps answering for the replaced cookie, as the session\'s, until that ticket expires; the new one lives on', async () => {
    const { cookie, token } = await services.sessions.create('m1', DOMAIN);
    now = T0 + 20 * MINUTE;
    const renewed = (await visit(cookie))?.renewed?.cookie ?? '';
    expect(await sessionOf(cookie)).toEqual({ token, cookie });
    // The replaced cookie finds the session but renews nothing: its browser has the new one already.
    expect(await visit(cookie)).toMatchObject({ member: { id: 'm1' }, renewed: null });
    now = T0 + 30 * MINUTE + 1;
    expect(await sessionOf(cookie)).toBe('refused');
    expect(await sessionOf(renewed)).toEqual({ token, cookie: renewed });
  });

  it('renews a renewed cookie in its turn; the cookie two renewals back no longer finds the session', async () => {
    const { cookie } = await services.sessions.create('m1', DOMAIN);
    now = T0 + 20 * MINUTE;
    const first = (await visit(cookie))?.renewed?.cookie ?? '';
    now = T0 + 40 * MINUTE;
    const second = (await visit(first))?.renewed?.cookie ?? '';
    expect(ticketIn(second).expirationTicks).toBe(ticketIn(siteCookie('x', now, 30)).expirationTicks);
    expect(await services.sessions.checkCookie(cookie, DOMAIN)).toEqual({ ok: false, reason: 'unknown' });
    expect((await services.sessions.checkCookie(first, DOMAIN)).ok).toBe(true);
    expect((await services.sessions.checkCookie(second, DOMAIN)).ok).toBe(true);
  });

  it('renews once when two visits carry the same old cookie at once', async () => {
    const { cookie } = await services.sessions.create('m1', DOMAIN);
    now = T0 + 20 * MINUTE;
    const visits = await Promise.all([visit(cookie), visit(cookie)]);
    expect(visits.filter((v) => v?.renewed).length).toBe(1);
    expect(visits.every((v) => v?.member.id === 'm1')).toBe(true);
  });

  it('renews nothing once the ticket expired: nobody is signed in', async () => {
    const { cookie } = await services.sessions.create('m1', DOMAIN);
    now = T0 + 30 * MINUTE + 1;
    expect(await visit(cookie)).toBeNull();
    expect(renewals()).toBe(0);
  });

  it('renews nothing with FORMS_SLIDING=false', async () => {
    const fixed = servicesWith({ formsCookie: { ...SITE_FORMS, sliding: false } });
    const { cookie } = await fixed.sessions.create('m1', DOMAIN);
    now = T0 + 29 * MINUTE;
    expect(await visit(cookie, fixed)).toMatchObject({ member: { id: 'm1' }, renewed: null });
    expect(renewals()).toBe(0);
  });

  it('renews nothing for a ticket the site issued: it is no session here, and the site renews its own', async () => {
    const site = siteCookie('ada', T0);
    now = T0 + 20 * MINUTE;
    expect((await authenticateCookie(site)).kind).toBe('member');
    expect(await visit(site)).toBeNull();
    expect(renewals()).toBe(0);
  });

  it('keeps a persistent ticket ("keep me signed in") persistent, its cookie kept as long as the session can live', async () => {
    const { cookie } = await services.sessions.create('m1', DOMAIN, { persistent: true });
    expect(ticketIn(cookie).isPersistent).toBe(true);
    now = T0 + 20 * MINUTE;
    const renewed = (await visit(cookie))?.renewed;
    expect(renewed?.keepForMs).toBe(12 * 3600_000 - 20 * MINUTE);
    expect(ticketIn(renewed?.cookie ?? '').isPersistent).toBe(true);
  });

  it('never renews on a partner\'s read: AuthenticateCookie and AuthenticateToken write nothing', async () => {
    const { cookie, token } = await services.sessions.create('m1', DOMAIN);
    now = T0 + 25 * MINUTE;
    expect(await sessionOf(cookie)).toEqual({ token, cookie });
    expect((await services.authentication.authenticateToken({ securityPassword, token }, CONTEXT)).kind).toBe('member');
    expect(renewals()).toBe(0);
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true, cookie });
  });

  it('a sign-out with the renewed cookie ends the replaced one too', async () => {
    const { cookie } = await services.sessions.create('m1', DOMAIN);
    now = T0 + 20 * MINUTE;
    const renewed = (await visit(cookie))?.renewed?.cookie ?? '';
    expect(await services.signin.signOut(renewed)).not.toBeNull();
    expect(await services.sessions.checkCookie(cookie, DOMAIN)).toEqual({ ok: false, reason: 'revoked' });
    expect(await visit(cookie)).toBeNull();
  });
}

describe('FORMS_SLIDING on SQLite', () => slidingSuite(tempSqliteStore));
describeWithPostgres('FORMS_SLIDING on PostgreSQL', () => slidingSuite(tempPostgresStore));
