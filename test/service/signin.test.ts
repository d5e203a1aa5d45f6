import { randomBytes } from 'node:crypto';
import { createServices, type Services } from '../../src/service/index.js';
import { hashPassword } from '../../src/service/passwords.js';
import type { SignInRequest } from '../../src/service/signin.js';
import type { Store } from '../../src/store/store.js';
import { callContext } from '../helpers/call-context.js';
import { legacySha1 } from '../helpers/legacy-hashes.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

const MINUTE = 60 * 1000;
const START = Date.UTC(2026, 0, 1);
const SESSION = { absoluteTimeoutSeconds: 12 * 3600, idleTimeoutSeconds: 30 * 60, slidingIdle: true };
const THROTTLE = { accountFailures: 3, addressFailures: 5, windowSeconds: 600, lockoutSeconds: 900 };
const CALLER_PASSWORD = 'caller-password';
const PASSWORD = 'correct horse battery staple';

let now = START;
let store: Store;
let cleanup: () => Promise<void>;
let services: Services;

beforeEach(async () => {
  now = START;
  ({ store, cleanup } = await tempSqliteStore());
  services = createServices({
    store,
    secretKey: randomBytes(32),
    session: SESSION,
    signin: { defaultReturnPath: '/Login', throttle: THROTTLE },
    clock: () => now,
  });
  await services.callers.add('portal', CALLER_PASSWORD);
  await services.members.add({ id: 'm1', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
  await store.setMemberPassword('m1', await hashPassword(PASSWORD));
});
afterEach(() => cleanup());

function attempt(overrides: Partial<SignInRequest> = {}) {
  return services.signin.signIn({ login: 'ada', password: PASSWORD, clientAddress: '192.0.2.1', cookieDomain: '.example.org', ...overrides });
}

async function signedInMember(cookie: string, cookieDomain: string) {
  const outcome = await services.authentication.authenticateCookie(
    { securityPassword: CALLER_PASSWORD, loginCookie: cookie, cookieDomain },
    callContext('198.51.100.1'),
  );
  return outcome.kind === 'member' ? outcome.member.id : null;
}

describe('a successful sign-in', () => {
  it('creates a session for the cookie domain: AuthenticateCookie knows its cookie for that domain only', async () => {
    const result = await attempt();
    if (!result.ok) throw new Error(`sign-in failed: ${result.reason}`);
    expect(result.member).toMatchObject({ id: 'm1', username: 'ada' });
    expect(result.issued.session).toMatchObject({ memberId: 'm1', cookieDomain: 'example.org', createdAt: START });
    await expect(signedInMember(result.issued.cookie, '.example.org')).resolves.toBe('m1');
    await expect(signedInMember(result.issued.cookie, 'example.org')).resolves.toBe('m1');
    await expect(signedInMember(result.issued.cookie, '.other.org')).resolves.toBeNull();
    await expect(services.sessions.checkToken(result.issued.token)).resolves.toMatchObject({ ok: true });
  });

  it('accepts the email address, and either login in any letter case', async () => {
    await expect(attempt({ login: 'ADA@Example.org' })).resolves.toMatchObject({ ok: true, member: { id: 'm1' } });
    await expect(attempt({ login: '  Ada ' })).resolves.toMatchObject({ ok: true, member: { id: 'm1' } });
  });

  it('moves a legacy hash to argon2id, and the password keeps working', async () => {
    await store.setMemberPassword('m1', legacySha1(PASSWORD));
    await expect(attempt()).resolves.toMatchObject({ ok: true });
    const stored = await store.getMemberCredentials('m1');
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    await expect(attempt()).resolves.toMatchObject({ ok: true });
  });

  it('keeps an argon2id hash as it is', async () => {
    const before = (await store.getMemberCredentials('m1'))?.passwordHash;
    await attempt();
    expect((await store.getMemberCredentials('m1'))?.passwordHash).toBe(before);
  });
});

describe('failures look alike', () => {
  beforeEach(async () => {
    await services.members.add({ id: 'm2', username: 'bob', email: 'shared@example.org' });
    await services.members.add({ id: 'm3', username: 'carol', email: 'shared@example.org' });
    await store.setMemberPassword('m2', await hashPassword(PASSWORD));
    await store.setMemberPassword('m3', await hashPassword(PASSWORD));
    await services.members.add({ id: 'm4', username: 'dave' });
    await services.members.add({ id: 'm5', username: 'erin' });
    await store.setMemberPassword('m5', await hashPassword(PASSWORD));
    await services.members.setEnabled('m5', false);
  });

  it.each([
    ['a wrong password', { password: 'wrong password' }],
    ['an unknown user', { login: 'nobody' }],
    ['an email shared by two members', { login: 'shared@example.org' }],
    ['a member without a password', { login: 'dave' }],
    ['a disabled member', { login: 'erin' }],
    ['an empty login', { login: '   ' }],
  ])('%s is "invalid", and no session is created', async (_what, overrides) => {
    await expect(attempt(overrides)).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.sessions.list()).resolves.toEqual([]);
  });

  it('a username shared with another member\'s email signs in the username\'s owner', async () => {
    await services.members.add({ id: 'm6', username: 'frank', email: 'ada' });
    await expect(attempt({ login: 'ada' })).resolves.toMatchObject({ ok: true, member: { id: 'm1' } });
  });

  it('an unknown user and a legacy hash take about as long as a wrong password (a full argon2id run)', async () => {
    await store.setMemberPassword('m2', legacySha1(PASSWORD));
    const median = async (overrides: Partial<SignInRequest>) => {
      const times: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const started = process.hrtime.bigint();
        await attempt({ clientAddress: `198.51.100.${i}`, ...overrides });
        times.push(Number(process.hrtime.bigint() - started));
      }
      return times.sort((a, b) => a - b)[1] ?? 0;
    };
    const wrongPassword = await median({ login: 'carol', password: 'wrong' });
    // Without the dummy run these take well under a millisecond; with it, the same argon2id work.
    expect(await median({ login: 'nobody', password: 'wrong' })).toBeGreaterThan(wrongPassword * 0.4);
    expect(await median({ login: 'bob', password: 'wrong' })).toBeGreaterThan(wrongPassword * 0.4);
  });
});

