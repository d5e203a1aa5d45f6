import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Services } from '../../src/service/index.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { servicesOver, tempServices } from '../helpers/test-services.js';

const START = Date.UTC(2026, 0, 1);

let now = START;
const clock = () => now;
let store: Store;
let cleanup: () => Promise<void>;
let services: Services;

beforeEach(async () => {
  now = START;
  ({ store, services, cleanup } = await tempServices({ clock }));
});
afterEach(() => cleanup());

const errorOf = serviceErrorOf;

async function expectInvalidPassword(password: string | null): Promise<void> {
  const error = await errorOf(services.callers.verify(password));
  expect(error.code).toBe('INVALID_SECURITY_PASSWORD');
  expect(error.message).toBe('Invalid security password');
}

describe('add', () => {
  it('generates a high-entropy URL-safe password (at least 40 characters) that verifies', async () => {
    const issued = await services.callers.add('shop');
    expect(issued.password.length).toBeGreaterThanOrEqual(40);
    expect(issued.password).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(issued.caller).toMatchObject({ name: 'shop', enabled: true, createdAt: START });
    await expect(services.callers.verify(issued.password)).resolves.toMatchObject({ id: issued.caller.id, name: 'shop', enabled: true });
  });

  it('generates a different password for each caller', async () => {
    const a = await services.callers.add('shop');
    const b = await services.callers.add('forum');
    expect(a.password).not.toBe(b.password);
    await expect(services.callers.verify(b.password)).resolves.toMatchObject({ name: 'forum' });
  });

  it('accepts a supplied password, which then verifies', async () => {
    const issued = await services.callers.add('legacy', 'old-asmx-password');
    expect(issued.password).toBe('old-asmx-password');
    await expect(services.callers.verify('old-asmx-password')).resolves.toMatchObject({ name: 'legacy' });
  });

  it('accepts a supplied password of exactly 6 characters', async () => {
    await services.callers.add('legacy', 'abcdef');
    await expect(services.callers.verify('abcdef')).resolves.toMatchObject({ name: 'legacy' });
  });

  it('refuses a duplicate name with CALLER_EXISTS and keeps the first caller', async () => {
    const first = await services.callers.add('shop');
    expect((await errorOf(services.callers.add('shop'))).code).toBe('CALLER_EXISTS');
    expect((await services.callers.list()).map((c) => c.name)).toEqual(['shop']);
    await expect(services.callers.verify(first.password)).resolves.toMatchObject({ name: 'shop' });
  });

  it('refuses a password already used by another caller with CALLER_EXISTS, creating nothing', async () => {
    await services.callers.add('shop', 'shared-password');
    expect((await errorOf(services.callers.add('forum', 'shared-password'))).code).toBe('CALLER_EXISTS');
    expect((await services.callers.list()).map((c) => c.name)).toEqual(['shop']);
    await expect(services.callers.verify('shared-password')).resolves.toMatchObject({ name: 'shop' });
  });

  it('refuses a supplied password shorter than 6 characters with CALLER_PASSWORD_TOO_SHORT, creating nothing', async () => {
    expect((await errorOf(services.callers.add('shop', 'abcde'))).code).toBe('CALLER_PASSWORD_TOO_SHORT');
    expect((await errorOf(services.callers.add('shop', ''))).code).toBe('CALLER_PASSWORD_TOO_SHORT');
    expect(await services.callers.list()).toEqual([]);
  });
});

describe('verify', () => {
  beforeEach(async () => {
    await services.callers.add('shop', 'right-password');
  });

  it('refuses a wrong password with INVALID_SECURITY_PASSWORD, message exactly "Invalid security password"', async () => {
    await expectInvalidPassword('wrong-password');
  });

  it('refuses a password differing only in case', async () => {
    await expectInvalidPassword('RIGHT-PASSWORD');
  });

  it('refuses a null password with INVALID_SECURITY_PASSWORD', async () => {
    await expectInvalidPassword(null);
  });

  it('refuses an empty password with INVALID_SECURITY_PASSWORD', async () => {
    await expectInvalidPassword('');
  });
});

describe('rotate', () => {
  it('adds a new password and keeps the old one valid', async () => {
    const first = await services.callers.add('shop');
    const second = await services.callers.rotate('shop');
    expect(second.password).not.toBe(first.password);
    expect(second.password.length).toBeGreaterThanOrEqual(40);
    await expect(services.callers.verify(first.password)).resolves.toMatchObject({ name: 'shop' });
    await expect(services.callers.verify(second.password)).resolves.toMatchObject({ name: 'shop' });
    const [listed] = await services.callers.list();
    expect(listed?.passwords.map((p) => p.id)).toEqual([first.passwordId, second.passwordId]);
  });

  it('accepts a supplied password', async () => {
    await services.callers.add('shop');
    await services.callers.rotate('shop', { password: 'new-supplied-password' });
    await expect(services.callers.verify('new-supplied-password')).resolves.toMatchObject({ name: 'shop' });
  });

  it('with retireOthers, retires the old passwords', async () => {
    const first = await services.callers.add('shop');
    const second = await services.callers.rotate('shop');
    const third = await services.callers.rotate('shop', { retireOthers: true });
    await expectInvalidPassword(first.password);
    await expectInvalidPassword(second.password);
    await expect(services.callers.verify(third.password)).resolves.toMatchObject({ name: 'shop' });
    const [listed] = await services.callers.list();
    expect(listed?.passwords.map((p) => p.id)).toEqual([third.passwordId]);
  });

  it('with retireOthers, leaves the other callers alone', async () => {
    const forum = await services.callers.add('forum');
    await services.callers.add('shop');
    await services.callers.rotate('shop', { retireOthers: true });
    await expect(services.callers.verify(forum.password)).resolves.toMatchObject({ name: 'forum' });
  });

  it('refuses a password in use by another caller and a too-short one', async () => {
    await services.callers.add('forum', 'forum-password');
    await services.callers.add('shop');
    expect((await errorOf(services.callers.rotate('shop', { password: 'forum-password' }))).code).toBe('CALLER_EXISTS');
    expect((await errorOf(services.callers.rotate('shop', { password: 'short' }))).code).toBe('CALLER_PASSWORD_TOO_SHORT');
    const shop = (await services.callers.list()).find((c) => c.name === 'shop');
    expect(shop?.passwords).toHaveLength(1);
  });

  it('of an unknown caller throws CALLER_NOT_FOUND', async () => {
    expect((await errorOf(services.callers.rotate('ghost'))).code).toBe('CALLER_NOT_FOUND');
  });
});

