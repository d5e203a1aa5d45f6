/**
 * Issuing and reading Forms cookies (src/service/forms-ticket/ticket.ts) in every mode and algorithm: what is
 * issued is read back, and its bytes are laid out as System.Web lays them, checked here with Node's crypto
 * directly rather than with the module's own helpers. For the combinations without a .NET vector (see
 * dotnet-vectors.test.ts) this layout check and the round trip are what shows compatibility.
 */
import { createDecipheriv, createHmac } from 'node:crypto';
import { deriveKeyForPurpose } from '../../../src/service/forms-ticket/kdf.js';
import { machineKey, type MachineKeySettings } from '../../../src/service/forms-ticket/machine-key.js';
import { serializeTicket } from '../../../src/service/forms-ticket/serializer.js';
import { issueFormsTicket, MAX_COOKIE_LENGTH, readFormsTicket } from '../../../src/service/forms-ticket/ticket.js';
import { MAX_TICKS, ticksFromDate } from '../../../src/service/forms-ticket/ticks.js';
import { fc } from '../../helpers/seeded-fast-check.js';
import { NOW, SESSION_MINUTES, TICKET } from './sample-ticket.js';


const MODES = ['Framework45', 'Framework20SP1', 'Framework20SP2'] as const;
const VALIDATIONS = [
  ['SHA1', 'sha1', 20],
  ['HMACSHA256', 'sha256', 32],
  ['HMACSHA384', 'sha384', 48],
  ['HMACSHA512', 'sha512', 64],
] as const;
const DECRYPTIONS = [
  ['AES', 16, 'aes-128-cbc', 16],
  ['AES', 24, 'aes-192-cbc', 16],
  ['AES', 32, 'aes-256-cbc', 16],
  ['3DES', 16, 'des-ede-cbc', 8],
  ['3DES', 24, 'des-ede3-cbc', 8],
] as const;

const COMBINATIONS = MODES.flatMap((mode) =>
  VALIDATIONS.flatMap(([validation, hash, macSize]) =>
    DECRYPTIONS.map(([decryption, keyBytes, cipher, blockSize]) => ({
      label: `${mode} ${validation} ${decryption}-${keyBytes * 8}`,
      settings: {
        compatibilityMode: mode,
        validation,
        validationKey: '3C'.repeat(48),
        decryption,
        decryptionKey: '5A6B'.repeat(keyBytes / 2),
      } satisfies MachineKeySettings,
      hash,
      macSize,
      cipher,
      blockSize,
    })),
  ),
);

const hmac = (hash: string, key: Buffer, data: Buffer) => createHmac(hash, key).update(data).digest();
function decrypt(cipher: string, key: Buffer, iv: Buffer, data: Buffer): Buffer {
  const decipher = createDecipheriv(cipher, key, iv);
  return Buffer.concat([decipher.update(data), decipher.final()]);
}