describe('throttling', () => {
  it('locks an account after its failures, even for the right password, until the lockout ends', async () => {
    for (let i = 0; i < 2; i += 1) await expect(attempt({ password: 'wrong', clientAddress: `192.0.2.${i}` })).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(attempt({ password: 'wrong', clientAddress: '192.0.2.9' })).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
    now += MINUTE;
    await expect(attempt({ login: ' Ada', clientAddress: '203.0.113.1' })).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 840 });
    now = START + 15 * MINUTE;
    await expect(attempt()).resolves.toMatchObject({ ok: true });
  });

  it('locks an unknown login exactly like a real one', async () => {
    for (let i = 0; i < 2; i += 1) await attempt({ login: 'nobody', clientAddress: `192.0.2.${i}` });
    await expect(attempt({ login: 'nobody', clientAddress: '192.0.2.9' })).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
  });

  it('locks a client address after failures on many logins, for every login', async () => {
    for (const login of ['a', 'b', 'c', 'd']) await attempt({ login, password: 'wrong' });
    await expect(attempt({ login: 'e', password: 'wrong' })).resolves.toMatchObject({ ok: false, reason: 'throttled' });
    await expect(attempt()).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
    await expect(attempt({ clientAddress: '192.0.2.2' })).resolves.toMatchObject({ ok: true });
  });

  it('a success clears the account\'s failures', async () => {
    await attempt({ password: 'wrong' });
    await attempt({ password: 'wrong' });
    await expect(attempt()).resolves.toMatchObject({ ok: true });
    await attempt({ password: 'wrong', clientAddress: '192.0.2.2' });
    await expect(attempt({ password: 'wrong', clientAddress: '192.0.2.2' })).resolves.toEqual({ ok: false, reason: 'invalid' });
  });
});

describe('current and signOut', () => {
  it('current gives the member of a live session for its domain; signOut revokes it at once', async () => {
    const result = await attempt();
    if (!result.ok) throw new Error('sign-in failed');
    const { cookie, token } = result.issued;
    await expect(services.signin.current(cookie, 'example.org')).resolves.toMatchObject({ id: 'm1' });
    await expect(services.signin.current(cookie, 'other.org')).resolves.toBeNull();

    await expect(services.signin.signOut(cookie)).resolves.toBe(true);
    await expect(services.sessions.checkToken(token)).resolves.toEqual({ ok: false, reason: 'revoked' });
    await expect(services.sessions.checkCookie(cookie, '.example.org')).resolves.toEqual({ ok: false, reason: 'revoked' });
    await expect(services.signin.current(cookie, 'example.org')).resolves.toBeNull();
    await expect(signedInMember(cookie, '.example.org')).resolves.toBeNull();
    await expect(services.signin.signOut(cookie)).resolves.toBe(false);
    await expect(services.signin.signOut('not-a-cookie')).resolves.toBe(false);
  });
});

describe('signOutToken', () => {
  it('ends the live session of a token at once, by token and by cookie; an unknown, empty or ended token ends nothing', async () => {
    const result = await attempt();
    if (!result.ok) throw new Error('sign-in failed');
    const other = await attempt();
    if (!other.ok) throw new Error('sign-in failed');
    const { cookie, token } = result.issued;

    await expect(services.signin.signOutToken(token)).resolves.toBe(true);
    await expect(services.sessions.checkToken(token)).resolves.toEqual({ ok: false, reason: 'revoked' });
    await expect(signedInMember(cookie, '.example.org')).resolves.toBeNull();
    await expect(services.sessions.checkToken(other.issued.token)).resolves.toMatchObject({ ok: true });

    await expect(services.signin.signOutToken(token)).resolves.toBe(false);
    await expect(services.signin.signOutToken('')).resolves.toBe(false);
    await expect(services.signin.signOutToken('not-a-token')).resolves.toBe(false);
    await expect(services.sessions.list()).resolves.toEqual([expect.objectContaining({ id: other.issued.session.id })]);
  });
});

describe('formProof', () => {
  it('is deterministic per key and differs between keys and nonces', () => {
    const other = createServices({ store, secretKey: randomBytes(32), session: SESSION });
    expect(services.signin.formProof('n1')).toBe(services.signin.formProof('n1'));
    expect(services.signin.formProof('n1')).not.toBe(services.signin.formProof('n2'));
    expect(other.signin.formProof('n1')).not.toBe(services.signin.formProof('n1'));
  });
});
