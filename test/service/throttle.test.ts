import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyedThrottle, SignInThrottle } from '../../src/service/throttle.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const START = Date.UTC(2026, 0, 1);
/** 3 failures per account, 5 per address, within 10 minutes; locked for 15. */
const POLICY = { accountFailures: 3, addressFailures: 5, windowSeconds: 600, lockoutSeconds: 900 };

let store: Store;
let cleanup: () => Promise<void>;
let throttle: SignInThrottle;

beforeEach(async () => {
  ({ store, cleanup } = await tempSqliteStore());
  throttle = new SignInThrottle(store, POLICY);
});
afterEach(() => cleanup());

async function fail(times: number, login: string, address: string, at = START) {
  let last = null;
  for (let i = 0; i < times; i += 1) last = await throttle.failure(login, address, at);
  return last;
}

describe('per account', () => {
  it('locks the login after its threshold, whatever the letter case, for the lockout period', async () => {
    expect(await fail(2, 'Ada', '192.0.2.1')).toBeNull();
    await expect(throttle.check('ada', '192.0.2.1', START)).resolves.toBeNull();
    expect(await throttle.failure('ADA ', '192.0.2.2', START)).toEqual({ retryAfterSeconds: 900 });
    await expect(throttle.check('ada', '198.51.100.7', START + MINUTE)).resolves.toEqual({ retryAfterSeconds: 840 });
    await expect(throttle.check('bob', '198.51.100.7', START + MINUTE)).resolves.toBeNull();
  });

  it('lets the lock expire, and then counts from zero again', async () => {
    await fail(3, 'ada', '192.0.2.1');
    const expiry = START + 15 * MINUTE;
    await expect(throttle.check('ada', '192.0.2.1', expiry - SECOND)).resolves.toEqual({ retryAfterSeconds: 1 });
    await expect(throttle.check('ada', '192.0.2.1', expiry)).resolves.toBeNull();
    expect(await fail(2, 'ada', '192.0.2.1', expiry)).toBeNull();
    expect(await throttle.failure('ada', '192.0.2.1', expiry)).toEqual({ retryAfterSeconds: 900 });
  });

  it('forgets failures older than the window', async () => {
    await fail(2, 'ada', '192.0.2.1');
    expect(await throttle.failure('ada', '192.0.2.1', START + 10 * MINUTE)).toBeNull();
    await expect(throttle.check('ada', '192.0.2.1', START + 10 * MINUTE)).resolves.toBeNull();
  });

  it('success clears the account, not the address', async () => {
    await fail(2, 'ada', '192.0.2.1');
    await fail(2, 'bob', '192.0.2.1');
    await throttle.success('ADA');
    expect(await fail(2, 'ada', '198.51.100.7')).toBeNull();
    // The address kept its four failures: a fifth, on any login, locks it.
    expect(await throttle.failure('carol', '192.0.2.1', START)).toEqual({ retryAfterSeconds: 900 });
  });
});

describe('per address', () => {
  it('locks the address after its threshold across many logins, and only that address', async () => {
    for (const login of ['a', 'b', 'c', 'd']) expect(await throttle.failure(login, '192.0.2.1', START)).toBeNull();
    expect(await throttle.failure('e', '192.0.2.1', START)).toEqual({ retryAfterSeconds: 900 });
    await expect(throttle.check('someone-else', '192.0.2.1', START)).resolves.toEqual({ retryAfterSeconds: 900 });
    await expect(throttle.check('someone-else', '192.0.2.2', START)).resolves.toBeNull();
  });

  it('reports the longer of two locks', async () => {
    await fail(3, 'ada', '192.0.2.1', START);
    await fail(5, 'x', '192.0.2.9', START + 5 * MINUTE);
    await expect(throttle.check('ada', '192.0.2.9', START + 5 * MINUTE)).resolves.toEqual({ retryAfterSeconds: 900 });
  });
});

describe('shared state', () => {
  it('lives in the store: another throttle over the same store (another instance) sees the lock', async () => {
    await fail(3, 'ada', '192.0.2.1');
    const other = new SignInThrottle(store, POLICY);
    await expect(other.check('ada', '203.0.113.5', START)).resolves.toEqual({ retryAfterSeconds: 900 });
    await expect(store.getThrottle('account:ada')).resolves.toMatchObject({ lockedUntil: START + 15 * MINUTE });
  });

  it('survives a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-'));
    try {
      const before = await openStore({ dataDir });
      for (let i = 0; i < 3; i += 1) await new SignInThrottle(before, POLICY).failure('ada', '192.0.2.1', START);
      await before.close();
      const after = await openStore({ dataDir });
      await expect(new SignInThrottle(after, POLICY).check('ada', '192.0.2.1', START)).resolves.toEqual({ retryAfterSeconds: 900 });
      await after.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('KeyedThrottle', () => {
  it('takes its own key prefix and threshold, for reuse beyond sign-in', async () => {
    const callers = new KeyedThrottle(store, { prefix: 'caller-address', maxFailures: 2, windowSeconds: 60, lockoutSeconds: 30 });
    expect(await callers.failure('192.0.2.1', START)).toBeNull();
    expect(await callers.failure('192.0.2.1', START)).toEqual({ retryAfterSeconds: 30 });
    await expect(store.getThrottle('caller-address:192.0.2.1')).resolves.toMatchObject({ lockedUntil: START + 30 * SECOND });
    await expect(throttle.check('x', '192.0.2.1', START)).resolves.toBeNull();
    await callers.clear('192.0.2.1');
    await expect(callers.check('192.0.2.1', START)).resolves.toBeNull();
  });
});
