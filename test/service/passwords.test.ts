import { hash as argon2Hash } from '@node-rs/argon2';
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import {
  ARGON2_PARAMETERS,
  equalizeTiming,
  hashPassword,
  importedPasswordHash,
  needsRehash,
  PasswordHashError,
  verifyPassword,
} from '../../src/service/passwords.js';
import { b64, utf16le } from '../helpers/legacy-hashes.js';
import { cheapestCpuMs } from '../helpers/thread-cpu.js';

// Every expected hash below is computed here from the documented algorithm with node:crypto, byte layout
// written out by hand; the code under test only ever verifies them.

/** Outside ASCII and outside the BMP, so that UTF-16LE (membership) and UTF-8 (Identity) both matter. */
const PASSWORD = 'Correct horse 🐎 Pässwörd';
const WRONG = 'Correct horse 🐎 Passwörd';
/** 16 bytes, as SqlMembershipProvider generates its salts. */
const SALT = Buffer.from('8f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');

const bytesOf = (length: number, first: number) => Buffer.from(Array.from({ length }, (_, i) => (first + i * 7) % 256));

function unkeyed(digest: string, salt: Buffer): Buffer {
  return createHash(digest).update(Buffer.concat([salt, utf16le(PASSWORD)])).digest();
}

function keyed(digest: string, key: Buffer): Buffer {
  return createHmac(digest, key).update(utf16le(PASSWORD)).digest();
}

function identityV3(prf: number, iterations: number, salt: Buffer, subkey: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header[0] = 0x01;
  header.writeUInt32BE(prf, 1);
  header.writeUInt32BE(iterations, 5);
  header.writeUInt32BE(salt.length, 9);
  return Buffer.concat([header, salt, subkey]);
}

async function expectVerifies(stored: string): Promise<void> {
  await expect(verifyPassword(stored, PASSWORD)).resolves.toEqual({ ok: true, needsRehash: true });
  await expect(verifyPassword(stored, WRONG)).resolves.toEqual({ ok: false, needsRehash: false });
  expect(needsRehash(stored)).toBe(true);
}

describe('SqlMembershipProvider hashed passwords (PasswordFormat 1)', () => {
  it('verifies SHA1 of the salt followed by the UTF-16LE password, recognised by its 20 bytes', async () => {
    const digest = unkeyed('sha1', SALT);
    const stored = await importedPasswordHash('hashed', b64(digest), b64(SALT));
    expect(stored).toBe(`aspnet-membership$SHA1$${b64(SALT)}$${b64(digest)}`);
    await expectVerifies(stored);
  });

  it('verifies HMACSHA256 keyed with a 16-byte salt repeated to the 64-byte key, recognised by its 32 bytes', async () => {
    const digest = keyed('sha256', Buffer.concat([SALT, SALT, SALT, SALT]));
    const stored = await importedPasswordHash('hashed', b64(digest), b64(SALT));
    expect(stored).toBe(`aspnet-membership$HMACSHA256$${b64(SALT)}$${b64(digest)}`);
    await expectVerifies(stored);
    // Not the unkeyed layout, nor a key of the bare salt.
    await expect(verifyPassword(`aspnet-membership$HMACSHA256$${b64(SALT)}$${b64(keyed('sha256', SALT))}`, PASSWORD)).resolves.toEqual({
      ok: false,
      needsRehash: false,
    });
  });

  it('fits salts of other lengths to the HMAC key: repeated and cut, taken whole, or cut', async () => {
    const salt24 = bytesOf(24, 3);
    const salt64 = bytesOf(64, 5);
    const salt80 = bytesOf(80, 11);
    const cases: Array<[Buffer, Buffer]> = [
      [salt24, Buffer.concat([salt24, salt24, salt24.subarray(0, 16)])],
      [salt64, salt64],
      [salt80, salt80.subarray(0, 64)],
    ];
    for (const [salt, key] of cases) {
      await expectVerifies(await importedPasswordHash('hashed', b64(keyed('sha256', key)), b64(salt)));
    }
  });

  it('verifies the algorithms a provider could be configured with, when the import names them', async () => {
    const cases = [
      ['SHA256', unkeyed('sha256', SALT)],
      ['SHA512', unkeyed('sha512', SALT)],
      ['MD5', unkeyed('md5', SALT)],
      ['HMACSHA512', keyed('sha512', Buffer.concat(Array.from({ length: 8 }, () => SALT)))],
    ] as const;
    for (const [hashAlgorithm, digest] of cases) {
      const stored = await importedPasswordHash('hashed', b64(digest), b64(SALT), { hashAlgorithm });
      expect(stored).toBe(`aspnet-membership$${hashAlgorithm}$${b64(SALT)}$${b64(digest)}`);
      await expectVerifies(stored);
    }
  });
});

