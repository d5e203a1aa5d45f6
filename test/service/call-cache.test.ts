/**
 * The call path's short-lived cache (CACHE_TTL_MS): two instances share one store; a change made on one is
 * seen on the other within the cache time and on the instance that made it at once.
 */
import { randomBytes } from 'node:crypto';
import { CallerThrottledError, ServiceError } from '../../src/service/errors.js';
import type { Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { callContext } from '../helpers/call-context.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';

const START = Date.UTC(2026, 0, 1);
const TTL = 1000;
const ADDRESS = callContext('192.0.2.10');
const ADA = { id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' };

let now = START;
let store: Store;
let cleanup: () => Promise<void>;
/** `here` answers the calls; `there` is another instance (or the admin CLI) on the same store. */
let here: Services;
let there: Services;
let password: string;
let token: string;
let sessionId: string;

function instance(cacheTtlMs: number): Services {
  return servicesOver(store, {
    secretKey: KEY,
    session: { absoluteTimeoutSeconds: 12 * 3600, idleTimeoutSeconds: 30 * 60, slidingIdle: true },
    callerThrottle: { maxFailures: 2, windowSeconds: 600, lockoutSeconds: 600 },
    cacheTtlMs,
    clock: () => now,
  });
}
const KEY = randomBytes(32);

beforeEach(async () => {
  now = START;
  ({ store, cleanup } = await tempSqliteStore());
  here = instance(TTL);
  there = instance(TTL);
  ({ password } = await there.callers.add('shop'));
  await there.members.add(ADA);
  ({ token, session: { id: sessionId } } = await there.sessions.create(ADA.id, 'example.org'));
});
afterEach(() => cleanup());

const call = (services = here) => services.authentication.authenticateToken({ securityPassword: password, token }, ADDRESS);
const signedIn = async (services = here) => (await call(services)).kind === 'member';
const failure = (services = here) => call(services).then(
  () => 'answered',
  (error: unknown) => (error instanceof CallerThrottledError ? 'throttled' : error instanceof ServiceError ? error.code : 'other'),
);

describe('a change made on another instance', () => {
  it('a revoked session is still seen for less than the cache time, and ended from then on', async () => {
    expect(await signedIn()).toBe(true);
    await there.sessions.revoke(sessionId);
    now += TTL - 1;
    expect(await signedIn()).toBe(true);
    now += 1;
    expect(await signedIn()).toBe(false);
  });

  it('a disabled caller is refused within the cache time', async () => {
    expect(await signedIn()).toBe(true);
    await there.callers.setEnabled('shop', false);
    now += TTL;
    expect(await failure()).toBe('INVALID_SECURITY_PASSWORD');
  });

  it('a disabled member is signed out within the cache time', async () => {
    expect(await signedIn()).toBe(true);
    await there.members.setEnabled(ADA.id, false);
    now += TTL;
    expect(await signedIn()).toBe(false);
  });

  it('a lock set there holds here within the cache time', async () => {
    expect(await signedIn()).toBe(true);
    const wrong = () => there.authentication.authenticateToken({ securityPassword: 'wrong-password', token }, ADDRESS).catch(() => undefined);
    await wrong();
    await wrong();
    now += TTL;
    expect(await failure()).toBe('throttled');
  });

  it('a new session is found at once: misses are never kept', async () => {
    const other = await there.sessions.create(ADA.id, 'example.org');
    await here.authentication.authenticateToken({ securityPassword: password, token: other.token }, ADDRESS);
    expect((await here.authentication.authenticateToken({ securityPassword: password, token: other.token }, ADDRESS)).kind).toBe('member');
  });
});

describe('a change made on this instance is seen at once', () => {
  beforeEach(async () => {
    expect(await signedIn()).toBe(true);
  });

  it.each<[string, () => Promise<unknown>]>([
    ['a revoked session', () => here.sessions.revoke(sessionId)],
    ['all of a member’s sessions revoked', () => here.sessions.revokeAllOf(ADA.id)],
    ['a disabled member', () => here.members.setEnabled(ADA.id, false)],
    ['a removed member', () => here.members.remove(ADA.id)],
  ])('%s', async (_label, change) => {
    await change();
    expect(await signedIn()).toBe(false);
  });

  it('a session signed out by its login cookie', async () => {
    const issued = await there.sessions.create(ADA.id, 'example.org');
    const byCookie = () => here.authentication.authenticateCookie({ securityPassword: password, loginCookie: issued.cookie, cookieDomain: 'example.org' }, ADDRESS);
    expect((await byCookie()).kind).toBe('member');
    expect(await here.signin.signOut(issued.cookie)).toEqual({ sessionId: issued.session.id });
    expect((await byCookie()).kind).toBe('refused');
  });

  it.each<[string, () => Promise<unknown>]>([
    ['a disabled caller', () => here.callers.setEnabled('shop', false)],
    ['a removed caller', () => here.callers.remove('shop')],
    ['a retired password', () => here.callers.rotate('shop', { retireOthers: true })],
  ])('%s', async (_label, change) => {
    await change();
    expect(await failure()).toBe('INVALID_SECURITY_PASSWORD');
  });

  it('its own failures lock the address at once', async () => {
    const wrong = () => here.authentication.authenticateToken({ securityPassword: 'wrong-password', token }, ADDRESS).catch(() => undefined);
    await wrong();
    await wrong();
    expect(await failure()).toBe('throttled');
  });
});

describe('what is decided from a cached session', () => {
  it('is decided against the current time: an idle session ends on time', async () => {
    const noSliding = servicesOver(store, {
      secretKey: KEY,
      session: { absoluteTimeoutSeconds: 12 * 3600, idleTimeoutSeconds: 60, slidingIdle: false },
      cacheTtlMs: TTL,
      clock: () => now,
    });
    expect(await signedIn(noSliding)).toBe(true);
    now += 60_000 - 500;
    expect(await signedIn(noSliding)).toBe(true);
    now += 500;
    expect(await signedIn(noSliding)).toBe(false);
  });

  it('moves the idle deadline in the store once per touch interval, not on every cached call', async () => {
    const touches: number[] = [];
    const touch = store.touchSessions.bind(store);
    store.touchSessions = async (moves) => {
      touches.push(...moves.map((move) => move.lastSeenAt - START));
      return touch(moves);
    };
    // Idle 30 min: moves are spaced by min(60 s, idle / 10) = 60 s. Each second's queued moves are written.
    for (let step = 0; step <= 130; step += 1) {
      now = START + step * 1000;
      expect(await signedIn()).toBe(true);
      await here.sessions.flushLastSeen();
    }
    expect(touches).toEqual([60_000, 120_000]);
  });
});

describe('with CACHE_TTL_MS 0', () => {
  it('every call reads the store: a revocation elsewhere is seen at once', async () => {
    const uncached = instance(0);
    expect(await signedIn(uncached)).toBe(true);
    await there.sessions.revoke(sessionId);
    expect(await signedIn(uncached)).toBe(false);
  });
});
