import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Services } from '../../src/service/index.js';
import { Secrets } from '../../src/service/secrets.js';
import { LAST_SEEN_BATCH, LAST_SEEN_FLUSH_MS } from '../../src/service/last-seen-writer.js';
import type { SessionPolicy } from '../../src/service/sessions.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { useFakeTimers } from '../helpers/fake-timers.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { servicesOver } from '../helpers/test-services.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const START = Date.UTC(2026, 0, 1);
/** 12 h absolute, 30 min idle: lastSeenAt writes are spaced by min(60 s, idle / 10) = 60 s. */
const POLICY = { absoluteTimeoutSeconds: 12 * 3600, idleTimeoutSeconds: 30 * 60, slidingIdle: true };

let now = START;
const clock = () => now;
let store: Store;
let cleanup: () => Promise<void>;
let services: Services;

function servicesWith(policy: Partial<SessionPolicy> = {}, secretKey: Buffer = randomBytes(32)): Services {
  return servicesOver(store, { secretKey, session: { ...POLICY, ...policy }, clock });
}

beforeEach(async () => {
  now = START;
  ({ store, cleanup } = await tempSqliteStore());
  services = servicesWith();
  await services.members.add({ id: 'm1', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
  await services.members.add({ id: 'm2', username: 'bob', email: 'bob@example.org', firstName: 'Bob' });
});
afterEach(() => {
  jest.useRealTimers();
  return cleanup();
});

/** The first session's lastSeenAt in the store, once the queued moves are written. */
async function storedLastSeen(): Promise<number | undefined> {
  await services.sessions.flushLastSeen();
  return (await store.listSessions())[0]?.lastSeenAt;
}

const codeOf = async (promise: Promise<unknown>) => (await serviceErrorOf(promise)).code;

describe('create', () => {
  it('returns a cookie and a token that both verify, with the member and the token', async () => {
    const { session, cookie, token } = await services.sessions.create('m1', 'example.org');
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie).not.toBe(token);
    expect(session).toMatchObject({
      memberId: 'm1',
      cookieDomain: 'example.org',
      createdAt: START,
      lastSeenAt: START,
      expiresAt: START + 12 * HOUR,
      revokedAt: null,
    });

    const byToken = await services.sessions.checkToken(token);
    expect(byToken).toMatchObject({ ok: true, token, found: { session: { id: session.id }, member: { id: 'm1', username: 'ada' } } });
    const byCookie = await services.sessions.checkCookie(cookie, 'example.org');
    expect(byCookie).toMatchObject({ ok: true, token, found: { session: { id: session.id }, member: { id: 'm1', email: 'ada@example.org' } } });
  });

  it('with tokenFormat guid, issues GUID tokens that verify, and opaque cookies still', async () => {
    services = servicesWith({ tokenFormat: 'guid' });
    const issued = [await services.sessions.create('m1', 'example.org'), await services.sessions.create('m1', 'example.org')];
    for (const { cookie, token } of issued) {
      expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await expect(services.sessions.checkToken(token)).resolves.toMatchObject({ ok: true, token, cookie });
      await expect(services.sessions.checkCookie(cookie, 'example.org')).resolves.toMatchObject({ ok: true, token, cookie });
    }
    expect(issued[0]?.token).not.toBe(issued[1]?.token);
  });

  it('with tokenFormat guid, keeps a supplied token as it is', async () => {
    services = servicesWith({ tokenFormat: 'guid' });
    const { token } = await services.sessions.create('m1', 'example.org', { token: 'legacy-token-1' });
    expect(token).toBe('legacy-token-1');
    await expect(services.sessions.checkToken('legacy-token-1')).resolves.toMatchObject({ ok: true });
  });

  it('returns the login cookie from checkToken and checkCookie, cached or not', async () => {
    services = servicesOver(store, { session: POLICY, clock, cacheTtlMs: 1000 });
    const { cookie, token } = await services.sessions.create('m1', 'example.org');
    for (let call = 0; call < 2; call += 1) {
      expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true, token, cookie });
      expect(await services.sessions.checkCookie(cookie, 'example.org')).toMatchObject({ ok: true, token, cookie });
    }
  });

  it('unseals the cookie once per fetch of a token', async () => {
    services = servicesOver(store, { session: POLICY, clock, cacheTtlMs: 1000 });
    const { token } = await services.sessions.create('m1', 'example.org');
    const unseal = jest.spyOn(Secrets.prototype, 'unseal');
    try {
      for (let call = 0; call < 3; call += 1) await services.sessions.checkToken(token);
      expect(unseal).toHaveBeenCalledTimes(1);
    } finally {
      unseal.mockRestore();
    }
  });

  it('returns a null cookie for a session stored without a sealed cookie, and still verifies it', async () => {
    const { session, cookie, token } = await services.sessions.create('m1', 'example.org');
    const spy = jest.spyOn(store, 'findSessionByTokenHash').mockImplementation(async () => ({
      session: { ...session, cookieSealed: null },
      member: (await store.getMember('m1'))!,
    }));
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true, token, cookie: null });
    spy.mockRestore();
    // By the cookie, the cookie is the one given.
    expect(await services.sessions.checkCookie(cookie, 'example.org')).toMatchObject({ ok: true, token, cookie });
  });

  it('stores the domain lower-cased and without a leading dot', async () => {
    const { session } = await services.sessions.create('m1', '.Example.ORG');
    expect(session.cookieDomain).toBe('example.org');
    expect((await services.sessions.list())[0]?.cookieDomain).toBe('example.org');
  });

  it('accepts supplied cookie and token values', async () => {
    const { cookie, token } = await services.sessions.create('m1', 'example.org', { cookie: 'legacy-cookie-1', token: 'legacy-token-1' });
    expect(cookie).toBe('legacy-cookie-1');
    expect(token).toBe('legacy-token-1');
    await expect(services.sessions.checkToken('legacy-token-1')).resolves.toMatchObject({ ok: true, token: 'legacy-token-1' });
    await expect(services.sessions.checkCookie('legacy-cookie-1', 'example.org')).resolves.toMatchObject({
      ok: true,
      token: 'legacy-token-1',
      found: { member: { id: 'm1' } },
    });
  });

  it('refuses an unknown member with MEMBER_NOT_FOUND', async () => {
    expect(await codeOf(services.sessions.create('ghost', 'example.org'))).toBe('MEMBER_NOT_FOUND');
    expect(await store.listSessions()).toEqual([]);
  });

  it.each(['', 'not a domain', 'exa_mple.org', '-example.org', 'example..org', '.'])('refuses the invalid domain %j with DOMAIN_INVALID', async (domain) => {
    expect(await codeOf(services.sessions.create('m1', domain))).toBe('DOMAIN_INVALID');
    expect(await store.listSessions()).toEqual([]);
  });
});

