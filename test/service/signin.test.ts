import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/service/index.js';
import { hashPassword } from '../../src/service/passwords.js';
import type { MfaPolicy, SignInRequest, SignInResult } from '../../src/service/signin.js';
import type { Store } from '../../src/store/store.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { callContext } from '../helpers/call-context.js';
import { legacySha1 } from '../helpers/legacy-hashes.js';
import { confirmedFactor, STEP, wrongCode } from '../helpers/second-factor.js';
import { cheapestCpuMs } from '../helpers/thread-cpu.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';

const MINUTE = 60 * 1000;
const START = Date.UTC(2026, 0, 1);
const THROTTLE = { accountFailures: 3, addressFailures: 5, windowSeconds: 600, lockoutSeconds: 900 };
const CALLER_PASSWORD = 'caller-password';
const PASSWORD = 'correct horse battery staple';

let now = START;
let store: Store;
let cleanup: () => Promise<void>;
let services: Services;
/** The server key of `services`; instances sharing it share the store's secrets and the sign-in challenges. */
let key: Buffer;

/** Services over the test's store and clock, as another instance of the same deployment would have them. */
function servicesWith(options: { mfa?: MfaPolicy; secretKey?: Buffer } = {}): Services {
  return servicesOver(store, {
    secretKey: options.secretKey ?? key,
    signin: { throttle: THROTTLE, ...(options.mfa ? { mfa: options.mfa } : {}) },
    clock: () => now,
  });
}

