import type { Services } from '../../src/service/index.js';
import type { AuthenticateCookieRequest, AuthenticateTokenRequest } from '../../src/service/wsdl-types.js';
import type { NotSignedInReason } from '../../src/service/sessions.js';
import type { Store } from '../../src/store/store.js';
import { CALL } from '../helpers/call-context.js';
import { refusalsOf } from '../helpers/outcomes.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { tempServices } from '../helpers/test-services.js';

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

let now = START;
const clock = () => now;
let store: Store;
let cleanup: () => Promise<void>;
let services: Services;
let password: string;

const ADA = { id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' };
const ADA_ROW = { ...ADA, enabled: true, createdAt: START, attributes: {}, version: 1, updatedAt: START, externalId: null, displayName: null, formattedName: null };

beforeEach(async () => {
  now = START;
  ({ store, services, cleanup } = await tempServices({
    session: { absoluteTimeoutSeconds: 12 * 3600, idleTimeoutSeconds: 30 * 60, slidingIdle: true },
    clock,
  }));
  ({ password } = await services.callers.add('shop'));
  await services.members.add(ADA);
});
afterEach(() => cleanup());

const errorOf = serviceErrorOf;

/** Every call comes from one client address (the throttle has its own tests in caller-throttle.test.ts). */
const authenticateToken = (request: AuthenticateTokenRequest) => services.authentication.authenticateToken(request, CALL);
const authenticateCookie = (request: AuthenticateCookieRequest) => services.authentication.authenticateCookie(request, CALL);

const { notSignedIn } = refusalsOf('shop');

describe('authenticateToken', () => {
  it("returns the member, the session's token and login cookie, and the caller name", async () => {
    const { token, cookie } = await services.sessions.create('10042', 'example.org');
    const outcome = await authenticateToken({ securityPassword: password, token });
    expect(outcome).toEqual({
      operation: 'AuthenticateToken',
      caller: 'shop',
      kind: 'member',
      member: ADA_ROW,
      session: { token, cookie },
    });
  });

  it.each<[string, string | null, NotSignedInReason]>([
    ['a null token', null, 'missing'],
    ['an empty token', '', 'missing'],
    ['an unknown token', 'no-such-token', 'unknown'],
  ])('refuses %s as not signed in, with the reason (never throws)', async (_label, token, reason) => {
    await services.sessions.create('10042', 'example.org');
    const outcome = await authenticateToken({ securityPassword: password, token });
    expect(outcome).toEqual(notSignedIn('AuthenticateToken', reason));
  });

  it('refuses an ended session as not signed in, with reason revoked, expired or idle', async () => {
    const revoked = await services.sessions.create('10042', 'example.org');
    await services.sessions.revoke(revoked.session.id);
    expect(await authenticateToken({ securityPassword: password, token: revoked.token })).toEqual(notSignedIn('AuthenticateToken', 'revoked'));
    const idle = await services.sessions.create('10042', 'example.org');
    now = START + 30 * MINUTE;
    expect(await authenticateToken({ securityPassword: password, token: idle.token })).toEqual(notSignedIn('AuthenticateToken', 'idle'));
    const expired = await services.sessions.create('10042', 'example.org');
    for (const end = expired.session.expiresAt; now < end; now = Math.min(end, now + 20 * MINUTE)) {
      await services.sessions.checkToken(expired.token);
    }
    expect(await authenticateToken({ securityPassword: password, token: expired.token })).toEqual(notSignedIn('AuthenticateToken', 'expired'));
  });

  it('refuses the session of a disabled member as not signed in, with reason member-disabled', async () => {
    const { token } = await services.sessions.create('10042', 'example.org');
    await services.members.setEnabled('10042', false);
    expect(await authenticateToken({ securityPassword: password, token })).toEqual(notSignedIn('AuthenticateToken', 'member-disabled'));
  });

  it.each([['a wrong', 'wrong-password'], ['a null', null], ['an empty', '']])(
    'throws INVALID_SECURITY_PASSWORD for %s security password even when the token is good',
    async (_label, securityPassword) => {
      const { token } = await services.sessions.create('10042', 'example.org');
      const error = await errorOf(authenticateToken({ securityPassword, token }));
      expect(error.code).toBe('INVALID_SECURITY_PASSWORD');
      expect(error.message).toBe('Invalid security password');
    },
  );

  it('throws INVALID_SECURITY_PASSWORD for a disabled caller even when the token is good', async () => {
    const { token } = await services.sessions.create('10042', 'example.org');
    await services.callers.setEnabled('shop', false);
    expect((await errorOf(authenticateToken({ securityPassword: password, token }))).code).toBe(
      'INVALID_SECURITY_PASSWORD',
    );
  });

  it('does not move lastSeenAt when the security password is wrong', async () => {
    const { token } = await services.sessions.create('10042', 'example.org');
    now = START + 20 * MINUTE;
    await errorOf(authenticateToken({ securityPassword: 'wrong-password', token }));
    await services.sessions.flushLastSeen();
    expect((await store.listSessions())[0]?.lastSeenAt).toBe(START);
  });
});

describe('authenticateCookie', () => {
  it("returns the member, the session's token and login cookie, and the caller name", async () => {
    const { cookie, token } = await services.sessions.create('10042', 'example.org');
    const outcome = await authenticateCookie({ securityPassword: password, loginCookie: cookie, cookieDomain: '.Example.org' });
    expect(outcome).toEqual({
      operation: 'AuthenticateCookie',
      caller: 'shop',
      kind: 'member',
      member: ADA_ROW,
      session: { token, cookie },
    });
  });

  it("carries the session's token, which AuthenticateToken then accepts for the same member", async () => {
    const { cookie } = await services.sessions.create('10042', 'example.org');
    const byCookie = await authenticateCookie({ securityPassword: password, loginCookie: cookie, cookieDomain: 'example.org' });
    if (byCookie.kind !== 'member' || !byCookie.session) throw new Error(`no session: ${JSON.stringify(byCookie)}`);
    const { token } = byCookie.session;
    expect(token).not.toBe(cookie);
    const byToken = await authenticateToken({ securityPassword: password, token });
    expect(byToken).toMatchObject({ kind: 'member', session: { token, cookie }, member: { id: '10042' } });
  });

  it.each<[string, string | null, string | null, NotSignedInReason]>([
    ['a null cookie', null, 'example.org', 'missing'],
    ['an empty cookie', '', 'example.org', 'missing'],
    ['an unknown cookie', 'no-such-cookie', 'example.org', 'unknown'],
  ])('refuses %s as not signed in, with the reason (never throws)', async (_label, loginCookie, cookieDomain, reason) => {
    await services.sessions.create('10042', 'example.org');
    const outcome = await authenticateCookie({ securityPassword: password, loginCookie, cookieDomain });
    expect(outcome).toEqual(notSignedIn('AuthenticateCookie', reason));
  });

  it('refuses a cookie of another domain as not signed in, with reason domain-mismatch', async () => {
    const { cookie } = await services.sessions.create('10042', 'example.org');
    const outcome = await authenticateCookie({ securityPassword: password, loginCookie: cookie, cookieDomain: 'www.example.org' });
    expect(outcome).toEqual(notSignedIn('AuthenticateCookie', 'domain-mismatch'));
  });

  it('throws INVALID_SECURITY_PASSWORD for a wrong security password even when the cookie is good', async () => {
    const { cookie } = await services.sessions.create('10042', 'example.org');
    const error = await errorOf(
      authenticateCookie({ securityPassword: 'wrong-password', loginCookie: cookie, cookieDomain: 'example.org' }),
    );
    expect(error.code).toBe('INVALID_SECURITY_PASSWORD');
    expect(error.message).toBe('Invalid security password');
  });

  it('throws INVALID_SECURITY_PASSWORD for a null security password even when nobody is signed in', async () => {
    const error = await errorOf(authenticateCookie({ securityPassword: null, loginCookie: null, cookieDomain: null }));
    expect(error.code).toBe('INVALID_SECURITY_PASSWORD');
  });

  it('names the caller whose password was used when a caller has rotated', async () => {
    const { cookie } = await services.sessions.create('10042', 'example.org');
    const forum = await services.callers.add('forum');
    const rotated = await services.callers.rotate('forum');
    for (const securityPassword of [forum.password, rotated.password]) {
      expect(
        await authenticateCookie({ securityPassword, loginCookie: cookie, cookieDomain: 'example.org' }),
      ).toMatchObject({ caller: 'forum', kind: 'member' });
    }
  });
});