describe('absolute expiry', () => {
  it('accepts the token and cookie just before expiresAt', async () => {
    // Sliding keeps the session from going idle on the way there.
    const { cookie, token, session } = await services.sessions.create('m1', 'example.org');
    for (now = START; now <= session.expiresAt - 20 * MINUTE; now += 20 * MINUTE) {
      expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
    }
    now = session.expiresAt - 1;
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
    expect(await services.sessions.checkCookie(cookie, 'example.org')).toMatchObject({ ok: true });
  });

  it('refuses the token and cookie exactly at expiresAt with reason expired, even when in use', async () => {
    const { cookie, token, session } = await services.sessions.create('m1', 'example.org');
    for (now = START; now < session.expiresAt; now += 20 * MINUTE) {
      await services.sessions.checkToken(token);
    }
    now = session.expiresAt;
    expect(await services.sessions.checkToken(token)).toEqual({ ok: false, reason: 'expired' });
    expect(await services.sessions.checkCookie(cookie, 'example.org')).toEqual({ ok: false, reason: 'expired' });
  });
});

describe('idle timeout', () => {
  it('accepts a session unused for just under the idle timeout', async () => {
    const { token } = await services.sessions.create('m1', 'example.org');
    now = START + 30 * MINUTE - 1;
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
  });

  it('refuses a session unused for the idle timeout with reason idle', async () => {
    const { cookie, token } = await services.sessions.create('m1', 'example.org');
    now = START + 30 * MINUTE;
    expect(await services.sessions.checkToken(token)).toEqual({ ok: false, reason: 'idle' });
    expect(await services.sessions.checkCookie(cookie, 'example.org')).toEqual({ ok: false, reason: 'idle' });
  });

  it('with sliding, a successful check moves lastSeenAt so the session survives past the original idle deadline', async () => {
    const { token, session } = await services.sessions.create('m1', 'example.org');
    now = START + 20 * MINUTE;
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
    expect(await storedLastSeen()).toBe(START + 20 * MINUTE);
    now = START + 45 * MINUTE; // past the original deadline (START + 30 min), before the new one (START + 50 min)
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true, found: { session: { id: session.id } } });
    now = START + 45 * MINUTE + 30 * MINUTE;
    expect(await services.sessions.checkToken(token)).toEqual({ ok: false, reason: 'idle' });
  });

  it('with sliding, a successful cookie check also moves lastSeenAt', async () => {
    const { cookie } = await services.sessions.create('m1', 'example.org');
    now = START + 20 * MINUTE;
    expect(await services.sessions.checkCookie(cookie, 'example.org')).toMatchObject({ ok: true });
    expect(await storedLastSeen()).toBe(START + 20 * MINUTE);
  });

  it('without sliding, a successful check does not move lastSeenAt and the session goes idle at the original deadline', async () => {
    services = servicesWith({ slidingIdle: false });
    const { token } = await services.sessions.create('m1', 'example.org');
    now = START + 20 * MINUTE;
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
    expect(await storedLastSeen()).toBe(START);
    now = START + 30 * MINUTE;
    expect(await services.sessions.checkToken(token)).toEqual({ ok: false, reason: 'idle' });
  });

  it('a failed check (wrong domain) does not move lastSeenAt', async () => {
    const { cookie } = await services.sessions.create('m1', 'example.org');
    now = START + 20 * MINUTE;
    expect(await services.sessions.checkCookie(cookie, 'other.org')).toEqual({ ok: false, reason: 'domain-mismatch' });
    expect(await storedLastSeen()).toBe(START);
  });

  it('does not write lastSeenAt for a check within the touch interval (60 s), and does at the interval', async () => {
    const { token } = await services.sessions.create('m1', 'example.org');
    const touch = jest.spyOn(store, 'touchSessions');
    now = START + 59 * SECOND;
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
    expect(touch).not.toHaveBeenCalled();
    expect(await storedLastSeen()).toBe(START);

    now = START + 60 * SECOND;
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
    expect(await storedLastSeen()).toBe(START + 60 * SECOND);
    expect(touch).toHaveBeenCalledTimes(1);

    now = START + 90 * SECOND;
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
    expect(touch).toHaveBeenCalledTimes(1);
    expect(await storedLastSeen()).toBe(START + 60 * SECOND);
  });

  it('spaces writes by a tenth of a short idle timeout', async () => {
    services = servicesWith({ idleTimeoutSeconds: 100 }); // interval 10 s
    const { token } = await services.sessions.create('m1', 'example.org');
    now = START + 9 * SECOND;
    await services.sessions.checkToken(token);
    expect(await storedLastSeen()).toBe(START);
    now = START + 10 * SECOND;
    await services.sessions.checkToken(token);
    expect(await storedLastSeen()).toBe(START + 10 * SECOND);
  });
});