describe.each(COMBINATIONS.map((combination) => [combination.label, combination] as const))('%s', (_label, combination) => {
  const { settings, hash, macSize, cipher, blockSize } = combination;
  const key = machineKey(settings);
  const issued = issueFormsTicket(key, TICKET);
  if (!issued.ok) throw new Error(issued.reason);
  const blob = Buffer.from(issued.cookie, 'hex');

  it('issues upper-case hex that is read back as the same ticket', () => {
    expect(issued.cookie).toMatch(/^[0-9A-F]+$/);
    expect(readFormsTicket(key, issued.cookie, NOW)).toEqual({ ok: true, ticket: TICKET });
  });

  it('lays the bytes out as System.Web does', () => {
    const plaintext = serializeTicket(TICKET);
    const mac = blob.subarray(blob.length - macSize);
    if (settings.compatibilityMode === 'Framework45') {
      // IV || CBC(derived key, IV, ticket) || HMAC(derived key, IV || ciphertext)
      const validationKey = deriveKeyForPurpose(Buffer.from(settings.validationKey, 'hex'), 'FormsAuthentication.Ticket');
      const decryptionKey = deriveKeyForPurpose(Buffer.from(settings.decryptionKey, 'hex'), 'FormsAuthentication.Ticket');
      const signed = blob.subarray(0, blob.length - macSize);
      expect(mac).toEqual(hmac(hash, validationKey, signed));
      expect(decrypt(cipher, decryptionKey, signed.subarray(0, blockSize), signed.subarray(blockSize))).toEqual(plaintext);
    } else {
      // CBC(key, zero IV, prefix as long as the key || ticket || HMAC(ticket)) || HMAC(ciphertext)
      const validationKey = Buffer.from(settings.validationKey, 'hex');
      const decryptionKey = Buffer.from(settings.decryptionKey, 'hex');
      const ciphertext = blob.subarray(0, blob.length - macSize);
      expect(mac).toEqual(hmac(hash, validationKey, ciphertext));
      const decrypted = decrypt(cipher, decryptionKey, Buffer.alloc(blockSize), ciphertext);
      expect(decrypted.subarray(decryptionKey.length)).toEqual(Buffer.concat([plaintext, hmac(hash, validationKey, plaintext)]));
    }
  });

  it('draws a new IV or prefix for each cookie', () => {
    const again = issueFormsTicket(key, TICKET);
    expect(again.ok && again.cookie).not.toBe(issued.cookie);
    if (settings.compatibilityMode === 'Framework45') expect(again.ok && again.cookie.slice(0, blockSize * 2)).not.toBe(issued.cookie.slice(0, blockSize * 2));
  });

  it('is refused when any one bit of it is flipped', () => {
    fc.assert(
      fc.property(fc.nat({ max: blob.length * 8 - 1 }), (bit) => {
        const flipped = Buffer.from(blob);
        flipped[bit >> 3] = (flipped[bit >> 3] ?? 0) ^ (1 << (bit & 7));
        expect(readFormsTicket(key, flipped.toString('hex').toUpperCase(), NOW)).toEqual({ ok: false, reason: 'bad-signature' });
      }),
      { numRuns: 50 },
    );
  });
});

describe('any ticket', () => {
  const text = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength: 60 });
  const combination = fc.constantFrom(...COMBINATIONS);
  const tickets = fc.record({
    version: fc.integer({ min: 0, max: 255 }),
    name: text,
    issueTicks: fc.bigInt({ min: 0n, max: ticksFromDate(NOW) }),
    expirationTicks: fc.bigInt({ min: ticksFromDate(NOW), max: MAX_TICKS }),
    isPersistent: fc.boolean(),
    userData: text,
    cookiePath: text,
  });

  it('is read back as issued, in every mode and algorithm', () => {
    fc.assert(
      fc.property(combination, tickets, ({ settings }, ticket) => {
        const key = machineKey(settings);
        const issued = issueFormsTicket(key, ticket);
        if (!issued.ok) throw new Error(issued.reason);
        expect(readFormsTicket(key, issued.cookie, NOW)).toEqual({ ok: true, ticket });
      }),
    );
  });
});

describe('issueFormsTicket', () => {
  const key = machineKey(COMBINATIONS[0]!.settings);

  it('refuses a ticket whose cookie would pass the 4096 characters the site reads', () => {
    const near = issueFormsTicket(key, { ...TICKET, userData: 'x'.repeat(850) });
    const over = issueFormsTicket(key, { ...TICKET, userData: 'x'.repeat(1000) });
    expect(near.ok && near.cookie.length).toBeLessThanOrEqual(MAX_COOKIE_LENGTH);
    expect(over).toEqual({ ok: false, reason: 'too-long' });
  });

  it('throws on a version or date .NET cannot hold', () => {
    expect(() => issueFormsTicket(key, { ...TICKET, version: 300 })).toThrow(RangeError);
    expect(() => issueFormsTicket(key, { ...TICKET, expirationTicks: -1n })).toThrow(RangeError);
  });
});

describe('readFormsTicket', () => {
  const key = machineKey(COMBINATIONS[0]!.settings);
  const issued = issueFormsTicket(key, TICKET);
  const cookie = issued.ok ? issued.cookie : '';

  it('reads a ticket up to its expiration and not after', () => {
    const expiration = NOW.getTime() + SESSION_MINUTES * 60_000;
    expect(readFormsTicket(key, cookie, new Date(expiration)).ok).toBe(true);
    expect(readFormsTicket(key, cookie, new Date(expiration + 1))).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a cookie made with another key', () => {
    const other = machineKey({ ...COMBINATIONS[0]!.settings, validationKey: '4D'.repeat(48) });
    expect(readFormsTicket(other, cookie, NOW)).toEqual({ ok: false, reason: 'bad-signature' });
  });
});
