/**
 * Failed security passwords counted per client address (AuthenticationService over KeyedThrottle), on both
 * stores: the lock after the threshold (even for the right password, and without a password check), other
 * addresses unaffected, the end of the lock on a fake clock, and the count shared by two service instances
 * over one store. PostgreSQL is skipped where it cannot be reached, and fails under CI=true.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import type { CallContext } from '../../src/service/authentication.js';
import { CallerThrottledError } from '../../src/service/errors.js';
import type { Services } from '../../src/service/index.js';
import { openStore } from '../../src/store/open.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { callContext } from '../helpers/call-context.js';
import { describeWithPostgres, POSTGRES_TEST_URL, tempPostgresStore } from '../helpers/postgres.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { servicesOver } from '../helpers/test-services.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const START = Date.UTC(2026, 0, 1);
/** 3 failed passwords from one address within 10 minutes lock it for 15. */
const POLICY = { maxFailures: 3, windowSeconds: 600, lockoutSeconds: 900 };
const GUESSER = callContext('192.0.2.66');
const NEIGHBOUR = callContext('198.51.100.7');
const LOCKED_15 = 'Too many failed security password attempts from this address; try again in 15 minutes.';

/** One store, and more handles on the same data: what another instance of the service would open. */
interface StoreUnderTest {
  store: Store;
  openAnother(): Promise<Store>;
  cleanup(): Promise<void>;
}