describe('createMany', () => {
  it('creates every session with the values given, in one store call, and each verifies', async () => {
    const bulk = jest.spyOn(store, 'createSessions');
    await services.sessions.createMany([
      { memberId: 'm1', cookieDomain: '.Example.org', cookie: 'cookie-of-one', token: 'token-of-one' },
      { memberId: 'm2', cookieDomain: 'example.org', cookie: 'cookie-of-two', token: 'token-of-two' },
    ]);
    expect(bulk).toHaveBeenCalledTimes(1);
    expect(await services.sessions.checkToken('token-of-one')).toMatchObject({ ok: true, cookie: 'cookie-of-one', found: { member: { id: 'm1' } } });
    expect(await services.sessions.checkCookie('cookie-of-two', 'example.org')).toMatchObject({ ok: true, token: 'token-of-two', found: { member: { id: 'm2' } } });
    expect((await store.listSessions()).map((s) => s.cookieDomain)).toEqual(['example.org', 'example.org']);
  });

  it('creates none when one of them cannot be created', async () => {
    // The store's own error (a foreign key), which may come from outside the test's realm: only its arrival counts.
    const outcome = await services.sessions
      .createMany([
        { memberId: 'm1', cookieDomain: 'example.org', cookie: 'c1', token: 't1' },
        { memberId: 'nobody', cookieDomain: 'example.org', cookie: 'c2', token: 't2' },
      ])
      .then(
        () => 'created',
        () => 'refused',
      );
    expect(outcome).toBe('refused');
    expect(await codeOf(services.sessions.createMany([{ memberId: 'm1', cookieDomain: 'not a domain', cookie: 'c3', token: 't3' }]))).toBe('DOMAIN_INVALID');
    expect(await store.listSessions()).toEqual([]);
  });
});