beforeEach(async () => {
  now = START;
  ({ store, cleanup } = await tempSqliteStore());
  key = randomBytes(32);
  services = servicesWith();
  await services.callers.add('portal', CALLER_PASSWORD);
  await services.members.add({ id: 'm1', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
  await store.setMemberPassword('m1', await hashPassword(PASSWORD), Date.now());
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
    await store.setMemberPassword('m1', legacySha1(PASSWORD), Date.now());
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
    await store.setMemberPassword('m2', await hashPassword(PASSWORD), Date.now());
    await store.setMemberPassword('m3', await hashPassword(PASSWORD), Date.now());
    await services.members.add({ id: 'm4', username: 'dave' });
    await services.members.add({ id: 'm5', username: 'erin' });
    await store.setMemberPassword('m5', await hashPassword(PASSWORD), Date.now());
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

  it('an unknown user and a legacy hash cost about as much CPU as a wrong password (a full argon2id run)', async () => {
    await store.setMemberPassword('m2', legacySha1(PASSWORD), Date.now());
    // Three attempts each, from addresses of their own: the account's third failure is still verified in full.
    const wrong = (login: string) => (round: number) => attempt({ login, password: 'wrong', clientAddress: `198.51.100.${round}` });
    const [wrongPassword, unknownUser, legacyHash] = await cheapestCpuMs(3, [wrong('carol'), wrong('nobody'), wrong('bob')]);
    // Without the dummy run these cost the store's work only, under a twentieth of it; with it, the same
    // argon2id work (test/service/passwords.test.ts has the figures).
    expect(unknownUser).toBeGreaterThan(wrongPassword * 0.4);
    expect(legacyHash).toBeGreaterThan(wrongPassword * 0.4);
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
  it('current gives the member and session of a live session for its domain; signOut revokes it at once', async () => {
    const result = await attempt();
    if (!result.ok) throw new Error('sign-in failed');
    const { cookie, token } = result.issued;
    await expect(services.signin.current(cookie, 'example.org')).resolves.toMatchObject({ member: { id: 'm1' }, session: { memberId: 'm1' }, renewed: null });
    await expect(services.signin.current(cookie, 'other.org')).resolves.toBeNull();

    await expect(services.signin.signOut(cookie)).resolves.toEqual({ sessionId: result.issued.session.id });
    await expect(services.sessions.checkToken(token)).resolves.toEqual({ ok: false, reason: 'revoked' });
    await expect(services.sessions.checkCookie(cookie, '.example.org')).resolves.toEqual({ ok: false, reason: 'revoked' });
    await expect(services.signin.current(cookie, 'example.org')).resolves.toBeNull();
    await expect(signedInMember(cookie, '.example.org')).resolves.toBeNull();
    await expect(services.signin.signOut(cookie)).resolves.toBeNull();
    await expect(services.signin.signOut('not-a-cookie')).resolves.toBeNull();
  });
});

describe('signOutToken', () => {
  it('ends the live session of a token at once, by token and by cookie; an unknown, empty or ended token ends nothing', async () => {
    const result = await attempt();
    if (!result.ok) throw new Error('sign-in failed');
    const other = await attempt();
    if (!other.ok) throw new Error('sign-in failed');
    const { cookie, token } = result.issued;

    await expect(services.signin.signOutToken(token)).resolves.toEqual({ sessionId: result.issued.session.id });
    await expect(services.sessions.checkToken(token)).resolves.toEqual({ ok: false, reason: 'revoked' });
    await expect(signedInMember(cookie, '.example.org')).resolves.toBeNull();
    await expect(services.sessions.checkToken(other.issued.token)).resolves.toMatchObject({ ok: true });

    await expect(services.signin.signOutToken(token)).resolves.toBeNull();
    await expect(services.signin.signOutToken('')).resolves.toBeNull();
    await expect(services.signin.signOutToken('not-a-token')).resolves.toBeNull();
    await expect(services.sessions.list()).resolves.toEqual([expect.objectContaining({ id: other.issued.session.id })]);
  });
});

describe('formProof', () => {
  it('is deterministic per key and differs between keys and nonces', () => {
    const other = servicesOver(store, { secretKey: randomBytes(32) });
    expect(services.signin.formProof('n1')).toBe(services.signin.formProof('n1'));
    expect(services.signin.formProof('n1')).not.toBe(services.signin.formProof('n2'));
    expect(other.signin.formProof('n1')).not.toBe(services.signin.formProof('n1'));
  });
});

const PLACE = { cookieDomain: '.example.org', clientAddress: '192.0.2.1', userAgent: 'Test browser' };

/** Sets up and confirms ada's factor; the clock then moves to the next step, so that its codes are fresh. */
async function enableFactor(memberId = 'm1'): Promise<{ secret: string; recoveryCodes: string[] }> {
  const factor = await confirmedFactor(services, memberId, now);
  now += STEP;
  return factor;
}

/** The challenge of a sign-in that asks for a further step; fails the test otherwise. */
function challengeOf(result: SignInResult, step: 'code' | 'setup'): string {
  if (result.ok || result.reason !== 'second-factor') throw new Error(`no further step: ${JSON.stringify(result)}`);
  expect(result.step).toBe(step);
  return result.challenge;
}

describe('signing in with a second factor', () => {
  let secret: string;
  let recoveryCodes: string[];

  beforeEach(async () => {
    ({ secret, recoveryCodes } = await enableFactor());
  });

  it('the right password asks for the code, with a challenge, and opens no session', async () => {
    const result = await attempt();
    expect(result).toEqual({ ok: false, reason: 'second-factor', step: 'code', member: expect.objectContaining({ id: 'm1' }), challenge: expect.any(String) });
    // The challenge carries no password.
    expect(JSON.stringify(result)).not.toContain(PASSWORD);
    expect(Buffer.from(challengeOf(result, 'code').split('.')[0] ?? '', 'base64url').toString()).not.toContain(PASSWORD);
    await expect(services.sessions.list()).resolves.toEqual([]);
    await expect(services.signin.secondFactorStep('m1')).resolves.toBe('code');
  });

  it('a wrong password is refused as before: no step', async () => {
    await expect(attempt({ password: 'wrong' })).resolves.toEqual({ ok: false, reason: 'invalid' });
  });

  it('the right code completes the sign-in: a session for the cookie domain, from the client', async () => {
    const challenge = challengeOf(await attempt(), 'code');
    const done = await services.signin.completeWithCode(challenge, totpCode(secret, now), PLACE);
    if (!done.ok) throw new Error(`not signed in: ${JSON.stringify(done)}`);
    expect(done.member).toMatchObject({ id: 'm1' });
    expect(done.recoveryCodes).toBeUndefined();
    expect(done.issued.session).toMatchObject({ memberId: 'm1', cookieDomain: 'example.org', clientAddress: '192.0.2.1', userAgent: 'Test browser' });
    await expect(signedInMember(done.issued.cookie, '.example.org')).resolves.toBe('m1');
  });

  it('a recovery code completes it too, once', async () => {
    const [code = ''] = recoveryCodes;
    await expect(services.signin.completeWithCode(challengeOf(await attempt(), 'code'), code, PLACE)).resolves.toMatchObject({ ok: true });
    await expect(services.signin.completeWithCode(challengeOf(await attempt(), 'code'), code, PLACE)).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.secondFactor.status('m1')).resolves.toMatchObject({ recoveryCodesLeft: 9 });
  });

  it('a wrong code opens no session, and the challenge may be tried again', async () => {
    const challenge = challengeOf(await attempt(), 'code');
    await expect(services.signin.completeWithCode(challenge, wrongCode(secret, now), PLACE)).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.signin.completeWithCode(challenge, '', PLACE)).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.sessions.list()).resolves.toEqual([]);
    await expect(services.signin.completeWithCode(challenge, totpCode(secret, now), PLACE)).resolves.toMatchObject({ ok: true });
  });

  it('a code already used is refused, also on another instance and with a fresh challenge', async () => {
    const code = totpCode(secret, now);
    await expect(services.signin.completeWithCode(challengeOf(await attempt(), 'code'), code, PLACE)).resolves.toMatchObject({ ok: true });
    await expect(services.signin.completeWithCode(challengeOf(await attempt(), 'code'), code, PLACE)).resolves.toEqual({ ok: false, reason: 'invalid' });
    const elsewhere = servicesWith();
    await expect(elsewhere.signin.completeWithCode(challengeOf(await attempt(), 'code'), code, PLACE)).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.sessions.list()).resolves.toHaveLength(1);
  });

  it('a challenge expires after five minutes', async () => {
    const challenge = challengeOf(await attempt(), 'code');
    now += 5 * 60_000 - 1_000;
    await expect(services.signin.completeWithCode(challenge, totpCode(secret, now), PLACE)).resolves.toMatchObject({ ok: true });
    const late = challengeOf(await attempt(), 'code');
    now += 5 * 60_000;
    await expect(services.signin.completeWithCode(late, totpCode(secret, now), PLACE)).resolves.toEqual({ ok: false, reason: 'expired' });
    await expect(services.sessions.list()).resolves.toHaveLength(1);
  });

  it('a changed, forged or foreign challenge is refused as expired, before the code is looked at', async () => {
    await services.members.add({ id: 'm2', username: 'bob' });
    const challenge = challengeOf(await attempt(), 'code');
    const [payload = '', proof = ''] = challenge.split('.');
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    const reencoded = (changed: unknown[]) => Buffer.from(JSON.stringify(changed)).toString('base64url');
    const tampered = [
      `${reencoded([fields[0], 'm2', fields[2], fields[3]])}.${proof}`,
      `${reencoded([fields[0], fields[1], fields[2], Number(fields[3]) + 3_600_000])}.${proof}`,
      `${reencoded(['setup', fields[1], fields[2], fields[3]])}.${proof}`,
      `${payload}.${proof.slice(0, -2)}${proof.endsWith('AA') ? 'BB' : 'AA'}`,
      `${payload}.`,
      payload,
      '',
      'not a challenge',
    ];
    for (const forged of tampered) {
      if (forged === challenge) continue;
      await expect(services.signin.completeWithCode(forged, totpCode(secret, now), PLACE)).resolves.toEqual({ ok: false, reason: 'expired' });
    }
    // Made under another server key: its proof is not this deployment's.
    const foreign = servicesWith({ secretKey: randomBytes(32) });
    const foreignChallenge = challengeOf(await foreign.signin.signIn({ login: 'ada', password: PASSWORD, clientAddress: '192.0.2.1', cookieDomain: '.example.org' }), 'code');
    await expect(services.signin.completeWithCode(foreignChallenge, totpCode(secret, now), PLACE)).resolves.toEqual({ ok: false, reason: 'expired' });
    await expect(services.sessions.list()).resolves.toEqual([]);
    // None of them used the code or counted a failure: the real challenge still works.
    await expect(services.signin.completeWithCode(challenge, totpCode(secret, now), PLACE)).resolves.toMatchObject({ ok: true });
  });

  it("a challenge of the code step is not the set-up step's, and the other way round", async () => {
    const code = challengeOf(await attempt(), 'code');
    await expect(services.signin.setupFor(code)).resolves.toBeNull();
    await expect(services.signin.completeSetup(code, totpCode(secret, now), PLACE)).resolves.toEqual({ ok: false, reason: 'expired' });

    await services.members.add({ id: 'm2', username: 'bob' });
    await store.setMemberPassword('m2', await hashPassword(PASSWORD), Date.now());
    const required = servicesWith({ mfa: 'required' });
    const setup = challengeOf(await required.signin.signIn({ login: 'bob', password: PASSWORD, clientAddress: '192.0.2.1', cookieDomain: '.example.org' }), 'setup');
    const bobSecret = (await required.signin.setupFor(setup))?.setup.secret ?? '';
    await expect(required.signin.completeWithCode(setup, totpCode(bobSecret, now), PLACE)).resolves.toEqual({ ok: false, reason: 'expired' });
    await expect(services.sessions.list()).resolves.toEqual([]);
  });

  it('a member disabled after the password is not signed in by the code', async () => {
    const challenge = challengeOf(await attempt(), 'code');
    await services.members.setEnabled('m1', false);
    await expect(services.signin.completeWithCode(challenge, totpCode(secret, now), PLACE)).resolves.toEqual({ ok: false, reason: 'expired' });
  });

  it('a member whose factor was removed signs in with the password alone', async () => {
    await services.secondFactor.remove('m1');
    await expect(attempt()).resolves.toMatchObject({ ok: true, member: { id: 'm1' } });
    await expect(services.signin.secondFactorStep('m1')).resolves.toBeNull();
  });
});

