/**
 * The vendors' operations beyond the two session checks (AuthenticationService): AuthenticateUser signs a
 * member in with a username or email and a password and opens a session; Login and ValidateUser check the
 * same credentials without one; DeleteUserSession ends the session of a token. What they render is in
 * test/bindings/result/formats.test.ts, and how they travel on the wire in test/bindings/.
 */
import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import type { CallContext, Outcome } from '../../src/service/authentication.js';
import type { Services } from '../../src/service/index.js';
import { hashPassword } from '../../src/service/passwords.js';
import type { NotSignedInReason, SessionPolicy } from '../../src/service/sessions.js';
import type { Store } from '../../src/store/store.js';
import { callContext } from '../helpers/call-context.js';
import { legacySha1 } from '../helpers/legacy-hashes.js';
import { refusalsOf } from '../helpers/outcomes.js';
import { recorded } from '../helpers/recorded-store.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1);
const SESSION = { absoluteTimeoutSeconds: 12 * 3600, idleTimeoutSeconds: 30 * 60, slidingIdle: true };
/** SIGNIN_MAX_FAILURES_PER_ACCOUNT 3 and per address 10, within 10 minutes, lock for 15. */
const THROTTLE = { accountFailures: 3, addressFailures: 10, windowSeconds: 600, lockoutSeconds: 900 };
const PASSWORD = 'correct horse battery staple';
/** The domain the calls' sessions are for (what the binding derives from COOKIE_DOMAIN or the host). */
const DOMAIN = 'members.example.org';
const CONTEXT = callContext('192.0.2.10', DOMAIN);
const ADA = { id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' };
const ADA_ROW = { ...ADA, enabled: true, createdAt: START, attributes: {}, version: 1, updatedAt: START, externalId: null, displayName: null, formattedName: null };
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY = randomBytes(32);

const CREDENTIAL_OPERATIONS = ['AuthenticateUser', 'Login', 'ValidateUser'] as const;
type CredentialOperation = (typeof CREDENTIAL_OPERATIONS)[number];

let now = START;
let store: Store;
let cleanup: () => Promise<void>;
let services: Services;
let securityPassword: string;
/** The store methods called, by name, since the last reset: each service reads and writes through them. */
const storeCalls: string[] = [];
/** ADA's password hashed once: argon2id is slow on purpose. */
let passwordHash: string;

beforeAll(async () => {
  passwordHash = await hashPassword(PASSWORD);
});

function servicesWith(session: Partial<SessionPolicy> = SESSION): Services {
  return servicesOver(recorded(store, storeCalls), {
    secretKey: KEY,
    session,
    signin: { throttle: THROTTLE },
    callerThrottle: { maxFailures: 3, windowSeconds: 600, lockoutSeconds: 900 },
    clock: () => now,
  });
}

beforeEach(async () => {
  now = START;
  ({ store, cleanup } = await tempSqliteStore());
  services = servicesWith();
  ({ password: securityPassword } = await services.callers.add('portal'));
  await services.members.add(ADA, passwordHash);
});
afterEach(() => cleanup());

interface Attempt {
  username?: string | null;
  password?: string | null;
  securityPassword?: string | null;
  context?: CallContext;
  over?: Services;
}

/** One call of a credential operation: ada with her password unless told otherwise. */
function attempt(operation: CredentialOperation, given: Attempt = {}): Promise<Outcome> {
  const request = {
    securityPassword: given.securityPassword === undefined ? securityPassword : given.securityPassword,
    username: given.username === undefined ? 'ada' : given.username,
    password: given.password === undefined ? PASSWORD : given.password,
  };
  const context = given.context ?? CONTEXT;
  const authentication = (given.over ?? services).authentication;
  switch (operation) {
    case 'AuthenticateUser':
      return authentication.authenticateUser({ ...request, authenticationToken: null }, context);
    case 'Login':
      return authentication.login({ ...request, authenticationToken: null }, context);
    case 'ValidateUser':
      return authentication.validateUser(request, context);
  }
}

/** The session an AuthenticateUser outcome carries; fails the test when there is none. */
function sessionOf(outcome: Outcome): { token: string; cookie: string } {
  if (outcome.kind !== 'member' || !outcome.session?.cookie) throw new Error(`no session with a cookie: ${JSON.stringify(outcome)}`);
  return { token: outcome.session.token, cookie: outcome.session.cookie };
}

const authenticateToken = (token: string | null) => services.authentication.authenticateToken({ securityPassword, token }, CONTEXT);
const authenticateCookie = (loginCookie: string, cookieDomain: string) =>
  services.authentication.authenticateCookie({ securityPassword, loginCookie, cookieDomain }, CONTEXT);
const deleteUserSession = (token: string | null, password: string | null = securityPassword) =>
  services.authentication.deleteUserSession({ securityPassword: password, token }, CONTEXT);

const { invalidCredentials, locked, notSignedIn } = refusalsOf('portal');

describe('AuthenticateUser', () => {
  it.each([
    ['the username', 'ada'],
    ['the username in another letter case, with spaces around', '  ADA '],
    ['the email address in any letter case', 'ADA@Example.ORG'],
  ])('signs the member in with %s, and opens a session for the context’s cookie domain', async (_label, username) => {
    const outcome = await attempt('AuthenticateUser', { username });
    expect(outcome).toEqual({
      operation: 'AuthenticateUser',
      caller: 'portal',
      kind: 'member',
      member: ADA_ROW,
      session: { token: expect.any(String), cookie: expect.any(String) },
    });
    const { token, cookie } = sessionOf(outcome);
    expect(token).not.toBe(cookie);
    await expect(services.sessions.list()).resolves.toEqual([expect.objectContaining({ memberId: '10042', cookieDomain: DOMAIN, createdAt: START })]);

    expect(await authenticateToken(token)).toEqual({ operation: 'AuthenticateToken', caller: 'portal', kind: 'member', member: ADA_ROW, session: { token, cookie } });
    expect(await authenticateCookie(cookie, DOMAIN)).toMatchObject({ kind: 'member', member: { id: '10042' }, session: { token, cookie } });
    expect(await authenticateCookie(cookie, `.${DOMAIN.toUpperCase()}`)).toMatchObject({ kind: 'member' });
    expect(await authenticateCookie(cookie, 'example.org')).toMatchObject({ kind: 'refused', refusal: { kind: 'not-signed-in', reason: 'domain-mismatch' } });
  });

  it('opens a new session on every call, each with its own token and cookie', async () => {
    const first = sessionOf(await attempt('AuthenticateUser'));
    const second = sessionOf(await attempt('AuthenticateUser'));
    expect(second.token).not.toBe(first.token);
    expect(second.cookie).not.toBe(first.cookie);
    await expect(services.sessions.list()).resolves.toHaveLength(2);
    expect(await authenticateToken(first.token)).toMatchObject({ kind: 'member' });
  });

  it('asks the context for the cookie domain only when it opens a session', async () => {
    const cookieDomain = jest.fn(() => DOMAIN);
    const context: CallContext = { clientAddress: '192.0.2.10', cookieDomain };
    await attempt('Login', { context });
    await attempt('ValidateUser', { context });
    await attempt('AuthenticateUser', { context, password: 'wrong' });
    expect(cookieDomain).not.toHaveBeenCalled();
    await attempt('AuthenticateUser', { context });
    expect(cookieDomain).toHaveBeenCalledTimes(1);
  });

  it('issues opaque tokens by default, and GUID tokens (with opaque cookies still) under tokenFormat guid', async () => {
    expect(sessionOf(await attempt('AuthenticateUser')).token).not.toMatch(GUID);

    services = servicesWith({ ...SESSION, tokenFormat: 'guid' });
    const { token, cookie } = sessionOf(await attempt('AuthenticateUser'));
    expect(token).toMatch(GUID);
    expect(cookie).not.toMatch(GUID);
    expect(await authenticateToken(token)).toMatchObject({ kind: 'member', member: { id: '10042' }, session: { token } });
    expect(await authenticateCookie(cookie, DOMAIN)).toMatchObject({ kind: 'member', session: { token } });
  });
});

describe.each(['Login', 'ValidateUser'] as const)('%s', (operation) => {
  it.each([
    ['the username', 'ada'],
    ['the email address in any letter case', 'Ada@EXAMPLE.org'],
  ])('answers the member for %s, with no session, and opens none', async (_label, username) => {
    expect(await attempt(operation, { username })).toEqual({ operation, caller: 'portal', kind: 'member', member: ADA_ROW, session: null });
    await expect(services.sessions.list({ includeEnded: true })).resolves.toEqual([]);
  });

  it('leaves the sessions the member already has alone', async () => {
    const { token } = await services.sessions.create('10042', DOMAIN);
    await attempt(operation);
    await expect(services.sessions.list()).resolves.toHaveLength(1);
    expect(await authenticateToken(token)).toMatchObject({ kind: 'member' });
  });
});

describe.each(CREDENTIAL_OPERATIONS)('%s with credentials that do not sign anybody in', (operation) => {
  beforeEach(async () => {
    await services.members.add({ id: 'm-nopass', username: 'dave', email: 'dave@example.org' });
    await services.members.add({ id: 'm-disabled', username: 'erin', email: 'erin@example.org' }, passwordHash);
    await services.members.setEnabled('m-disabled', false);
  });

  const CASES: Array<[string, Attempt]> = [
    ['a wrong password', { password: 'wrong password' }],
    ['an unknown user', { username: 'nobody' }],
    ['a disabled member', { username: 'erin' }],
    ['a member without a password', { username: 'dave', password: 'anything' }],
  ];

  it.each(CASES)('answers %s with invalid-credentials, and opens no session', async (_label, given) => {
    expect(await attempt(operation, given)).toEqual(invalidCredentials(operation));
    await expect(services.sessions.list({ includeEnded: true })).resolves.toEqual([]);
  });

  it('does the same store work for each of them, so that the store tells nothing either', async () => {
    const work: string[][] = [];
    for (const [index, [, given]] of CASES.entries()) {
      storeCalls.length = 0;
      await attempt(operation, { ...given, context: callContext(`198.51.100.${index + 1}`, DOMAIN) });
      // The events are written off the request path, in batches, whenever their timer fires: no request's work.
      work.push(storeCalls.filter((call) => call !== 'insertEvents'));
    }
    expect(work[0]).toContain('recordFailure');
    expect(work[0]).not.toContain('createSession');
    for (const other of work.slice(1)) expect(other).toEqual(work[0]);
  });

  it.each<[string, Attempt]>([
    ['a null username', { username: null }],
    ['an empty username', { username: '' }],
    ['a blank username', { username: '   ' }],
    ['a null password', { password: null }],
    ['an empty password', { password: '' }],
  ])('answers %s with invalid-credentials without counting a failure', async (_label, given) => {
    storeCalls.length = 0;
    for (let i = 0; i < THROTTLE.accountFailures + 1; i += 1) expect(await attempt(operation, given)).toEqual(invalidCredentials(operation));
    expect(storeCalls).not.toContain('recordFailure');
    expect(storeCalls).not.toContain('findMembersByLogin');
    await expect(store.getThrottle('account:ada')).resolves.toBeNull();
    await expect(store.getThrottle(`address:${CONTEXT.clientAddress}`)).resolves.toBeNull();
    expect(await attempt(operation)).toMatchObject({ kind: 'member', member: { id: '10042' } });
  });

  it('throws INVALID_SECURITY_PASSWORD for a wrong security password even with the right credentials, and counts no sign-in failure', async () => {
    for (const wrong of ['wrong-password', null, '']) {
      const error = await serviceErrorOf(attempt(operation, { securityPassword: wrong }));
      expect(error.code).toBe('INVALID_SECURITY_PASSWORD');
      expect(error.message).toBe('Invalid security password');
    }
    await expect(store.getThrottle('account:ada')).resolves.toBeNull();
    await expect(services.sessions.list({ includeEnded: true })).resolves.toEqual([]);
  });

  it('refuses an address locked by wrong security passwords before it checks the credentials', async () => {
    for (let i = 0; i < 3; i += 1) await serviceErrorOf(attempt(operation, { securityPassword: 'wrong-password' }));
    storeCalls.length = 0;
    expect((await serviceErrorOf(attempt(operation))).code).toBe('CALLER_THROTTLED');
    expect(storeCalls).not.toContain('findMembersByLogin');
  });
});

describe('the sign-in throttle', () => {
  it('locks an account after SIGNIN_MAX_FAILURES_PER_ACCOUNT failures over all three operations, even for the right password, until the lockout ends', async () => {
    // Each failure from its own address: the account is what is locked.
    const from = (index: number) => callContext(`198.51.100.${index}`, DOMAIN);
    expect(await attempt('AuthenticateUser', { password: 'wrong', context: from(1) })).toEqual(invalidCredentials('AuthenticateUser'));
    expect(await attempt('Login', { password: 'wrong', context: from(2) })).toEqual(invalidCredentials('Login'));
    // The failure that reaches the threshold is answered with the lock.
    expect(await attempt('ValidateUser', { username: 'ADA', password: 'wrong', context: from(3) })).toEqual(locked('ValidateUser', 900));

    now += MINUTE;
    for (const operation of CREDENTIAL_OPERATIONS) {
      expect(await attempt(operation, { context: from(4) })).toEqual(locked(operation, 840));
    }
    await expect(services.sessions.list({ includeEnded: true })).resolves.toEqual([]);

    now = START + 15 * MINUTE;
    expect(await attempt('AuthenticateUser', { context: from(4) })).toMatchObject({ kind: 'member', session: { token: expect.any(String) } });
  });

  it('locks an unknown login exactly as a real one', async () => {
    for (let i = 1; i < THROTTLE.accountFailures; i += 1) {
      expect(await attempt('Login', { username: 'nobody', context: callContext(`198.51.100.${i}`) })).toEqual(invalidCredentials('Login'));
    }
    expect(await attempt('Login', { username: 'nobody', context: callContext('198.51.100.9') })).toEqual(locked('Login', 900));
  });

  it('forgets the account’s failures after a success', async () => {
    await attempt('AuthenticateUser', { password: 'wrong' });
    await attempt('AuthenticateUser', { password: 'wrong' });
    expect(await attempt('ValidateUser')).toMatchObject({ kind: 'member' });
    expect(await attempt('AuthenticateUser', { password: 'wrong' })).toEqual(invalidCredentials('AuthenticateUser'));
    expect(await attempt('AuthenticateUser', { password: 'wrong' })).toEqual(invalidCredentials('AuthenticateUser'));
  });
});

describe.each(CREDENTIAL_OPERATIONS)('%s with a legacy password hash', (operation) => {
  beforeEach(async () => {
    await store.setMemberPassword('10042', legacySha1(PASSWORD), Date.now());
  });

  it('signs the member in and replaces the hash with argon2id, with which the password keeps working', async () => {
    expect(await attempt(operation)).toMatchObject({ kind: 'member', member: { id: '10042' } });
    expect((await store.getMemberCredentials('10042'))?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await attempt(operation)).toMatchObject({ kind: 'member', member: { id: '10042' } });
  });

  it('keeps the legacy hash after a wrong password', async () => {
    const before = (await store.getMemberCredentials('10042'))?.passwordHash;
    expect(await attempt(operation, { password: 'wrong' })).toEqual(invalidCredentials(operation));
    expect((await store.getMemberCredentials('10042'))?.passwordHash).toBe(before);
  });
});

describe('DeleteUserSession', () => {
  it('ends the live session of the token: it is then not signed in (revoked), by token and by cookie', async () => {
    const { token, cookie } = sessionOf(await attempt('AuthenticateUser'));
    expect(await deleteUserSession(token)).toEqual({ operation: 'DeleteUserSession', caller: 'portal', kind: 'session-ended', member: ADA_ROW });
    expect(await authenticateToken(token)).toEqual(notSignedIn('AuthenticateToken', 'revoked'));
    expect(await authenticateCookie(cookie, DOMAIN)).toMatchObject({ kind: 'refused', refusal: { kind: 'not-signed-in', reason: 'revoked' } });
    await expect(services.sessions.list()).resolves.toEqual([]);
  });

  it("ends that session only, not the member's others", async () => {
    const ended = await services.sessions.create('10042', DOMAIN);
    const kept = await services.sessions.create('10042', DOMAIN);
    expect(await deleteUserSession(ended.token)).toMatchObject({ kind: 'session-ended' });
    expect(await authenticateToken(kept.token)).toMatchObject({ kind: 'member' });
    await expect(services.sessions.list()).resolves.toEqual([expect.objectContaining({ id: kept.session.id })]);
  });

  it.each<[string, string | null, NotSignedInReason]>([
    ['a null token', null, 'missing'],
    ['an empty token', '', 'missing'],
    ['an unknown token', 'no-such-token', 'unknown'],
  ])('answers %s as not signed in (never throws)', async (_label, token, reason) => {
    await services.sessions.create('10042', DOMAIN);
    expect(await deleteUserSession(token)).toEqual(notSignedIn('DeleteUserSession', reason));
    await expect(services.sessions.list()).resolves.toHaveLength(1);
  });

  it('answers the token of an ended session as not signed in, with the reason it ended', async () => {
    const deleted = await services.sessions.create('10042', DOMAIN);
    await deleteUserSession(deleted.token);
    expect(await deleteUserSession(deleted.token)).toEqual(notSignedIn('DeleteUserSession', 'revoked'));

    const idle = await services.sessions.create('10042', DOMAIN);
    now = START + 30 * MINUTE;
    expect(await deleteUserSession(idle.token)).toEqual(notSignedIn('DeleteUserSession', 'idle'));
  });

  it('answers a session that ends between its check and its end (another instance ended it) as not signed in', async () => {
    const { token, session } = await services.sessions.create('10042', DOMAIN);
    const check = services.sessions.checkToken.bind(services.sessions);
    jest.spyOn(services.sessions, 'checkToken').mockImplementationOnce(async (value) => {
      const found = await check(value);
      await store.revokeSession(session.id, now);
      return found;
    });
    expect(await deleteUserSession(token)).toEqual(notSignedIn('DeleteUserSession', 'revoked'));
  });

  it.each([['a wrong', 'wrong-password'], ['a null', null], ['an empty', '']])(
    'throws INVALID_SECURITY_PASSWORD for %s security password, and leaves the session live',
    async (_label, wrong) => {
      const { token } = await services.sessions.create('10042', DOMAIN);
      const error = await serviceErrorOf(deleteUserSession(token, wrong));
      expect(error.code).toBe('INVALID_SECURITY_PASSWORD');
      expect(error.message).toBe('Invalid security password');
      expect(await authenticateToken(token)).toMatchObject({ kind: 'member' });
    },
  );
});
