/**
 * AuthenticateUser, Login and ValidateUser for members with a second factor (AuthenticationService):
 * `authenticationToken` is the code, checked after the password, used up when right, and counted on the
 * sign-in throttle when wrong. MFA=required asks it of every member. How the refusal renders (16000) is in
 * test/bindings/result/formats.test.ts and test/bindings/second-factor.test.ts.
 */
import { randomBytes } from 'node:crypto';
import type { CallContext, Outcome } from '../../src/service/authentication.js';
import type { Services } from '../../src/service/index.js';
import { hashPassword } from '../../src/service/passwords.js';
import type { MfaPolicy } from '../../src/service/signin.js';
import type { Store } from '../../src/store/store.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { callContext } from '../helpers/call-context.js';
import { refusalsOf } from '../helpers/outcomes.js';
import { confirmedFactor, STEP, wrongCode } from '../helpers/second-factor.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';

const START = Date.UTC(2026, 0, 1) + 15_000;
/** SIGNIN_MAX_FAILURES_PER_ACCOUNT 3 and per address 10, within 10 minutes, lock for 15. */
const THROTTLE = { accountFailures: 3, addressFailures: 10, windowSeconds: 600, lockoutSeconds: 900 };
const PASSWORD = 'correct horse battery staple';
const DOMAIN = 'members.example.org';
const CONTEXT = callContext('192.0.2.10', DOMAIN);
const KEY = randomBytes(32);

let now = START;
let store: Store;
let cleanup: () => Promise<void>;
let services: Services;
let securityPassword: string;
let passwordHash: string;

beforeAll(async () => {
  passwordHash = await hashPassword(PASSWORD);
});

function servicesWith(mfa: MfaPolicy = 'optional'): Services {
  return servicesOver(store, {
    secretKey: KEY,
    signin: { throttle: THROTTLE, mfa },
    callerThrottle: { maxFailures: 3, windowSeconds: 600, lockoutSeconds: 900 },
    clock: () => now,
  });
}

