/**
 * A partner call's store reads (src/service/call-read.ts): what the caches do not hold, the call reads in one
 * statement (Store.readCall), recorded here call by call on a real store; a cache cleared between asking for a
 * part and using it has that part read again, alone, so that nothing read before a change is kept after it.
 */
import { randomBytes } from 'node:crypto';
import { CallRead } from '../../src/service/call-read.js';
import { CallerThrottledError, ServiceError } from '../../src/service/errors.js';
import type { Services } from '../../src/service/index.js';
import type { CallReadQuery, Store } from '../../src/store/store.js';
import { callContext } from '../helpers/call-context.js';
import { recorded } from '../helpers/recorded-store.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';

const START = Date.UTC(2026, 0, 1);
const ADDRESS = callContext('192.0.2.10');
const ADA = { id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' };
const KEY = randomBytes(32);

let now = START;
let store: Store;
let cleanup: () => Promise<void>;
/** The names of the store methods the services under test called, in order. */
let calls: string[];
/** What each readCall asked for. */
let asked: CallReadQuery[];
let password: string;
let token: string;
let cookie: string;
let sessionId: string;

/** Services on the recorded store, as a serving instance with this CACHE_TTL_MS. */
function recordedInstance(cacheTtlMs: number): Services {
  return servicesOver(recorded(store, calls), {
    secretKey: KEY,
    callerThrottle: { maxFailures: 2, windowSeconds: 600, lockoutSeconds: 600 },
    cacheTtlMs,
    clock: () => now,
  });
}

beforeEach(async () => {
  now = START;
  ({ store, cleanup } = await tempSqliteStore());
  const admin = servicesOver(store, { secretKey: KEY, clock: () => now });
  ({ password } = await admin.callers.add('shop'));
  await admin.members.add(ADA);
  ({ token, cookie, session: { id: sessionId } } = await admin.sessions.create(ADA.id, 'example.org'));
  calls = [];
  asked = [];
  const readCall = store.readCall.bind(store);
  store.readCall = (query) => {
    asked.push(query);
    return readCall(query);
  };
});
afterEach(() => cleanup());

const byToken = (services: Services, values: { token?: string; securityPassword?: string } = {}) =>
  services.authentication.authenticateToken({ securityPassword: values.securityPassword ?? password, token: values.token ?? token }, ADDRESS);
const byCookie = (services: Services) => services.authentication.authenticateCookie({ securityPassword: password, loginCookie: cookie, cookieDomain: 'example.org' }, ADDRESS);
/** What a call answered, or the error it threw, by name. */
const outcome = (call: Promise<{ kind: string }>) =>
  call.then(
    (answer) => answer.kind,
    (error: unknown) => (error instanceof CallerThrottledError ? 'throttled' : error instanceof ServiceError ? error.code : String(error)),
  );

describe('with CACHE_TTL_MS 0, every call is one store round trip', () => {
  it('AuthenticateToken and AuthenticateCookie, signed in: the throttle state, the caller and the session in one read', async () => {
    const services = recordedInstance(0);
    expect(await outcome(byToken(services))).toBe('member');
    expect(await outcome(byCookie(services))).toBe('member');
    expect(await outcome(byToken(services))).toBe('member');
    expect(calls).toEqual(['readCall', 'readCall', 'readCall']);
    expect(asked.map((query) => [query.throttleKey, query.callerPasswordHash !== null, query.session && Object.keys(query.session)])).toEqual([
      ['caller-address:192.0.2.10', true, ['tokenHash']],
      ['caller-address:192.0.2.10', true, ['cookieHash']],
      ['caller-address:192.0.2.10', true, ['tokenHash']],
    ]);
  });

  it('an unknown token and a missing one: one read, and none of a session that cannot be', async () => {
    const services = recordedInstance(0);
    expect(await outcome(byToken(services, { token: `${token}x` }))).toBe('refused');
    expect(await outcome(services.authentication.authenticateToken({ securityPassword: password, token: null }, ADDRESS))).toBe('refused');
    expect(calls).toEqual(['readCall', 'readCall']);
    expect(asked[1]?.session).toBeNull();
  });

  it('a wrong security password: the read, then the failure counted, as before', async () => {
    const services = recordedInstance(0);
    expect(await outcome(byToken(services, { securityPassword: 'wrong-password' }))).toBe('INVALID_SECURITY_PASSWORD');
    expect(calls).toEqual(['readCall', 'recordFailure']);
  });

  it('a locked address: the read, then the refusal, whatever the password', async () => {
    const services = recordedInstance(0);
    await outcome(byToken(services, { securityPassword: 'wrong-password' }));
    await outcome(byToken(services, { securityPassword: 'wrong-password' }));
    calls.length = 0;
    expect(await outcome(byToken(services))).toBe('throttled');
    expect(calls).toEqual(['readCall']);
  });

  it('DeleteUserSession: the read, then the revocation', async () => {
    const services = recordedInstance(0);
    expect(await outcome(services.authentication.deleteUserSession({ securityPassword: password, token }, ADDRESS))).toBe('session-ended');
    expect(calls).toEqual(['readCall', 'revokeSession']);
  });
});

describe('with the cache on', () => {
  it('a cached call reads nothing; a session not in the cache is read alone, the caller and throttle state coming from the cache', async () => {
    const services = recordedInstance(1000);
    expect(await outcome(byToken(services))).toBe('member');
    expect(await outcome(byToken(services))).toBe('member');
    expect(calls).toEqual(['readCall']);
    const other = await servicesOver(store, { secretKey: KEY, clock: () => now }).sessions.create(ADA.id, 'example.org');
    calls.length = 0;
    expect(await outcome(byToken(services, { token: other.token }))).toBe('member');
    expect(calls).toEqual(['readCall']);
    expect(asked.at(-1)).toEqual({ throttleKey: null, callerPasswordHash: null, session: { tokenHash: other.session.tokenHash } });
  });
});

describe('a change between asking for a part and using it', () => {
  it('a session revoked here after the read began is read again, alone, and answers as revoked', async () => {
    const services = recordedInstance(1000);
    const read = new CallRead(recorded(store, calls));
    services.callers.ask(password, now, read);
    services.sessions.askToken(token, now, read);
    expect((await services.callers.verify(password, read)).name).toBe('shop');
    await services.sessions.revoke(sessionId);
    const check = await services.sessions.checkToken(token, read);
    expect(check).toEqual({ ok: false, reason: 'revoked' });
    expect(calls).toEqual(['readCall', 'revokeSession', 'findSessionByTokenHash']);
  });

  it('a part never asked for is read alone', async () => {
    const services = recordedInstance(1000);
    const read = new CallRead(recorded(store, calls));
    services.callers.ask(password, now, read);
    expect((await services.sessions.checkToken(token, read)).ok).toBe(true);
    expect(calls).toEqual(['findSessionByTokenHash']);
  });
});
