/**
 * The membership site's Forms cookie in the service, on both stores: sessions opened with the site's keys carry
 * its ticket as their login cookie; AuthenticateCookie answers for a ticket the site issued (its name a member's
 * username), within its expiry, for the service's domain, until a sign-out here; the service's own cookies never
 * take the ticket path. On the wire: test/bindings/forms-cookie.test.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Outcome } from '../../src/service/authentication.js';
import type { Services } from '../../src/service/index.js';
import type { NotSignedInReason } from '../../src/service/sessions.js';
import type { Store } from '../../src/store/store.js';
import { callContext } from '../helpers/call-context.js';
import { refusalsOf } from '../helpers/outcomes.js';
import { describeWithPostgres, tempPostgresStore } from '../helpers/postgres.js';
import { recorded } from '../helpers/recorded-store.js';
import { DOTNET_COOKIE, OTHER_SITE_COOKIE, SESSIONS_OUTLIVING_TICKETS, SITE_FORMS, SITE_KEY, siteCookie, ticketIn } from '../helpers/site-tickets.js';
import { tempSqliteStore, type OpenStore } from '../helpers/temp-store.js';
import { servicesOver, type TestServiceOptions } from '../helpers/test-services.js';

const MINUTE = 60_000;
const KEY = randomBytes(32);
const DOMAIN = 'example.org';
const CONTEXT = callContext('192.0.2.10', DOMAIN);
/** The member the .NET cookie names, whose username differs from the ticket's name in letter case only. */
const MEMBER = { id: '10042', username: DOTNET_COOKIE.name.toUpperCase(), email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' };

function formsTicketSuite(openStore: OpenStore): void {
  let now: number;
  let store: Store;
  let cleanup: () => Promise<void>;
  let services: Services;
  let securityPassword: string;
  /** The store methods called since the last reset, by name. */
  const storeCalls: string[] = [];

  const servicesWith = (options: TestServiceOptions = {}) =>
    servicesOver(recorded(store, storeCalls), { secretKey: KEY, session: SESSIONS_OUTLIVING_TICKETS, clock: () => now, formsCookie: SITE_FORMS, ...options });

  beforeEach(async () => {
    // Ten minutes into the .NET ticket's hour.
    now = DOTNET_COOKIE.issuedAt + 10 * MINUTE;
    ({ store, cleanup } = await openStore());
    services = servicesWith();
    ({ password: securityPassword } = await services.callers.add('portal'));
    await services.members.add(MEMBER);
    storeCalls.length = 0;
  });
  afterEach(() => cleanup());

  const authenticateCookie = (loginCookie: string, cookieDomain = DOMAIN, over = services) =>
    over.authentication.authenticateCookie({ securityPassword, loginCookie, cookieDomain }, CONTEXT);
  const notSignedIn = (reason: NotSignedInReason) => refusalsOf('portal').notSignedIn('AuthenticateCookie', reason);
  const memberOf = (outcome: Outcome) => (outcome.kind === 'member' ? { id: outcome.member.id, session: outcome.session } : outcome);

  describe('a ticket the site issued', () => {
    it('signs in the member whose username is its name, ignoring case, without a session: no token, no cookie', async () => {
      const outcome = await authenticateCookie(DOTNET_COOKIE.value);
      expect(outcome).toMatchObject({ operation: 'AuthenticateCookie', kind: 'member', member: { id: '10042', email: 'ada@example.org' }, session: null });
    });

    it('answers until its expiry, and not after', async () => {
      now = DOTNET_COOKIE.expiresAt;
      expect(memberOf(await authenticateCookie(DOTNET_COOKIE.value))).toEqual({ id: '10042', session: null });
      now = DOTNET_COOKIE.expiresAt + 1;
      expect(await authenticateCookie(DOTNET_COOKIE.value)).toEqual(notSignedIn('expired'));
    });

    it('is not signed in when another key signed it, or when it is not a ticket of the site at all', async () => {
      expect(await authenticateCookie(OTHER_SITE_COOKIE)).toEqual(notSignedIn('ticket-invalid'));
      const flipped = `${DOTNET_COOKIE.value.slice(0, -2)}${DOTNET_COOKIE.value.endsWith('00') ? '01' : '00'}`;
      expect(await authenticateCookie(flipped)).toEqual(notSignedIn('ticket-invalid'));
    });

    it('answers for the service\'s cookie domain only', async () => {
      expect(await authenticateCookie(DOTNET_COOKIE.value, 'other.example.net')).toEqual(notSignedIn('domain-mismatch'));
      expect(memberOf(await authenticateCookie(DOTNET_COOKIE.value, '.Example.org'))).toEqual({ id: '10042', session: null });
    });

    it('whose name no member has is not signed in; with FORMS_UNKNOWN_MEMBER=minimal it is a member of that name alone', async () => {
      const stranger = siteCookie('stranger@example.org', now);
      expect(await authenticateCookie(stranger)).toEqual(notSignedIn('unknown-member'));
      const minimal = servicesWith({ formsCookie: { ...SITE_FORMS, unknownMember: 'minimal' } });
      expect(await authenticateCookie(stranger, DOMAIN, minimal)).toEqual({
        operation: 'AuthenticateCookie',
        caller: 'portal',
        kind: 'member',
        member: { id: 'stranger@example.org', username: 'stranger@example.org', email: '', firstName: '', lastName: '', enabled: true, createdAt: now, attributes: {}, version: 0, updatedAt: now, externalId: null, displayName: null, formattedName: null },
        session: null,
      });
    });

    it('of a disabled member is not signed in', async () => {
      await services.members.setEnabled('10042', false);
      expect(await authenticateCookie(DOTNET_COOKIE.value)).toEqual(notSignedIn('member-disabled'));
    });

    it('stops answering once a session of its member here is ended; a ticket issued after that answers', async () => {
      const { token } = await services.sessions.create('10042', DOMAIN);
      now += MINUTE;
      expect((await services.authentication.deleteUserSession({ securityPassword, token }, CONTEXT)).kind).toBe('session-ended');
      expect(await authenticateCookie(DOTNET_COOKIE.value)).toEqual(notSignedIn('revoked'));
      now += MINUTE;
      expect(memberOf(await authenticateCookie(siteCookie(DOTNET_COOKIE.name, now)))).toEqual({ id: '10042', session: null });
    });

    it('issued longer ago than ended sessions are kept (SESSION_RETENTION) does not answer', async () => {
      const keptAnHour = servicesWith({ formsCookie: { ...SITE_FORMS, maxTicketAgeSeconds: 3600 } });
      const daylong = siteCookie(DOTNET_COOKIE.name, now, 24 * 60);
      now += 59 * MINUTE;
      expect(memberOf(await authenticateCookie(daylong, DOMAIN, keptAnHour))).toEqual({ id: '10042', session: null });
      now += 2 * MINUTE;
      expect(await authenticateCookie(daylong, DOMAIN, keptAnHour)).toEqual(notSignedIn('expired'));
    });

    it('signs out, on the sign-in page, every session of its member here, and then no longer answers', async () => {
      const first = await services.sessions.create('10042', DOMAIN);
      const second = await services.sessions.create('10042', DOMAIN);
      expect(await services.signin.signOut(DOTNET_COOKIE.value)).toEqual({ memberId: '10042' });
      expect((await services.sessions.checkToken(first.token)).ok).toBe(false);
      expect((await services.sessions.checkToken(second.token)).ok).toBe(false);
      expect(await authenticateCookie(DOTNET_COOKIE.value)).toEqual(notSignedIn('revoked'));
      expect(await services.signin.signOut(DOTNET_COOKIE.value)).toBeNull();
    });

    it('is an unknown cookie without the site\'s keys', async () => {
      expect(await authenticateCookie(DOTNET_COOKIE.value, DOMAIN, servicesWith({ formsCookie: undefined }))).toEqual(notSignedIn('unknown'));
    });
  });

  describe('sessions opened with the site\'s keys', () => {
    it('carry a ticket of the site as their login cookie: the username, now, FORMS_TIMEOUT, path /, not persistent', async () => {
      const { cookie } = await services.sessions.create('10042', DOMAIN);
      expect(ticketIn(cookie)).toEqual({
        version: 2,
        name: MEMBER.username,
        issueTicks: ticketIn(siteCookie('x', now)).issueTicks,
        expirationTicks: ticketIn(siteCookie('x', now, 30)).expirationTicks,
        isPersistent: false,
        userData: '',
        cookiePath: '/',
      });
    });

    it('answer AuthenticateCookie with that ticket as their session, token and cookie, until the ticket expires; the token lives on', async () => {
      const { cookie, token } = await services.sessions.create('10042', DOMAIN);
      expect(memberOf(await authenticateCookie(cookie))).toEqual({ id: '10042', session: { token, cookie } });
      now += 30 * MINUTE + 1;
      expect(await authenticateCookie(cookie)).toEqual(notSignedIn('expired'));
      expect((await services.authentication.authenticateToken({ securityPassword, token }, CONTEXT)).kind).toBe('member');
    });

    it('stop answering by the ticket at its expiry, also when the session was read less than CACHE_TTL_MS before', async () => {
      const cached = servicesWith({ cacheTtlMs: 1000 });
      const { cookie } = await cached.sessions.create('10042', DOMAIN);
      now += 30 * MINUTE - 500;
      expect((await authenticateCookie(cookie, DOMAIN, cached)).kind).toBe('member');
      now += 501;
      expect(await authenticateCookie(cookie, DOMAIN, cached)).toEqual(notSignedIn('expired'));
    });

    it('end their ticket with the session: DeleteUserSession, and the sign-in page\'s sign-out', async () => {
      const deleted = await services.sessions.create('10042', DOMAIN);
      await services.authentication.deleteUserSession({ securityPassword, token: deleted.token }, CONTEXT);
      expect(await authenticateCookie(deleted.cookie)).toEqual(notSignedIn('revoked'));
      const signedOut = await services.sessions.create('10042', DOMAIN);
      expect(await services.signin.signOut(signedOut.cookie)).toEqual({ sessionId: signedOut.session.id });
      expect(await authenticateCookie(signedOut.cookie)).toEqual(notSignedIn('revoked'));
    });

    it('whose ticket the site cannot read (its keys changed) are not signed in by that cookie', async () => {
      const { cookie } = await services.sessions.create('10042', DOMAIN);
      const otherKey = { ...SITE_FORMS, machineKey: { ...SITE_KEY, validationKey: randomBytes(64).toString('hex').toUpperCase() } };
      expect(await authenticateCookie(cookie, DOMAIN, servicesWith({ formsCookie: otherKey }))).toEqual(notSignedIn('ticket-invalid'));
    });
  });

  describe('the service\'s own login cookies', () => {
    it('never take the ticket path: an unknown one costs one session lookup, as before', async () => {
      const own = await servicesWith({ formsCookie: undefined }).sessions.create('10042', DOMAIN);
      expect(memberOf(await authenticateCookie(own.cookie))).toEqual({ id: '10042', session: { token: own.token, cookie: own.cookie } });
      storeCalls.length = 0;
      expect(await authenticateCookie(`${own.cookie}x`)).toEqual(notSignedIn('unknown'));
      expect(await authenticateCookie('A'.repeat(126))).toEqual(notSignedIn('unknown'));
      expect(await authenticateCookie(DOTNET_COOKIE.value.toLowerCase())).toEqual(notSignedIn('unknown'));
      // The session lookup is the call's one read (Store.readCall), with the caller and the address's throttle state.
      const lookups = storeCalls.filter((call) => ['readCall', 'findSessionByCookieHash', 'findMembersByLogin', 'listSessions'].includes(call));
      expect(lookups).toEqual(['readCall', 'readCall', 'readCall']);
    });
  });
}


describe('Forms tickets on SQLite', () => formsTicketSuite(tempSqliteStore));
describeWithPostgres('Forms tickets on PostgreSQL', () => formsTicketSuite(tempPostgresStore));