beforeEach(async () => {
  now = START;
  ({ store, cleanup } = await tempSqliteStore());
  services = servicesWith();
  ({ password: securityPassword } = await services.callers.add('portal'));
  await services.members.add({ id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' }, passwordHash);
  await services.members.add({ id: '10043', username: 'grace', email: 'grace@example.org' }, passwordHash);
});
afterEach(() => cleanup());

/** Sets up and confirms the member's factor; the clock then moves on a step, so that the next code is fresh. */
async function enableFactor(memberId = '10042'): Promise<{ secret: string; recoveryCodes: string[] }> {
  const factor = await confirmedFactor(services, memberId, now);
  now += STEP;
  return factor;
}

interface Call {
  username?: string;
  password?: string;
  authenticationToken?: string | null;
  context?: CallContext;
  over?: Services;
}

function call(operation: 'AuthenticateUser' | 'Login' | 'ValidateUser', given: Call = {}): Promise<Outcome> {
  const request = { securityPassword, username: given.username ?? 'ada', password: given.password ?? PASSWORD };
  const authenticationToken = given.authenticationToken === undefined ? null : given.authenticationToken;
  const authentication = (given.over ?? services).authentication;
  const context = given.context ?? CONTEXT;
  switch (operation) {
    case 'AuthenticateUser':
      return authentication.authenticateUser({ ...request, authenticationToken }, context);
    case 'Login':
      return authentication.login({ ...request, authenticationToken }, context);
    case 'ValidateUser':
      return authentication.validateUser(request, context);
  }
}

const { invalidCredentials, locked: LOCKED, secondFactorRequired: SECOND_FACTOR_REQUIRED } = refusalsOf('portal');

describe.each(['AuthenticateUser', 'Login'] as const)('%s for a member with a second factor', (operation) => {
  let secret: string;
  let recoveryCodes: string[];

  beforeEach(async () => {
    ({ secret, recoveryCodes } = await enableFactor());
  });

  it.each([
    ['no authenticationToken', null],
    ['an empty one', ''],
    ['a blank one', '   '],
  ])('with %s is second-factor-required, and opens no session', async (_what, authenticationToken) => {
    await expect(call(operation, { authenticationToken })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    await expect(services.sessions.list()).resolves.toEqual([]);
  });

  it('with a wrong code is second-factor-required', async () => {
    await expect(call(operation, { authenticationToken: wrongCode(secret, now) })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    await expect(call(operation, { authenticationToken: 'abcde-fghjk' })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    await expect(services.sessions.list()).resolves.toEqual([]);
  });

  it('with the right code is the member; the same code again is second-factor-required (a replay)', async () => {
    const code = totpCode(secret, now);
    const outcome = await call(operation, { authenticationToken: ` ${code} ` });
    expect(outcome).toMatchObject({ operation, caller: 'portal', kind: 'member', member: { id: '10042' } });
    if (operation === 'AuthenticateUser') {
      expect(outcome).toMatchObject({ session: { token: expect.any(String), cookie: expect.any(String) } });
      const sessions = await services.sessions.list({ memberId: '10042' });
      expect(sessions).toEqual([expect.objectContaining({ cookieDomain: DOMAIN })]);
    } else {
      expect(outcome).toMatchObject({ session: null });
      await expect(services.sessions.list()).resolves.toEqual([]);
    }
    await expect(call(operation, { authenticationToken: code })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    // Also on another instance sharing the store.
    await expect(call(operation, { authenticationToken: code, over: servicesWith() })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
  });

  it('takes a recovery code, once', async () => {
    const [code = ''] = recoveryCodes;
    await expect(call(operation, { authenticationToken: code.toUpperCase() })).resolves.toMatchObject({ kind: 'member', member: { id: '10042' } });
    await expect(call(operation, { authenticationToken: code })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
  });

  it('a wrong password with the right code is invalid-credentials, and the code is not used up', async () => {
    const code = totpCode(secret, now);
    await expect(call(operation, { password: 'wrong password', authenticationToken: code })).resolves.toEqual(invalidCredentials(operation));
    await expect(call(operation, { authenticationToken: code })).resolves.toMatchObject({ kind: 'member' });
  });

  it('wrong codes are counted: the lock is `locked`, also for the right code, until it ends', async () => {
    const at = (i: number) => callContext(`198.51.100.${i}`, DOMAIN);
    await expect(call(operation, { authenticationToken: wrongCode(secret, now), context: at(1) })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    await expect(call(operation, { authenticationToken: wrongCode(secret, now), context: at(2) })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    await expect(call(operation, { authenticationToken: wrongCode(secret, now), context: at(3) })).resolves.toEqual(LOCKED(operation, 900));
    now += 60_000;
    await expect(call(operation, { authenticationToken: totpCode(secret, now), context: at(4) })).resolves.toEqual(LOCKED(operation, 840));
    await expect(services.sessions.list()).resolves.toEqual([]);
    now += 14 * 60_000;
    await expect(call(operation, { authenticationToken: totpCode(secret, now), context: at(5) })).resolves.toMatchObject({ kind: 'member' });
  });

  it('wrong codes add up with wrong passwords', async () => {
    await expect(call(operation, { password: 'wrong password' })).resolves.toEqual(invalidCredentials(operation));
    await expect(call(operation, { authenticationToken: wrongCode(secret, now) })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    await expect(call(operation, { password: 'wrong password' })).resolves.toEqual(LOCKED(operation, 900));
  });

  it('a call without a code counts nothing', async () => {
    for (let i = 0; i < 5; i += 1) await expect(call(operation)).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    await expect(call(operation, { authenticationToken: totpCode(secret, now) })).resolves.toMatchObject({ kind: 'member' });
  });

  it('a member without a factor is not asked for one: the token is ignored', async () => {
    await expect(call(operation, { username: 'grace', authenticationToken: null })).resolves.toMatchObject({ kind: 'member', member: { id: '10043' } });
    await expect(call(operation, { username: 'grace', authenticationToken: 'anything' })).resolves.toMatchObject({ kind: 'member', member: { id: '10043' } });
  });
});

describe('ValidateUser, which has no authenticationToken', () => {
  it('is second-factor-required for a member with a factor, and the member for one without', async () => {
    await enableFactor();
    await expect(call('ValidateUser')).resolves.toEqual(SECOND_FACTOR_REQUIRED('ValidateUser'));
    await expect(call('ValidateUser', { username: 'grace' })).resolves.toMatchObject({ kind: 'member', member: { id: '10043' } });
  });
});

describe('MFA=required', () => {
  it.each(['AuthenticateUser', 'Login', 'ValidateUser'] as const)('%s: a member without a factor is second-factor-required, whatever the token', async (operation) => {
    const required = servicesWith('required');
    await expect(call(operation, { over: required })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    await expect(call(operation, { over: required, authenticationToken: '123456' })).resolves.toEqual(SECOND_FACTOR_REQUIRED(operation));
    await expect(services.sessions.list()).resolves.toEqual([]);
    // A wrong password is still just that.
    await expect(call(operation, { over: required, password: 'wrong password' })).resolves.toEqual(invalidCredentials(operation));
  });

  it('a token from a member who has no factor yet counts nothing: no code could be right', async () => {
    const required = servicesWith('required');
    for (let i = 0; i < 5; i += 1) await call('AuthenticateUser', { over: required, authenticationToken: '123456' });
    // Had those counted, the account (three failures here) would be locked and this would be `locked`.
    await expect(call('Login', { over: required, password: 'wrong password' })).resolves.toEqual(invalidCredentials('Login'));
  });

  it('a member with a factor is the member with the right code', async () => {
    const { secret } = await enableFactor();
    const required = servicesWith('required');
    await expect(call('AuthenticateUser', { over: required, authenticationToken: totpCode(secret, now) })).resolves.toMatchObject({
      kind: 'member',
      member: { id: '10042' },
    });
  });
});
