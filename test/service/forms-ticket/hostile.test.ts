/**
 * Cookies made to hurt (src/service/forms-ticket/ticket.ts): wrong shapes, wrong lengths, changed bytes in each
 * region, and tickets signed with the site's own key whose contents are hostile. Each is "not signed in",
 * never an exception, and costs no more CPU than reading the largest valid ticket.
 */
import { protectFramework45 } from '../../../src/service/forms-ticket/framework45.js';
import { legacyPrefixLength, protectLegacy } from '../../../src/service/forms-ticket/legacy.js';
import { machineKey, type MachineKey } from '../../../src/service/forms-ticket/machine-key.js';
import { encryptCbc, sign } from '../../../src/service/forms-ticket/primitives.js';
import { serializeTicket, type FormsTicket } from '../../../src/service/forms-ticket/serializer.js';
import { issueFormsTicket, MAX_COOKIE_LENGTH, readFormsTicket } from '../../../src/service/forms-ticket/ticket.js';
import { NOW, TICKET } from './sample-ticket.js';

const KEYS = {
  Framework45: machineKey({
    compatibilityMode: 'Framework45',
    validation: 'HMACSHA512',
    validationKey: '7E'.repeat(64),
    decryption: 'AES',
    decryptionKey: '1F'.repeat(32),
  }),
  legacy: machineKey({
    compatibilityMode: 'Framework20SP2',
    validation: 'SHA1',
    validationKey: '7E'.repeat(64),
    decryption: 'AES',
    decryptionKey: '1F'.repeat(32),
  }),
};

const hex = (bytes: Buffer) => bytes.toString('hex').toUpperCase();

function issue(key: MachineKey, ticket: FormsTicket): string {
  const issued = issueFormsTicket(key, ticket);
  if (!issued.ok) throw new Error(issued.reason);
  return issued.cookie;
}

/** Bytes the site's key signs as if they were a serialized ticket. */
function signedPlaintext(key: MachineKey, plaintext: Buffer): string {
  return hex(
    key.protection === 'Framework45'
      ? protectFramework45(key, plaintext, Buffer.alloc(key.cipher.blockSize, 7))
      : protectLegacy(key, plaintext, Buffer.alloc(legacyPrefixLength(key), 7)),
  );
}

/** The serialized ticket with the name's length replaced by these 7-bit encoded bytes. */
function withNameLength(lengthHex: string): Buffer {
  const bytes = serializeTicket(TICKET).toString('hex');
  return Buffer.from(bytes.slice(0, 40) + lengthHex + bytes.slice(42), 'hex');
}

function flip(cookie: string, byteOffset: number): string {
  const bytes = Buffer.from(cookie, 'hex');
  const at = byteOffset < 0 ? bytes.length + byteOffset : byteOffset;
  bytes[at] = (bytes[at] ?? 0) ^ 0x01;
  return hex(bytes);
}