describe('moves of the idle deadline', () => {
  it('are written in one batch for many sessions, after the calls that made them', async () => {
    const issued = await Promise.all([1, 2, 3].map(() => services.sessions.create('m1', 'example.org')));
    const touch = jest.spyOn(store, 'touchSessions');
    now = START + 60 * SECOND;
    for (const { token } of issued) expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
    expect(touch).not.toHaveBeenCalled();
    await services.sessions.flushLastSeen();
    expect(touch).toHaveBeenCalledTimes(1);
    expect(touch.mock.calls[0]?.[0]).toHaveLength(3);
    expect((await store.listSessions()).map((s) => s.lastSeenAt)).toEqual([START + 60 * SECOND, START + 60 * SECOND, START + 60 * SECOND]);
  });

  it('count on this instance before they are written: a session moved but not yet written is not idle', async () => {
    const { token } = await services.sessions.create('m1', 'example.org');
    now = START + 20 * MINUTE;
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
    now = START + 45 * MINUTE;
    expect((await store.listSessions())[0]?.lastSeenAt).toBe(START);
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true });
  });

  it('are written within a second without a flush', async () => {
    const { token } = await services.sessions.create('m1', 'example.org');
    useFakeTimers();
    const touch = jest.spyOn(store, 'touchSessions');
    now = START + 60 * SECOND;
    await services.sessions.checkToken(token);
    await jest.advanceTimersByTimeAsync(LAST_SEEN_FLUSH_MS - 1);
    expect(touch).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(touch).toHaveBeenCalledTimes(1);
    await touch.mock.results[0]?.value;
    expect((await store.listSessions())[0]?.lastSeenAt).toBe(START + 60 * SECOND);
  });

  it('are written at once when a full batch is waiting', async () => {
    const count = LAST_SEEN_BATCH;
    await services.sessions.createMany(Array.from({ length: count }, (_, i) => ({ memberId: 'm1', cookieDomain: 'example.org', cookie: `c${i}`, token: `t${i}` })));
    const touch = jest.spyOn(store, 'touchSessions');
    now = START + 60 * SECOND;
    for (let i = 0; i < count; i++) await services.sessions.checkToken(`t${i}`);
    expect(touch).toHaveBeenCalledTimes(1);
    expect(touch.mock.calls[0]?.[0]).toHaveLength(count);
  });

  it('are queued again after a failed write', async () => {
    const { token } = await services.sessions.create('m1', 'example.org');
    const touch = jest.spyOn(store, 'touchSessions').mockRejectedValueOnce(new Error('database down'));
    now = START + 60 * SECOND;
    await services.sessions.checkToken(token);
    await services.sessions.flushLastSeen();
    expect((await store.listSessions())[0]?.lastSeenAt).toBe(START);
    now = START + 61 * SECOND;
    await services.sessions.checkToken(token);
    await services.sessions.flushLastSeen();
    expect(touch).toHaveBeenCalledTimes(2);
    expect((await store.listSessions())[0]?.lastSeenAt).toBe(START + 61 * SECOND);
  });
});