describe('retireOldPasswords', () => {
  it('keeps only the newest password and returns how many it retired', async () => {
    const first = await services.callers.add('shop');
    const second = await services.callers.rotate('shop');
    const third = await services.callers.rotate('shop');
    expect(await services.callers.retireOldPasswords('shop')).toBe(2);
    await expectInvalidPassword(first.password);
    await expectInvalidPassword(second.password);
    await expect(services.callers.verify(third.password)).resolves.toMatchObject({ name: 'shop' });
    expect(await services.callers.retireOldPasswords('shop')).toBe(0);
  });
});

describe('enable, disable, remove', () => {
  it('a disabled caller is refused with INVALID_SECURITY_PASSWORD, and enabling restores it', async () => {
    const { password } = await services.callers.add('shop');
    expect(await services.callers.setEnabled('shop', false)).toMatchObject({ name: 'shop', enabled: false });
    await expectInvalidPassword(password);
    expect((await services.callers.list())[0]?.enabled).toBe(false);
    await services.callers.setEnabled('shop', true);
    await expect(services.callers.verify(password)).resolves.toMatchObject({ name: 'shop', enabled: true });
  });

  it('a removed caller is refused and its name can be used again', async () => {
    const { password } = await services.callers.add('shop');
    await services.callers.remove('shop');
    await expectInvalidPassword(password);
    expect(await services.callers.list()).toEqual([]);
    const again = await services.callers.add('shop', password);
    await expect(services.callers.verify(again.password)).resolves.toMatchObject({ name: 'shop' });
  });

  it('setEnabled and remove of an unknown caller throw CALLER_NOT_FOUND', async () => {
    expect((await errorOf(services.callers.setEnabled('ghost', false))).code).toBe('CALLER_NOT_FOUND');
    expect((await errorOf(services.callers.remove('ghost'))).code).toBe('CALLER_NOT_FOUND');
  });
});

describe('origins', () => {
  it('removing an origin the caller has not registered throws CALLER_ORIGIN_NOT_FOUND with the origin, and keeps the others', async () => {
    await services.callers.add('shop');
    await services.callers.addOrigin('shop', 'https://shop.example.org');
    const error = await errorOf(services.callers.removeOrigin('shop', 'https://OTHER.example.org'));
    expect([error.code, error.message]).toEqual(['CALLER_ORIGIN_NOT_FOUND', 'The caller has not registered this origin: https://other.example.org']);
    await expect(services.callers.listOrigins('shop')).resolves.toMatchObject([{ origin: 'https://shop.example.org' }]);
    await services.callers.removeOrigin('shop', 'https://shop.example.org');
    await expect(services.callers.listOrigins('shop')).resolves.toEqual([]);
  });
});

describe('secrecy', () => {
  it('no listed field holds the password', async () => {
    const generated = await services.callers.add('shop');
    const rotated = await services.callers.rotate('shop', { password: 'supplied-secret-password' });
    const dump = JSON.stringify([await services.callers.list(), await store.listCallers(), await store.listCallerPasswords(generated.caller.id)]);
    expect(dump).not.toContain(generated.password);
    expect(dump).not.toContain(rotated.password);
  });

  it('the database files on disk hold only hashes of the passwords', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-callers-'));
    try {
      const own = await openStore({ dataDir });
      const s = servicesOver(own, { clock });
      const generated = await s.callers.add('shop');
      await s.callers.add('legacy', 'CLEARTEXT-CALLER-PASSWORD-4711');
      await expect(s.callers.verify('CLEARTEXT-CALLER-PASSWORD-4711')).resolves.toMatchObject({ name: 'legacy' });
      const files = await readdir(dataDir);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const bytes = await readFile(join(dataDir, file));
        expect(bytes.includes(generated.password)).toBe(false);
        expect(bytes.includes('CLEARTEXT-CALLER-PASSWORD-4711')).toBe(false);
      }
      await own.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('a password added under one key does not verify under another key', async () => {
    const { password } = await services.callers.add('shop');
    const other = servicesOver(store, { secretKey: randomBytes(32), clock });
    const error = await errorOf(other.callers.verify(password));
    expect(error.code).toBe('INVALID_SECURITY_PASSWORD');
  });
});