describe('second factor codes are throttled with the passwords', () => {
  let secret: string;

  beforeEach(async () => {
    ({ secret } = await enableFactor());
  });

  it('wrong codes lock the account; then even the right code is throttled, until the lock ends', async () => {
    const challenge = challengeOf(await attempt(), 'code');
    const at = (i: number) => ({ ...PLACE, clientAddress: `198.51.100.${i}` });
    await expect(services.signin.completeWithCode(challenge, wrongCode(secret, now), at(1))).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.signin.completeWithCode(challenge, wrongCode(secret, now), at(2))).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.signin.completeWithCode(challenge, wrongCode(secret, now), at(3))).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
    now += 60_000;
    await expect(services.signin.completeWithCode(challenge, totpCode(secret, now), at(4))).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 840 });
    // The password too: the lock is the account's.
    await expect(attempt({ clientAddress: '203.0.113.9' })).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 840 });
    await expect(services.sessions.list()).resolves.toEqual([]);
    now += 14 * 60_000;
    const fresh = challengeOf(await attempt(), 'code');
    await expect(services.signin.completeWithCode(fresh, totpCode(secret, now), PLACE)).resolves.toMatchObject({ ok: true });
  });

  it('wrong passwords and wrong codes add up on one count', async () => {
    await expect(attempt({ password: 'wrong', clientAddress: '198.51.100.1' })).resolves.toEqual({ ok: false, reason: 'invalid' });
    const challenge = challengeOf(await attempt({ clientAddress: '198.51.100.2' }), 'code');
    await expect(services.signin.completeWithCode(challenge, wrongCode(secret, now), { ...PLACE, clientAddress: '198.51.100.3' })).resolves.toEqual({
      ok: false,
      reason: 'invalid',
    });
    await expect(attempt({ password: 'wrong', clientAddress: '198.51.100.4' })).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
  });

  it('signing in again with the right password does not wipe out the wrong codes', async () => {
    // A guesser who has the password starts over with a fresh challenge each time: the count must go on.
    const results = [];
    for (let i = 1; i <= 3; i += 1) {
      const challenge = challengeOf(await attempt({ clientAddress: `198.51.100.${i}` }), 'code');
      results.push(await services.signin.completeWithCode(challenge, wrongCode(secret, now), { ...PLACE, clientAddress: `198.51.100.${i}` }));
    }
    expect(results).toEqual([
      { ok: false, reason: 'invalid' },
      { ok: false, reason: 'invalid' },
      { ok: false, reason: 'throttled', retryAfterSeconds: 900 },
    ]);
    await expect(attempt({ clientAddress: '198.51.100.9' })).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
  });

  it('the right code clears the account\'s count', async () => {
    const challenge = challengeOf(await attempt(), 'code');
    await services.signin.completeWithCode(challenge, wrongCode(secret, now), { ...PLACE, clientAddress: '198.51.100.1' });
    await services.signin.completeWithCode(challenge, wrongCode(secret, now), { ...PLACE, clientAddress: '198.51.100.2' });
    await expect(services.signin.completeWithCode(challenge, totpCode(secret, now), PLACE)).resolves.toMatchObject({ ok: true });
    const again = challengeOf(await attempt(), 'code');
    await expect(services.signin.completeWithCode(again, wrongCode(secret, now), { ...PLACE, clientAddress: '198.51.100.3' })).resolves.toEqual({
      ok: false,
      reason: 'invalid',
    });
    await expect(services.signin.completeWithCode(again, wrongCode(secret, now), { ...PLACE, clientAddress: '198.51.100.4' })).resolves.toEqual({
      ok: false,
      reason: 'invalid',
    });
  });

  it('a client address is locked by wrong codes on its own count', async () => {
    const challenge = challengeOf(await attempt({ clientAddress: '203.0.113.1' }), 'code');
    const results = [];
    // THROTTLE: 5 per address; the account (3) would lock first, so the codes are tried under two logins.
    await services.members.add({ id: 'm2', username: 'bob' });
    await store.setMemberPassword('m2', await hashPassword(PASSWORD), Date.now());
    const bobSecret = (await enableFactor('m2')).secret;
    const bob = challengeOf(await attempt({ login: 'bob', clientAddress: '203.0.113.1' }), 'code');
    for (const [c, s] of [[challenge, secret], [challenge, secret], [bob, bobSecret], [bob, bobSecret], [bob, bobSecret]] as const) {
      results.push(await services.signin.completeWithCode(c, wrongCode(s, now), { ...PLACE, clientAddress: '203.0.113.1' }));
    }
    expect(results.at(-1)).toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
    await expect(attempt({ clientAddress: '203.0.113.1' })).resolves.toMatchObject({ ok: false, reason: 'throttled' });
  });
});