describe('the shape of the cookie', () => {
  const cookie = issue(KEYS.Framework45, TICKET);

  it.each<[string, unknown]>([
    ['empty', ''],
    ['an odd number of digits', cookie.slice(1)],
    ['a character that is not hex', `${cookie.slice(0, -1)}G`],
    ['white space around it', ` ${cookie} `],
    ['URL-token (base64) instead of hex', Buffer.from(cookie, 'hex').toString('base64url')],
    ['one character past 4096', 'A'.repeat(MAX_COOKIE_LENGTH + 2)],
    ['10 MB of hex', 'A'.repeat(10_000_000)],
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an object', { toString: () => cookie }],
  ])('refuses %s as malformed', (_case, value) => {
    expect(readFormsTicket(KEYS.Framework45, value as string, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe.each(Object.entries(KEYS))('%s', (protection, key) => {
  const cookie = issue(key, TICKET);
  const bytes = Buffer.from(cookie, 'hex');
  const { blockSize } = key.cipher;
  const macSize = key.mac.size;

  it.each([
    ['one byte short', bytes.subarray(0, -1)],
    ['one byte too many', Buffer.concat([bytes, Buffer.from([0])])],
    ['the signature alone', bytes.subarray(-macSize)],
    ['the signature and one byte', Buffer.concat([bytes.subarray(0, 1), bytes.subarray(-macSize)])],
  ])('refuses a cookie of the wrong length: %s', (_case, wrong) => {
    expect(readFormsTicket(key, hex(wrong), NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it.each([
    ['a block short', Buffer.concat([bytes.subarray(0, bytes.length - macSize - blockSize), bytes.subarray(-macSize)])],
    ['a block too many', Buffer.concat([bytes.subarray(0, blockSize), bytes.subarray(0, bytes.length)])],
    ['the signature of another cookie', Buffer.concat([bytes.subarray(0, -macSize), Buffer.from(issue(key, TICKET), 'hex').subarray(-macSize)])],
  ])('refuses a cookie of whole blocks that is not signed: %s', (_case, wrong) => {
    expect(readFormsTicket(key, hex(wrong), NOW)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  const regions: [string, number][] =
    protection === 'Framework45'
      ? [
          ['the IV', 0],
          ['the first ciphertext block', blockSize],
          ['the last ciphertext byte', -macSize - 1],
          ['the first signature byte', -macSize],
          ['the last signature byte', -1],
        ]
      : [
          ['the block of the random prefix', 0],
          ['the block of the ticket', legacyPrefixLength(key)],
          ['the last ciphertext byte (the padding)', -macSize - 1],
          ['the first signature byte', -macSize],
          ['the last signature byte', -1],
        ];

  it.each(regions)('refuses a bit flipped in %s', (_region, offset) => {
    expect(readFormsTicket(key, flip(cookie, offset), NOW)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it.each([
    ['a name of 2^31 code units (negative as an int32)', withNameLength('8080808008')],
    ['a name of 2^31 - 1 code units', withNameLength('ffffffff07')],
    ['a name longer than the ticket', withNameLength('7f')],
    ['a length that never ends', withNameLength('ffffffffff')],
    ['bytes after the footer', Buffer.concat([serializeTicket(TICKET), Buffer.from('00', 'hex')])],
    ['bytes that are no ticket', Buffer.from('not a ticket at all')],
  ])('refuses a ticket signed with the site key but holding %s', (_case, plaintext) => {
    expect(readFormsTicket(key, signedPlaintext(key, plaintext), NOW)).toEqual({ ok: false, reason: 'bad-ticket' });
  });

  it('refuses a signed ciphertext whose padding is wrong', () => {
    const ciphertext = Buffer.concat([Buffer.alloc(blockSize, 3), Buffer.alloc(blockSize * 4, 5)]);
    expect(readFormsTicket(key, hex(Buffer.concat([ciphertext, sign(key.mac, ciphertext)])), NOW)).toEqual({ ok: false, reason: 'bad-ticket' });
  });
});

describe('legacy, inside the signed ciphertext', () => {
  const key = KEYS.legacy;
  const zeroIv = Buffer.alloc(key.cipher.blockSize);
  const prefix = Buffer.alloc(legacyPrefixLength(key), 9);
  const signedCiphertext = (plaintext: Buffer) => {
    const ciphertext = encryptCbc(key.cipher, zeroIv, plaintext);
    return hex(Buffer.concat([ciphertext, sign(key.mac, ciphertext)]));
  };

  it('refuses a ticket whose inner signature is wrong', () => {
    const ticket = serializeTicket(TICKET);
    const wrongMac = sign(key.mac, ticket).map((byte) => byte ^ 0xff);
    expect(readFormsTicket(key, signedCiphertext(Buffer.concat([prefix, ticket, wrongMac])), NOW)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('refuses a plaintext too short for the prefix and the inner signature', () => {
    expect(readFormsTicket(key, signedCiphertext(Buffer.concat([prefix, Buffer.alloc(key.mac.size)])), NOW)).toEqual({ ok: false, reason: 'bad-ticket' });
  });
});

describe('CPU', () => {
  /** Microseconds of this process's CPU time `times` calls take. */
  function cpuMicros(read: () => unknown, times: number): number {
    const start = process.cpuUsage();
    for (let i = 0; i < times; i++) read();
    const used = process.cpuUsage(start);
    return used.user + used.system;
  }

  /**
   * The median, over rounds, of what the hostile cookie costs against the valid one measured just before it:
   * what else runs on the machine weighs on both alike, and the median drops the rounds a pause fell in.
   */
  function medianCostRatio(valid: () => unknown, hostile: () => unknown): number {
    const [rounds, times] = [15, 40];
    cpuMicros(valid, times);
    cpuMicros(hostile, times);
    const ratios = Array.from({ length: rounds }, () => {
      const validCost = cpuMicros(valid, times);
      return cpuMicros(hostile, times) / Math.max(validCost, 1);
    }).sort((a, b) => a - b);
    return ratios[Math.floor(rounds / 2)] ?? Infinity;
  }

  describe.each(Object.entries(KEYS))('%s', (_protection, key) => {
    const largest = issue(key, { ...TICKET, userData: 'x'.repeat(key.protection === 'Framework45' ? 940 : 920) });
    const readLargest = () => readFormsTicket(key, largest, NOW);
    const hostile: [string, string][] = [
      ['10 MB of hex', 'A'.repeat(10_000_000)],
      ['4096 characters that are not hex at the end', `${'A'.repeat(MAX_COOKIE_LENGTH - 1)}Z`],
      ['the largest ticket with a flipped signature', flip(largest, -1)],
      ['the largest ticket with a flipped ciphertext', flip(largest, 0)],
      ['a signed ticket declaring a 2^31-unit name', signedPlaintext(key, withNameLength('8080808008'))],
      ['a signed ticket declaring a (2^31 - 1)-unit name', signedPlaintext(key, withNameLength('ffffffff07'))],
    ];

    it('has a largest valid ticket near the limit to compare with', () => {
      expect(largest.length).toBeGreaterThan(MAX_COOKIE_LENGTH - 200);
      expect(readLargest().ok).toBe(true);
    });

    it.each(hostile)('costs no more for %s than for reading the largest valid ticket', (_case, cookie) => {
      expect(readFormsTicket(key, cookie, NOW).ok).toBe(false);
      expect(medianCostRatio(readLargest, () => readFormsTicket(key, cookie, NOW))).toBeLessThan(1.5);
    });
  });
});