async function sqliteUnderTest(): Promise<StoreUnderTest> {
  const dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-'));
  const handles = [await openStore({ dataDir })];
  return {
    store: handles[0]!,
    openAnother: async () => {
      const another = await openStore({ dataDir });
      handles.push(another);
      return another;
    },
    cleanup: async () => {
      for (const handle of handles) await handle.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function postgresUnderTest(): Promise<StoreUnderTest> {
  const temp = await tempPostgresStore();
  const others: Store[] = [];
  return {
    store: temp.store,
    openAnother: async () => {
      const another = new PostgresStore({ connectionString: POSTGRES_TEST_URL, schema: temp.schema });
      others.push(another);
      return another;
    },
    cleanup: async () => {
      for (const other of others) await other.close();
      await temp.cleanup();
    },
  };
}

function callerThrottleSuite(open: () => Promise<StoreUnderTest>): void {
  let now = START;
  const clock = () => now;
  let underTest: StoreUnderTest;
  let secretKey: Buffer;
  let services: Services;
  let password: string;
  let token: string;

  /** The services of one instance over this store. */
  const instanceOver = (store: Store) => servicesOver(store, { secretKey, callerThrottle: POLICY, clock });
  const call = (securityPassword: string | null, context: CallContext, over: Services = services) =>
    over.authentication.authenticateToken({ securityPassword, token }, context);
  const wrong = async (context: CallContext, over: Services = services) => (await serviceErrorOf(call('wrong-password', context, over))).code;

  beforeEach(async () => {
    now = START;
    underTest = await open();
    secretKey = randomBytes(32);
    services = instanceOver(underTest.store);
    ({ password } = await services.callers.add('shop'));
    await services.members.add({ id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
    ({ token } = await services.sessions.create('10042', 'example.org'));
  });
  afterEach(() => underTest.cleanup());

  it('answers the failures up to the threshold as wrong passwords, then locks the address even for the right password', async () => {
    expect(await wrong(GUESSER)).toBe('INVALID_SECURITY_PASSWORD');
    expect((await serviceErrorOf(call(null, GUESSER))).code).toBe('INVALID_SECURITY_PASSWORD');
    await expect(call(password, GUESSER)).resolves.toMatchObject({ kind: 'member' });
    // The third failure reaches the threshold; it is still answered as what it is.
    expect(await wrong(GUESSER)).toBe('INVALID_SECURITY_PASSWORD');

    now += MINUTE;
    const error = await serviceErrorOf(call(password, GUESSER));
    expect(error).toBeInstanceOf(CallerThrottledError);
    expect(error.code).toBe('CALLER_THROTTLED');
    expect((error as CallerThrottledError).retryAfterSeconds).toBe(14 * 60);
    expect(error.message).toBe('Too many failed security password attempts from this address; try again in 14 minutes.');
    expect(error.message).not.toContain(password);
    expect(await wrong(GUESSER)).toBe('CALLER_THROTTLED');
    await expect(underTest.store.getThrottle('caller-address:192.0.2.66')).resolves.toMatchObject({ lockedUntil: START + 15 * MINUTE });
  });

  it('refuses a locked address before looking at its password', async () => {
    for (let i = 0; i < 3; i += 1) await wrong(GUESSER);
    const verify = jest.spyOn(services.callers, 'verify');
    expect((await serviceErrorOf(call(password, GUESSER))).message).toBe(LOCKED_15);
    expect((await serviceErrorOf(call('wrong-password', GUESSER))).message).toBe(LOCKED_15);
    expect(verify).not.toHaveBeenCalled();
    await call(password, NEIGHBOUR);
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('leaves every other address alone', async () => {
    for (let i = 0; i < 3; i += 1) await wrong(GUESSER);
    expect((await serviceErrorOf(call(password, GUESSER))).code).toBe('CALLER_THROTTLED');
    await expect(call(password, NEIGHBOUR)).resolves.toMatchObject({ caller: 'shop', kind: 'member' });
    await expect(
      services.authentication.authenticateCookie({ securityPassword: password, loginCookie: 'none', cookieDomain: 'example.org' }, NEIGHBOUR),
    ).resolves.toMatchObject({ kind: 'refused', refusal: { kind: 'not-signed-in', reason: 'unknown' } });
    expect(await wrong(NEIGHBOUR)).toBe('INVALID_SECURITY_PASSWORD');
    expect(await wrong(callContext('::ffff:192.0.2.66'))).toBe('INVALID_SECURITY_PASSWORD');
  });

  it('ends the lock after the cool-down; calls during the lock do not extend it; then counts from zero', async () => {
    for (let i = 0; i < 3; i += 1) await wrong(GUESSER);
    const end = START + 15 * MINUTE;
    now = end - 61 * SECOND;
    expect((await serviceErrorOf(call(password, GUESSER))).message).toBe(
      'Too many failed security password attempts from this address; try again in 2 minutes.',
    );
    now = end - SECOND;
    const last = await serviceErrorOf(call('wrong-password', GUESSER));
    expect(last.message).toBe('Too many failed security password attempts from this address; try again in 1 minute.');
    expect((last as CallerThrottledError).retryAfterSeconds).toBe(1);

    now = end;
    await expect(call(password, GUESSER)).resolves.toMatchObject({ kind: 'member' });
    expect(await wrong(GUESSER)).toBe('INVALID_SECURITY_PASSWORD');
    expect(await wrong(GUESSER)).toBe('INVALID_SECURITY_PASSWORD');
    await expect(call(password, GUESSER)).resolves.toMatchObject({ kind: 'member' });
    expect(await wrong(GUESSER)).toBe('INVALID_SECURITY_PASSWORD');
    expect((await serviceErrorOf(call(password, GUESSER))).message).toBe(LOCKED_15);
  });

  it('does not clear the count on a right password, and forgets failures older than the window', async () => {
    await wrong(GUESSER);
    await wrong(GUESSER);
    await expect(call(password, GUESSER)).resolves.toMatchObject({ kind: 'member' });
    expect(await wrong(GUESSER)).toBe('INVALID_SECURITY_PASSWORD');
    expect((await serviceErrorOf(call(password, GUESSER))).code).toBe('CALLER_THROTTLED');

    now = START + 10 * MINUTE;
    await wrong(NEIGHBOUR);
    await wrong(NEIGHBOUR);
    now = START + 20 * MINUTE;
    // The window of the first two has passed: this is the first failure of a new one.
    expect(await wrong(NEIGHBOUR)).toBe('INVALID_SECURITY_PASSWORD');
    await expect(call(password, NEIGHBOUR)).resolves.toMatchObject({ kind: 'member' });
  });

  it("counts a disabled caller's password as a failure, as it is answered as one", async () => {
    await services.callers.setEnabled('shop', false);
    for (let i = 0; i < 3; i += 1) expect((await serviceErrorOf(call(password, GUESSER))).code).toBe('INVALID_SECURITY_PASSWORD');
    await services.callers.setEnabled('shop', true);
    expect((await serviceErrorOf(call(password, GUESSER))).code).toBe('CALLER_THROTTLED');
  });

  it('shares the count between two service instances over one store, also when their failures arrive together', async () => {
    const other = instanceOver(await underTest.openAnother());
    await expect(call(password, GUESSER, other)).resolves.toMatchObject({ kind: 'member' });
    expect(await wrong(GUESSER, services)).toBe('INVALID_SECURITY_PASSWORD');
    expect(await wrong(GUESSER, other)).toBe('INVALID_SECURITY_PASSWORD');
    expect(await wrong(GUESSER, services)).toBe('INVALID_SECURITY_PASSWORD');
    expect((await serviceErrorOf(call(password, GUESSER, other))).code).toBe('CALLER_THROTTLED');
    expect((await serviceErrorOf(call(password, GUESSER, services))).code).toBe('CALLER_THROTTLED');

    // Concurrent failures on both instances are all counted: none is lost to a race.
    const codes = await Promise.all([services, other, services].map((over) => wrong(NEIGHBOUR, over)));
    expect(codes).toEqual(['INVALID_SECURITY_PASSWORD', 'INVALID_SECURITY_PASSWORD', 'INVALID_SECURITY_PASSWORD']);
    expect((await serviceErrorOf(call(password, NEIGHBOUR, other))).code).toBe('CALLER_THROTTLED');
    await expect(underTest.store.getThrottle('caller-address:198.51.100.7')).resolves.toMatchObject({ lockedUntil: START + 15 * MINUTE });
  });
}

describe('caller throttle on SQLite', () => callerThrottleSuite(sqliteUnderTest));

describeWithPostgres('caller throttle on PostgreSQL', () => callerThrottleSuite(postgresUnderTest));