describe('MFA=required', () => {
  let required: Services;
  const signInRequired = (overrides: Partial<SignInRequest> = {}) =>
    required.signin.signIn({ login: 'ada', password: PASSWORD, clientAddress: '192.0.2.1', cookieDomain: '.example.org', ...overrides });

  beforeEach(() => {
    required = servicesWith({ mfa: 'required' });
  });

  it('a member without a factor is asked to set one up, and no session is opened', async () => {
    await expect(required.signin.secondFactorStep('m1')).resolves.toBe('setup');
    challengeOf(await signInRequired(), 'setup');
    await expect(signInRequired({ password: 'wrong' })).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.sessions.list()).resolves.toEqual([]);
    await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
  });

  it('setupFor begins the set-up once and shows it again; completeSetup gives the recovery codes and a session', async () => {
    const challenge = challengeOf(await signInRequired(), 'setup');
    const first = await required.signin.setupFor(challenge);
    expect(first).toEqual({ member: expect.objectContaining({ id: 'm1' }), setup: { secret: expect.stringMatching(/^[A-Z2-7]{32}$/), uri: expect.stringContaining('otpauth://totp/') } });
    expect(decodeURIComponent(first?.setup.uri ?? '')).toContain('ada@example.org');
    await expect(required.signin.setupFor(challenge)).resolves.toEqual(first);
    await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: true, recoveryCodesLeft: 0 });
    const secret = first?.setup.secret ?? '';

    await expect(required.signin.completeSetup(challenge, wrongCode(secret, now), PLACE)).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.sessions.list()).resolves.toEqual([]);
    const done = await required.signin.completeSetup(challenge, totpCode(secret, now), PLACE);
    if (!done.ok) throw new Error(`not signed in: ${JSON.stringify(done)}`);
    expect(done.recoveryCodes).toHaveLength(10);
    expect(new Set(done.recoveryCodes).size).toBe(10);
    expect(done.issued.session).toMatchObject({ memberId: 'm1', cookieDomain: 'example.org' });
    await expect(signedInMember(done.issued.cookie, '.example.org')).resolves.toBe('m1');
    await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: true, pending: false, recoveryCodesLeft: 10 });

    // Set up: the next sign-in asks for the code, and the set-up challenge is spent.
    await expect(required.signin.completeSetup(challenge, totpCode(secret, now + STEP), PLACE)).rejects.toThrow();
    now += STEP;
    const next = challengeOf(await signInRequired(), 'code');
    await expect(required.signin.completeWithCode(next, totpCode(secret, now), PLACE)).resolves.toMatchObject({ ok: true });
  });

  it('wrong set-up codes count on the throttle, and an expired challenge is refused', async () => {
    const challenge = challengeOf(await signInRequired(), 'setup');
    const secret = (await required.signin.setupFor(challenge))?.setup.secret ?? '';
    const at = (i: number) => ({ ...PLACE, clientAddress: `198.51.100.${i}` });
    await expect(required.signin.completeSetup(challenge, wrongCode(secret, now), at(1))).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(required.signin.completeSetup(challenge, wrongCode(secret, now), at(2))).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(required.signin.completeSetup(challenge, wrongCode(secret, now), at(3))).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
    await expect(required.signin.completeSetup(challenge, totpCode(secret, now), at(4))).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
    await expect(services.secondFactor.status('m1')).resolves.toMatchObject({ enabled: false, pending: true });

    now += 15 * 60_000;
    await expect(required.signin.completeSetup(challenge, totpCode(secret, now), PLACE)).resolves.toEqual({ ok: false, reason: 'expired' });
    await expect(required.signin.setupFor(challenge)).resolves.toBeNull();
  });

  it('MFA=optional (the default) lets a member without a factor in with the password', async () => {
    await expect(attempt()).resolves.toMatchObject({ ok: true });
    await expect(services.signin.secondFactorStep('m1')).resolves.toBeNull();
  });
});