describe('ASP.NET Identity hashes', () => {
  it('verifies v2: 0x00, 16-byte salt, 32 bytes of PBKDF2-HMAC-SHA1 over 1000 iterations', async () => {
    const bytes = Buffer.concat([Buffer.from([0x00]), SALT, pbkdf2Sync(PASSWORD, SALT, 1000, 32, 'sha1')]);
    const stored = await importedPasswordHash('identity', b64(bytes), '');
    expect(stored).toBe(`aspnet-identity$${b64(bytes)}`);
    await expectVerifies(stored);
  });

  it.each([
    ['HMACSHA1', 0, 'sha1', 2000, 32, 20],
    ['HMACSHA256', 1, 'sha256', 10_000, 16, 32],
    ['HMACSHA512', 2, 'sha512', 100_000, 16, 32],
  ])('verifies v3 with %s: big-endian prf, iterations and salt length, salt, subkey', async (...vector) => {
    const [, prf, digest, iterations, saltLength, subkeyLength] = vector;
    const salt = bytesOf(saltLength, 17);
    const bytes = identityV3(prf, iterations, salt, pbkdf2Sync(PASSWORD, salt, iterations, subkeyLength, digest));
    await expectVerifies(await importedPasswordHash('identity', b64(bytes), ''));
  });

  // Published by dotnet/aspnetcore (src/Identity/test/Identity.Test/PasswordHasherTest.cs) for "my password".
  it.each([
    ['v2', 'AAABAgMEBQYHCAkKCwwNDg+ukCEMDf0yyQ29NYubggHIVY0sdEUfdyeM+E1LtH1uJg=='],
    ['v3 SHA1 250 iterations', 'AQAAAAAAAAD6AAAAEAhftMyfTJylOlZT+eEotFXd1elee8ih5WsjXaR3PA9M'],
    ['v3 SHA256 250000 iterations', 'AQAAAAEAA9CQAAAAIESkQuj2Du8Y+kbc5lcN/W/3NiAZFEm11P27nrSN5/tId+bR1SwV8CO1Jd72r4C08OLvplNlCDc3oQZ8efcW+jQ='],
    ['v3 SHA512 250 iterations, 64-byte subkey', 'AQAAAAIAAAD6AAAAIJbVi5wbMR+htSfFp8fTw8N8GOS/Sje+S/4YZcgBfU7EQuqv4OkVYmc4VJl9AGZzmRTxSkP7LtVi9IWyUxX8IAAfZ8v+ZfhjCcudtC1YERSqE1OEdXLW9VukPuJWBBjLuw=='],
    ['v3 SHA512 100000 iterations', 'AQAAAAIAAYagAAAAEAABAgMEBQYHCAkKCwwNDg/Q8A0WMKbtHQJQ2DHCdoEeeFBrgNlldq6vH4qX/CGqGQ=='],
  ])('verifies the published %s vector', async (_name, exported) => {
    await expect(verifyPassword(`aspnet-identity$${exported}`, 'my password')).resolves.toEqual({ ok: true, needsRehash: true });
    await expect(verifyPassword(`aspnet-identity$${exported}`, 'my passwort')).resolves.toEqual({ ok: false, needsRehash: false });
  });
});

