import { randomBytes } from 'node:crypto';
import { composeInstance } from '../../src/compose.js';
import { loadConfig } from '../../src/config/config.js';
import { checkDeploymentKey } from '../../src/service/deployment-key.js';
import { ServiceError } from '../../src/service/errors.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

let temp: Awaited<ReturnType<typeof tempSqliteStore>>;
beforeEach(async () => {
  temp = await tempSqliteStore();
});
afterEach(() => temp.cleanup());

test('the first key binds the store; the same key passes again', async () => {
  const key = randomBytes(32);
  await checkDeploymentKey(temp.store, key);
  await expect(checkDeploymentKey(temp.store, Buffer.from(key))).resolves.toBeUndefined();
});

test('another key is refused with the settings to fix, and the store keeps the first key', async () => {
  const first = randomBytes(32);
  await checkDeploymentKey(temp.store, first);
  const refused = await checkDeploymentKey(temp.store, randomBytes(32)).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ServiceError);
  expect((refused as ServiceError).code).toBe('SECRET_KEY_MISMATCH');
  expect((refused as Error).message).toMatch(/set SECRET_KEY .* or DATA_DIR/);
  await expect(checkDeploymentKey(temp.store, first)).resolves.toBeUndefined();
});

test('the store records a fingerprint, never the key', async () => {
  const key = randomBytes(32);
  await checkDeploymentKey(temp.store, key);
  const recorded = await temp.store.claimSetting('secret_key_fingerprint', 'other');
  for (const encoding of ['hex', 'base64', 'base64url'] as const) expect(recorded).not.toContain(key.toString(encoding));
  expect(recorded).toMatch(/^[A-Za-z0-9_-]{43}$/);
});

test('an instance composed with another key than the store was first used with does not start', async () => {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  await composeInstance({ config, store: temp.store, secretKey: randomBytes(32) });
  await expect(composeInstance({ config, store: temp.store, secretKey: randomBytes(32) })).rejects.toThrow(/not the one this database was first used with/);
});