describe('revocation', () => {
  it('revoke ends one session with reason revoked and leaves the others', async () => {
    const a = await services.sessions.create('m1', 'example.org');
    const b = await services.sessions.create('m1', 'example.org');
    now = START + 5 * SECOND;
    await services.sessions.revoke(a.session.id);
    expect(await services.sessions.checkToken(a.token)).toEqual({ ok: false, reason: 'revoked' });
    expect(await services.sessions.checkCookie(a.cookie, 'example.org')).toEqual({ ok: false, reason: 'revoked' });
    expect(await services.sessions.checkToken(b.token)).toMatchObject({ ok: true });
    const rows = await services.sessions.list({ includeEnded: true });
    expect(rows.find((r) => r.id === a.session.id)?.revokedAt).toBe(START + 5 * SECOND);
    expect(rows.find((r) => r.id === b.session.id)?.revokedAt).toBeNull();
  });

  it('revokeAllOf revokes every session of that member only and returns the count', async () => {
    const a1 = await services.sessions.create('m1', 'example.org');
    const a2 = await services.sessions.create('m1', 'example.net');
    const b1 = await services.sessions.create('m2', 'example.org');
    expect(await services.sessions.revokeAllOf('m1')).toBe(2);
    expect(await services.sessions.checkToken(a1.token)).toEqual({ ok: false, reason: 'revoked' });
    expect(await services.sessions.checkToken(a2.token)).toEqual({ ok: false, reason: 'revoked' });
    expect(await services.sessions.checkToken(b1.token)).toMatchObject({ ok: true, found: { member: { id: 'm2' } } });
    expect(await services.sessions.revokeAllOf('m1')).toBe(0);
  });

  it('revokeAllOf an unknown member throws MEMBER_NOT_FOUND', async () => {
    expect(await codeOf(services.sessions.revokeAllOf('ghost'))).toBe('MEMBER_NOT_FOUND');
  });

  it('revoke of an unknown id throws SESSION_NOT_FOUND', async () => {
    expect(await codeOf(services.sessions.revoke('00000000-0000-4000-8000-000000000000'))).toBe('SESSION_NOT_FOUND');
  });

  it('revoke of an already revoked session throws SESSION_NOT_FOUND and keeps the first revocation time', async () => {
    const { session } = await services.sessions.create('m1', 'example.org');
    await services.sessions.revoke(session.id);
    now = START + HOUR;
    expect(await codeOf(services.sessions.revoke(session.id))).toBe('SESSION_NOT_FOUND');
    expect((await store.listSessions())[0]?.revokedAt).toBe(START);
  });
});

describe('member state', () => {
  it('a disabled member is refused with member-disabled and accepted again once re-enabled', async () => {
    const { cookie, token } = await services.sessions.create('m1', 'example.org');
    await services.members.setEnabled('m1', false);
    expect(await services.sessions.checkToken(token)).toEqual({ ok: false, reason: 'member-disabled' });
    expect(await services.sessions.checkCookie(cookie, 'example.org')).toEqual({ ok: false, reason: 'member-disabled' });
    await services.members.setEnabled('m1', true);
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true, token });
    expect(await services.sessions.checkCookie(cookie, 'example.org')).toMatchObject({ ok: true, token });
  });

  it('removing a member ends its sessions (unknown)', async () => {
    const { token } = await services.sessions.create('m1', 'example.org');
    await services.members.remove('m1');
    expect(await services.sessions.checkToken(token)).toEqual({ ok: false, reason: 'unknown' });
  });
});