describe('argon2id', () => {
  it('is OWASP’s minimum: 19 MiB, 2 passes, 1 lane', () => {
    expect(ARGON2_PARAMETERS).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
  });

  it('hashes with a fresh salt and the parameters embedded, and verifies', async () => {
    const stored = await hashPassword(PASSWORD);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await hashPassword(PASSWORD)).not.toBe(stored);
    await expect(verifyPassword(stored, PASSWORD)).resolves.toEqual({ ok: true, needsRehash: false });
    await expect(verifyPassword(stored, WRONG)).resolves.toEqual({ ok: false, needsRehash: false });
    expect(needsRehash(stored)).toBe(false);
  });

  it('needs a rehash when any stored parameter is below the current ones, and not when above', async () => {
    const weaker = [
      { memoryCost: 8192, timeCost: 2, parallelism: 1 },
      { memoryCost: 19456, timeCost: 1, parallelism: 1 },
    ];
    for (const parameters of weaker) {
      const stored = await argon2Hash(PASSWORD, parameters);
      expect(needsRehash(stored)).toBe(true);
      await expect(verifyPassword(stored, PASSWORD)).resolves.toEqual({ ok: true, needsRehash: true });
    }
    const stronger = await argon2Hash(PASSWORD, { memoryCost: 32768, timeCost: 3, parallelism: 2 });
    expect(needsRehash(stronger)).toBe(false);
    await expect(verifyPassword(stronger, PASSWORD)).resolves.toEqual({ ok: true, needsRehash: false });
  });

  it('imports an argon2id hash as it is', async () => {
    const stored = await argon2Hash(PASSWORD, ARGON2_PARAMETERS);
    await expect(importedPasswordHash('argon2id', stored, '')).resolves.toBe(stored);
  });

  // Measured in CPU time (the argon2 work runs on libuv's pool, test/helpers/thread-cpu.ts), the cheapest of five
  // runs each, taken in turn: what else runs on the machine makes a verification wait, not work. Beside two busy
  // loops on a 2-core machine with a load average of 16 (2026-11-28), the cheapest legacy or unknown-login
  // verification cost 0.82 to 1.10 times the cheapest argon2id one in ten runs of this test; one made with a single
  // pass (t=1) costs 0.5 to 0.65 times as much, with 8 MiB 0.3 times, a bare SHA1 nothing.
  it('makes an unknown login, and a wrong password for a legacy hash, cost what a wrong password costs (CPU time)', async () => {
    const stored = await hashPassword(PASSWORD);
    const legacy = await importedPasswordHash('hashed', b64(unkeyed('sha1', SALT)), b64(SALT));
    const [wrongPassword, unknownLogin, legacyHash] = await cheapestCpuMs(5, [
      () => verifyPassword(stored, WRONG),
      () => equalizeTiming(WRONG),
      () => verifyPassword(legacy, WRONG),
    ]);
    const ratios = { unknownLogin: unknownLogin / wrongPassword, legacyHash: legacyHash / wrongPassword };
    const within = (ratio: number) => ratio > 1 / 1.5 && ratio < 1.5;
    expect({ ratios, within: within(ratios.unknownLogin) && within(ratios.legacyHash) }).toEqual({ ratios, within: true });
  });
});

describe('a legacy hash at its first successful sign-in', () => {
  it('needs a rehash, after which the new argon2id hash verifies and needs none', async () => {
    const legacy = await importedPasswordHash('hashed', b64(unkeyed('sha1', SALT)), b64(SALT));
    const first = await verifyPassword(legacy, PASSWORD);
    expect(first).toEqual({ ok: true, needsRehash: true });
    const rehashed = await hashPassword(PASSWORD);
    await expect(verifyPassword(rehashed, PASSWORD)).resolves.toEqual({ ok: true, needsRehash: false });
  });
});

describe('stored values that do not decode', () => {
  const sha1 = b64(unkeyed('sha1', SALT));
  const v2 = Buffer.concat([Buffer.from([0x00]), SALT, pbkdf2Sync(PASSWORD, SALT, 1000, 32, 'sha1')]);
  const v3 = identityV3(1, 1000, SALT, pbkdf2Sync(PASSWORD, SALT, 1000, 32, 'sha256'));
  const withByte = (bytes: Buffer, offset: number, value: number) => {
    const copy = Buffer.from(bytes);
    copy.writeUInt32BE(value, offset);
    return copy;
  };

  it('starts from values that verify', async () => {
    for (const stored of [`aspnet-identity$${b64(v2)}`, `aspnet-identity$${b64(v3)}`]) {
      await expect(verifyPassword(stored, PASSWORD)).resolves.toEqual({ ok: true, needsRehash: true });
    }
  });

  it.each([
    ['empty', ''],
    ['untagged', sha1],
    ['clear text', PASSWORD],
    ['membership without its hash', `aspnet-membership$SHA1$${b64(SALT)}`],
    ['membership with an extra field', `aspnet-membership$SHA1$${b64(SALT)}$${sha1}$x`],
    ['membership with an unknown algorithm', `aspnet-membership$ROT13$${b64(SALT)}$${sha1}`],
    ['membership with a truncated hash', `aspnet-membership$SHA1$${b64(SALT)}$${b64(unkeyed('sha1', SALT).subarray(0, 19))}`],
    ['membership with garbled base64', `aspnet-membership$SHA1$${b64(SALT)}$${sha1.slice(0, -3)}*==`],
    ['membership with an empty salt', `aspnet-membership$SHA1$$${sha1}`],
    ['Identity v2 truncated', `aspnet-identity$${b64(v2.subarray(0, 48))}`],
    ['Identity v2 with a byte too many', `aspnet-identity$${b64(Buffer.concat([v2, Buffer.from([0])]))}`],
    ['Identity v3 header only', `aspnet-identity$${b64(v3.subarray(0, 13))}`],
    ['Identity v3 with a 15-byte subkey', `aspnet-identity$${b64(v3.subarray(0, 13 + 16 + 15))}`],
    ['Identity v3 whose salt length passes its end', `aspnet-identity$${b64(withByte(v3, 9, 0xffffffff))}`],
    ['Identity v3 with an unknown prf', `aspnet-identity$${b64(withByte(v3, 1, 3))}`],
    ['Identity v3 with zero iterations', `aspnet-identity$${b64(withByte(v3, 5, 0))}`],
    ['Identity v3 with four billion iterations', `aspnet-identity$${b64(withByte(v3, 5, 0xffffffff))}`],
    ['Identity with an unknown marker', `aspnet-identity$${b64(Buffer.concat([Buffer.from([0x02]), v2.subarray(1)]))}`],
    ['Identity with two fields', `aspnet-identity$${b64(v2)}$${b64(v2)}`],
    ['argon2id truncated', '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ'],
    ['argon2i', '$argon2i$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXphYmNkZWY'],
  ])('%s: matches no password and never throws', async (_name, stored) => {
    await expect(verifyPassword(stored, PASSWORD)).resolves.toEqual({ ok: false, needsRehash: false });
    expect(needsRehash(stored)).toBe(false);
  });

  it('includes a garbled argon2id hash', async () => {
    const stored = await hashPassword(PASSWORD);
    for (const garbled of [stored.slice(0, -5), `${stored.slice(0, 30)}!${stored.slice(31)}`]) {
      await expect(verifyPassword(garbled, PASSWORD)).resolves.toEqual({ ok: false, needsRehash: false });
    }
  });
});

