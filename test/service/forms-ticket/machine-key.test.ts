/**
 * A <machineKey> turned into keys (src/service/forms-ticket/machine-key.ts): the derived keys of the 4.5 mode,
 * the raw keys of the legacy one, and the clear refusal of what System.Web would not take or this service
 * cannot do, without ever quoting a key.
 */
import { deriveKeyForPurpose } from '../../../src/service/forms-ticket/kdf.js';
import { machineKey, MachineKeyError, type MachineKeySettings } from '../../../src/service/forms-ticket/machine-key.js';

const VALIDATION_KEY = 'A1'.repeat(64);
const DECRYPTION_KEY = 'B2'.repeat(32);
const SETTINGS: MachineKeySettings = {
  validationKey: VALIDATION_KEY,
  decryptionKey: DECRYPTION_KEY,
  validation: 'HMACSHA256',
  decryption: 'AES',
  compatibilityMode: 'Framework45',
};

describe('Framework45', () => {
  it('derives both keys for FormsAuthentication.Ticket, as long as the configured ones', () => {
    const key = machineKey(SETTINGS);
    expect(key.protection).toBe('Framework45');
    expect(key.mac.key.export()).toEqual(deriveKeyForPurpose(Buffer.from(VALIDATION_KEY, 'hex'), 'FormsAuthentication.Ticket'));
    expect(key.cipher.key.export()).toEqual(deriveKeyForPurpose(Buffer.from(DECRYPTION_KEY, 'hex'), 'FormsAuthentication.Ticket'));
    expect(key.mac.key.export()).not.toEqual(Buffer.from(VALIDATION_KEY, 'hex'));
  });

  it('takes a validation key longer than the HMAC block (HMAC hashes it)', () => {
    expect(machineKey({ ...SETTINGS, validationKey: 'C3'.repeat(200) }).mac.key.symmetricKeySize).toBe(200);
  });
});

describe.each(['Framework20SP1', 'Framework20SP2'] as const)('%s', (compatibilityMode) => {
  it('uses the configured keys as they are', () => {
    const key = machineKey({ ...SETTINGS, compatibilityMode });
    expect(key.protection).toBe('legacy');
    expect(key.mac.key.export()).toEqual(Buffer.from(VALIDATION_KEY, 'hex'));
    expect(key.cipher.key.export()).toEqual(Buffer.from(DECRYPTION_KEY, 'hex'));
  });

  it.each([
    ['SHA1', 64],
    ['HMACSHA256', 64],
    ['HMACSHA384', 128],
    ['HMACSHA512', 128],
  ] as const)('takes a %s key up to its block of %i bytes, and refuses a longer one', (validation, blockBytes) => {
    expect(() => machineKey({ ...SETTINGS, compatibilityMode, validation, validationKey: 'D4'.repeat(blockBytes) })).not.toThrow();
    expect(() => machineKey({ ...SETTINGS, compatibilityMode, validation, validationKey: 'D4'.repeat(blockBytes + 1) })).toThrow(
      new MachineKeyError(`validationKey for ${validation} in ${compatibilityMode} mode must have at most ${blockBytes * 2} hex digits.`),
    );
  });
});

it.each([
  ['SHA1', 'sha1', 20],
  ['HMACSHA256', 'sha256', 32],
  ['HMACSHA384', 'sha384', 48],
  ['HMACSHA512', 'sha512', 64],
] as const)('signs %s with HMAC-%s, %i bytes', (validation, hash, size) => {
  expect(machineKey({ ...SETTINGS, validation }).mac).toMatchObject({ hash, size });
});

it.each([
  ['AES', 16, 'aes-128-cbc', 16],
  ['AES', 24, 'aes-192-cbc', 16],
  ['AES', 32, 'aes-256-cbc', 16],
  ['3DES', 16, 'des-ede-cbc', 8],
  ['3DES', 24, 'des-ede3-cbc', 8],
] as const)('encrypts %s with a %i-byte key as %s, blocks of %i', (decryption, keyBytes, name, blockSize) => {
  expect(machineKey({ ...SETTINGS, decryption, decryptionKey: 'E5'.repeat(keyBytes) }).cipher).toMatchObject({ name, blockSize });
});

describe('refuses', () => {
  it.each<[string, Partial<MachineKeySettings>, string]>([
    ['a validation key that is not hex', { validationKey: 'Z'.repeat(128) }, 'validationKey must be an even number of hex digits'],
    ['an odd number of hex digits', { decryptionKey: 'A'.repeat(63) }, 'decryptionKey must be an even number of hex digits'],
    ['AutoGenerate', { validationKey: 'AutoGenerate,IsolateApps' }, 'AutoGenerate and IsolateApps keys cannot be shared'],
    ['a validation key under 40 hex digits', { validationKey: 'A1'.repeat(19) }, 'validationKey must have at least 40 hex digits.'],
    ['an AES key of another length', { decryptionKey: 'B2'.repeat(20) }, 'decryptionKey for AES must have 32 or 48 or 64 hex digits.'],
    ['a 3DES key of another length', { decryption: '3DES', decryptionKey: 'B2'.repeat(8) }, 'decryptionKey for 3DES must have 32 or 48 hex digits.'],
    ['MD5', { validation: 'MD5' as MachineKeySettings['validation'] }, 'validation="MD5" is not supported'],
    ['DES', { decryption: 'DES' as MachineKeySettings['decryption'] }, 'decryption="DES" is not supported'],
    ['a name Object.prototype has', { validation: 'toString' as MachineKeySettings['validation'] }, 'validation="toString" is not supported'],
    ['another compatibility mode', { compatibilityMode: 'Framework40' as MachineKeySettings['compatibilityMode'] }, 'compatibilityMode="Framework40" is not one of'],
  ])('%s', (_case, change, message) => {
    expect(() => machineKey({ ...SETTINGS, ...change })).toThrow(MachineKeyError);
    expect(() => machineKey({ ...SETTINGS, ...change })).toThrow(message);
  });

  it('without quoting the key', () => {
    const secret = 'F6'.repeat(10);
    expect(() => machineKey({ ...SETTINGS, validationKey: secret })).toThrow(expect.objectContaining({ message: expect.not.stringContaining(secret) }));
  });
});