describe('checkCookie domain matching', () => {
  it('compares case-insensitively and ignores a leading dot', async () => {
    const { cookie, token } = await services.sessions.create('m1', '.Example.ORG');
    for (const domain of ['example.org', 'EXAMPLE.org', '.example.org', '.Example.ORG']) {
      expect(await services.sessions.checkCookie(cookie, domain)).toMatchObject({ ok: true, token });
    }
  });

  it('refuses another domain with domain-mismatch', async () => {
    const { cookie } = await services.sessions.create('m1', 'example.org');
    expect(await services.sessions.checkCookie(cookie, 'example.net')).toEqual({ ok: false, reason: 'domain-mismatch' });
  });

  it('does not treat a subdomain (or the parent domain) as the same domain', async () => {
    const { cookie } = await services.sessions.create('m1', 'example.org');
    expect(await services.sessions.checkCookie(cookie, 'www.example.org')).toEqual({ ok: false, reason: 'domain-mismatch' });
    const sub = await services.sessions.create('m1', 'shop.example.org');
    expect(await services.sessions.checkCookie(sub.cookie, 'example.org')).toEqual({ ok: false, reason: 'domain-mismatch' });
  });

  it('refuses a missing (null or empty) domain with domain-mismatch', async () => {
    const { cookie } = await services.sessions.create('m1', 'example.org');
    expect(await services.sessions.checkCookie(cookie, null)).toEqual({ ok: false, reason: 'domain-mismatch' });
    expect(await services.sessions.checkCookie(cookie, '')).toEqual({ ok: false, reason: 'domain-mismatch' });
  });
});

describe('missing and unknown values', () => {
  it('a null or empty token is missing', async () => {
    expect(await services.sessions.checkToken(null)).toEqual({ ok: false, reason: 'missing' });
    expect(await services.sessions.checkToken('')).toEqual({ ok: false, reason: 'missing' });
  });

  it('a null or empty cookie is missing', async () => {
    expect(await services.sessions.checkCookie(null, 'example.org')).toEqual({ ok: false, reason: 'missing' });
    expect(await services.sessions.checkCookie('', 'example.org')).toEqual({ ok: false, reason: 'missing' });
  });

  it('an unknown token or cookie is unknown', async () => {
    await services.sessions.create('m1', 'example.org');
    expect(await services.sessions.checkToken('no-such-token')).toEqual({ ok: false, reason: 'unknown' });
    expect(await services.sessions.checkCookie('no-such-cookie', 'example.org')).toEqual({ ok: false, reason: 'unknown' });
  });

  it('a cookie is not accepted as a token, nor a token as a cookie', async () => {
    const { cookie, token } = await services.sessions.create('m1', 'example.org');
    expect(await services.sessions.checkToken(cookie)).toEqual({ ok: false, reason: 'unknown' });
    expect(await services.sessions.checkCookie(token, 'example.org')).toEqual({ ok: false, reason: 'unknown' });
  });
});

