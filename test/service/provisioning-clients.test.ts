import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { CALL } from '../helpers/call-context.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { servicesOver } from '../helpers/test-services.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

const ADDRESS = '192.0.2.30';
const POLICY = { maxFailures: 3, windowSeconds: 600, lockoutSeconds: 900 };

let store: Store;
let cleanup: () => Promise<void>;
let now: number;
const clock = () => now;
const key = randomBytes(32);
/** Two instances of one deployment over one store, each with its own caches of CACHE_TTL_MS = 1 s. */
let here: Services;
let there: Services;

beforeEach(async () => {
  ({ store, cleanup } = await tempSqliteStore());
  now = Date.UTC(2026, 0, 1);
  const options = { secretKey: key, clock, cacheTtlMs: 1000, callerThrottle: POLICY };
  here = servicesOver(store, options);
  there = servicesOver(store, options);
});
afterEach(() => cleanup());

async function added(name: string): Promise<string> {
  return (await here.provisioners.add(name)).token;
}

describe('provisioning client tokens', () => {
  test('stored only as a keyed hash: the database holds neither the token nor an unkeyed hash of it', async () => {
    const token = await added('entra');
    const [row] = await store.listProvisioningClients();
    expect(row).toEqual({ id: expect.any(Number), name: 'entra', createdAt: now });
    const other = servicesOver(store, { secretKey: randomBytes(32), clock });
    await expect(other.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: false, retryAfterSeconds: null });
    await expect(store.findProvisioningClientByTokenHash(token)).resolves.toBeNull();
  });

  test('a name is taken once, and a name no client has is refused: by the service\'s error codes, with the name', async () => {
    const token = await added('entra');
    const taken = await serviceErrorOf(here.provisioners.add('entra'));
    expect([taken.code, taken.message]).toEqual(['PROVISIONING_CLIENT_EXISTS', 'A provisioning client with this name already exists: entra']);
    await expect(here.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: true, client: 'entra' });
    for (const refused of [here.provisioners.rotate('okta'), here.provisioners.remove('okta')]) {
      const error = await serviceErrorOf(refused);
      expect([error.code, error.message]).toEqual(['PROVISIONING_CLIENT_NOT_FOUND', 'No provisioning client has this name: okta']);
    }
  });

  test('rotated or removed here: refused here at once, on another instance within CACHE_TTL_MS', async () => {
    const token = await added('entra');
    await expect(there.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: true, client: 'entra' });
    const rotated = await here.provisioners.rotate('entra');
    await expect(here.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: false, retryAfterSeconds: null });
    await expect(there.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: true, client: 'entra' });
    now += 1000;
    await expect(there.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: false, retryAfterSeconds: null });
    await expect(there.provisioners.authenticate(rotated.token, ADDRESS)).resolves.toEqual({ ok: true, client: 'entra' });
  });

  test('SCIM is on while a client exists: seen here at once, there within CACHE_TTL_MS', async () => {
    await expect(there.provisioners.anyExist()).resolves.toBe(false);
    await added('entra');
    await expect(here.provisioners.anyExist()).resolves.toBe(true);
    await expect(there.provisioners.anyExist()).resolves.toBe(false);
    now += 1000;
    await expect(there.provisioners.anyExist()).resolves.toBe(true);
    await here.provisioners.remove('entra');
    await expect(here.provisioners.anyExist()).resolves.toBe(false);
  });
});

describe('wrong tokens, per client address', () => {
  test('lock the address after the policy\'s failures: the right token is refused too until the lock ends', async () => {
    const token = await added('entra');
    for (let i = 0; i < POLICY.maxFailures; i++) await expect(here.provisioners.authenticate('guess', ADDRESS)).resolves.toEqual({ ok: false, retryAfterSeconds: null });
    await expect(here.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: false, retryAfterSeconds: POLICY.lockoutSeconds });
    await expect(here.provisioners.authenticate(token, '192.0.2.31')).resolves.toEqual({ ok: true, client: 'entra' });
    now += POLICY.lockoutSeconds * 1000;
    await expect(here.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: true, client: 'entra' });
  });

  test('are counted apart from wrong security passwords: a locked SCIM address still calls the operations', async () => {
    const token = await added('entra');
    const { password } = await here.callers.add('portal');
    for (let i = 0; i < POLICY.maxFailures; i++) await here.provisioners.authenticate('guess', ADDRESS);
    await expect(here.provisioners.authenticate(token, ADDRESS)).resolves.toMatchObject({ ok: false });
    const outcome = await here.authentication.authenticateToken({ securityPassword: password, token: 'no-such-session' }, { ...CALL, clientAddress: ADDRESS });
    expect(outcome).toMatchObject({ kind: 'refused', caller: 'portal' });
  });
});