describe('importing a password', () => {
  async function reasonOf(promise: Promise<string>): Promise<string> {
    const error = await promise.then(
      () => new Error('expected a refusal'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PasswordHashError);
    return (error as Error).message;
  }
  const sha1 = b64(unkeyed('sha1', SALT));

  it('hashes a clear password (format 0) to argon2id at once', async () => {
    const stored = await importedPasswordHash('clear', PASSWORD, b64(SALT));
    expect(stored.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    await expect(verifyPassword(stored, PASSWORD)).resolves.toEqual({ ok: true, needsRehash: false });
  });

  it('refuses encrypted passwords (format 2) with what to do instead', async () => {
    expect(await reasonOf(importedPasswordHash('encrypted', sha1, b64(SALT)))).toBe(
      'encrypted passwords (PasswordFormat 2) cannot be imported: reset them or decrypt them with the old machine key first',
    );
  });

  it('says what is wrong with a malformed hash or salt, without repeating it', async () => {
    const cases: Array<[Promise<string>, string]> = [
      [importedPasswordHash('hashed', 'not base64!', b64(SALT)), 'the hash is not valid base64'],
      [importedPasswordHash('hashed', sha1, 'c2FsdA'), 'the salt is not valid base64'],
      [importedPasswordHash('hashed', sha1, ''), 'the salt is missing'],
      [
        importedPasswordHash('hashed', b64(SALT), b64(SALT)),
        'a 16-byte hash is neither SHA1 (20 bytes) nor HMACSHA256 (32 bytes): name its hash algorithm',
      ],
      [importedPasswordHash('hashed', sha1, b64(SALT), { hashAlgorithm: 'SHA256' }), 'a SHA256 hash is 32 bytes long, this one 20'],
      [importedPasswordHash('identity', b64(Buffer.alloc(48)), ''), 'an ASP.NET Identity v2 hash is 49 bytes long, this one 48'],
      [importedPasswordHash('identity', b64(Buffer.from([0x01, 0, 0])), ''), 'the ASP.NET Identity v3 hash is too short'],
      [importedPasswordHash('identity', b64(Buffer.from([0x05, 0, 0])), ''), 'an ASP.NET Identity hash starts with 0x00 (v2) or 0x01 (v3)'],
      [importedPasswordHash('identity', b64(Buffer.alloc(49)), b64(SALT)), 'identity hashes carry their own salt: leave the salt empty'],
      [importedPasswordHash('argon2id', sha1, ''), 'an argon2id hash starts with $argon2id$'],
      [importedPasswordHash('argon2id', '$argon2id$v=19$m=19456', ''), 'not a valid argon2id hash'],
    ];
    for (const [promise, reason] of cases) expect(await reasonOf(promise)).toBe(reason);
  });
});