describe('secrecy', () => {
  it('the store holds neither the cookie nor the token in the clear', async () => {
    const issued = [
      await services.sessions.create('m1', 'example.org'),
      await services.sessions.create('m2', 'example.org', { cookie: 'supplied-cookie-value', token: 'supplied-token-value' }),
    ];
    const rows = await store.listSessions();
    expect(rows).toHaveLength(2);
    const dump = JSON.stringify(rows);
    for (const { cookie, token } of issued) {
      expect(dump).not.toContain(cookie);
      expect(dump).not.toContain(token);
    }
    for (const row of rows) {
      expect(row.tokenSealed).not.toBe('');
      expect(row.cookieHash).not.toBe(row.tokenHash);
    }
  });

  it('keeps the login cookie sealed, never in the clear', async () => {
    const issued = await services.sessions.create('m1', 'example.org', { cookie: 'supplied-cookie-value' });
    const [row] = await store.listSessions();
    expect(row?.cookieSealed).toEqual(expect.any(String));
    expect(row?.cookieSealed).not.toBe(issued.cookie);
    expect(row?.cookieSealed).not.toContain(issued.cookie);
    expect(row?.cookieSealed).not.toBe(row?.tokenSealed);
  });

  it('the database files on disk hold neither the cookie nor the token in the clear', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-sessions-'));
    try {
      const own = await openStore({ dataDir });
      const s = servicesOver(own, { session: POLICY, clock });
      await s.members.add({ id: 'm1', username: 'ada' });
      const { cookie, token } = await s.sessions.create('m1', 'example.org', { cookie: 'CLEARTEXT-COOKIE-4711', token: 'CLEARTEXT-TOKEN-4711' });
      expect(await s.sessions.checkToken(token)).toMatchObject({ ok: true });
      const files = await readdir(dataDir);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const bytes = await readFile(join(dataDir, file));
        expect(bytes.includes(cookie)).toBe(false);
        expect(bytes.includes(token)).toBe(false);
      }
      await own.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('services with another key over the same store cannot read the token', async () => {
    const { cookie, token } = await services.sessions.create('m1', 'example.org');
    const other = servicesWith({}, randomBytes(32));
    expect(await other.sessions.checkToken(token)).toEqual({ ok: false, reason: 'unknown' });
    expect(await other.sessions.checkCookie(cookie, 'example.org')).toEqual({ ok: false, reason: 'unknown' });
    // The original key still works.
    expect(await services.sessions.checkCookie(cookie, 'example.org')).toMatchObject({ ok: true, token });
  });

  it('a session whose sealed token was written under another key is refused, not returned', async () => {
    const key = randomBytes(32);
    const mine = servicesWith({}, key);
    const { session, cookie } = await mine.sessions.create('m1', 'example.org');
    // Same hash key, but the sealed token replaced by one sealed under another key.
    const foreign = await servicesWith({}, randomBytes(32)).sessions.create('m2', 'example.org');
    const spy = jest.spyOn(store, 'findSessionByCookieHash').mockImplementation(async () => ({
      session: { ...session, tokenSealed: foreign.session.tokenSealed },
      member: (await store.getMember('m1'))!,
    }));
    expect(await mine.sessions.checkCookie(cookie, 'example.org')).toEqual({ ok: false, reason: 'unknown' });
    spy.mockRestore();
    expect(await mine.sessions.checkCookie(cookie, 'example.org')).toMatchObject({ ok: true });
  });
});

describe('list', () => {
  it('hides revoked, expired and idle sessions unless includeEnded', async () => {
    const live = await services.sessions.create('m1', 'example.org');
    const revoked = await services.sessions.create('m1', 'example.org');
    await services.sessions.revoke(revoked.session.id);
    const shortLived = servicesWith({ absoluteTimeoutSeconds: 300, idleTimeoutSeconds: 300 });
    const expired = await shortLived.sessions.create('m2', 'example.org');
    now = START + 10 * 60 * 1000;

    expect((await services.sessions.list()).map((s) => s.id)).toEqual([live.session.id]);
    const all = (await services.sessions.list({ includeEnded: true })).map((s) => s.id);
    expect(all).toHaveLength(3);
    expect(all).toEqual(expect.arrayContaining([live.session.id, revoked.session.id, expired.session.id]));
  });

  it('filters by member', async () => {
    const a = await services.sessions.create('m1', 'example.org');
    const b = await services.sessions.create('m2', 'example.org');
    expect((await services.sessions.list({ memberId: 'm1' })).map((s) => s.id)).toEqual([a.session.id]);
    await services.sessions.revoke(b.session.id);
    expect(await services.sessions.list({ memberId: 'm2' })).toEqual([]);
    expect((await services.sessions.list({ memberId: 'm2', includeEnded: true })).map((s) => s.id)).toEqual([b.session.id]);
  });

  it('hides a session once it has gone idle, though it has not expired', async () => {
    const { session } = await services.sessions.create('m1', 'example.org');
    now = START + POLICY.idleTimeoutSeconds * 1000 - 1;
    expect((await services.sessions.list()).map((s) => s.id)).toEqual([session.id]);
    now = START + POLICY.idleTimeoutSeconds * 1000;
    expect(await services.sessions.list()).toEqual([]);
  });

  it('counts a session as ended exactly at expiresAt', async () => {
    services = servicesWith({ absoluteTimeoutSeconds: 3600, idleTimeoutSeconds: 3600 });
    const { session } = await services.sessions.create('m1', 'example.org');
    now = session.expiresAt - 1;
    expect(await services.sessions.list()).toHaveLength(1);
    now = session.expiresAt;
    expect(await services.sessions.list()).toEqual([]);
  });
});
