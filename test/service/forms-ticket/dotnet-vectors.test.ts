/**
 * Cookies made by .NET Framework's FormsAuthentication (dotnet-vectors.ts) are read with their fields, and what
 * this service writes is the same bytes: the ticket re-serialized is the plaintext .NET encrypted, and the
 * ticket protected again with the cookie's own IV (or legacy prefix) is the very cookie.
 */
import { protectFramework45, unprotectFramework45 } from '../../../src/service/forms-ticket/framework45.js';
import { legacyPrefixLength, protectLegacy, unprotectLegacy } from '../../../src/service/forms-ticket/legacy.js';
import { machineKey, type MachineKey } from '../../../src/service/forms-ticket/machine-key.js';
import { decryptCbc } from '../../../src/service/forms-ticket/primitives.js';
import { serializeTicket } from '../../../src/service/forms-ticket/serializer.js';
import { readFormsTicket } from '../../../src/service/forms-ticket/ticket.js';
import { dateFromTicks } from '../../../src/service/forms-ticket/ticks.js';
import { DOTNET_VECTORS, type DotNetVector } from './dotnet-vectors.js';

/** Every vector was issued after this, so none has expired then. */
const BEFORE_ANY_VECTOR = new Date('2015-01-01T00:00:00Z');

function plaintextOf(key: MachineKey, blob: Buffer): Buffer {
  const unprotected = key.protection === 'Framework45' ? unprotectFramework45(key, blob) : unprotectLegacy(key, blob);
  if (!unprotected.ok) throw new Error(`the vector does not unprotect: ${unprotected.reason}`);
  return unprotected.plaintext;
}

/** The cookie protected again with the randomness .NET drew for it: the IV, or the legacy prefix. */
function reprotect(key: MachineKey, blob: Buffer, plaintext: Buffer): Buffer {
  if (key.protection === 'Framework45') return protectFramework45(key, plaintext, blob.subarray(0, key.cipher.blockSize));
  const decrypted = decryptCbc(key.cipher, Buffer.alloc(key.cipher.blockSize), blob.subarray(0, blob.length - key.mac.size));
  if (decrypted === undefined) throw new Error('the vector does not decrypt');
  return protectLegacy(key, plaintext, decrypted.subarray(0, legacyPrefixLength(key)));
}

const label = (vector: DotNetVector) => `${vector.settings.compatibilityMode} ${vector.settings.validation} ${vector.settings.decryption}-${vector.settings.decryptionKey.length * 4}: ${vector.source}`;

describe.each(DOTNET_VECTORS.map((vector) => [label(vector), vector] as const))('%s', (_label, vector) => {
  const key = machineKey(vector.settings);
  const blob = Buffer.from(vector.cookie, 'hex');

  it('is read, with the fields the source asserts', () => {
    const read = readFormsTicket(key, vector.cookie, BEFORE_ANY_VECTOR);
    expect(read).toMatchObject({ ok: true, ticket: vector.expected });
    if (vector.expectedIssueDate !== undefined && read.ok) {
      expect(dateFromTicks(read.ticket.issueTicks).toISOString()).toBe(vector.expectedIssueDate);
    }
  });

  it('is read in lower-case hex too, as .NET reads it', () => {
    expect(readFormsTicket(key, vector.cookie.toLowerCase(), BEFORE_ANY_VECTOR).ok).toBe(true);
  });

  it('is read up to its expiration, and has expired a millisecond later', () => {
    const read = readFormsTicket(key, vector.cookie, BEFORE_ANY_VECTOR);
    if (!read.ok) throw new Error(read.reason);
    const expiration = dateFromTicks(read.ticket.expirationTicks);
    expect(readFormsTicket(key, vector.cookie, expiration).ok).toBe(true);
    expect(readFormsTicket(key, vector.cookie, new Date(expiration.getTime() + 1))).toEqual({ ok: false, reason: 'expired' });
  });

  it('serializes back to the very plaintext .NET encrypted', () => {
    const plaintext = plaintextOf(key, blob);
    const read = readFormsTicket(key, vector.cookie, BEFORE_ANY_VECTOR);
    if (!read.ok) throw new Error(read.reason);
    expect(serializeTicket(read.ticket).toString('hex')).toBe(plaintext.toString('hex'));
  });

  it('is protected again, with its own IV or prefix, into the very cookie', () => {
    const plaintext = plaintextOf(key, blob);
    expect(reprotect(key, blob, plaintext).toString('hex').toUpperCase()).toBe(vector.cookie.toUpperCase());
  });

  it('is refused with another key of the same algorithms', () => {
    const other = machineKey({ ...vector.settings, validationKey: vector.settings.validationKey.replace(/^./, (digit) => (digit === '0' ? '1' : '0')) });
    expect(readFormsTicket(other, vector.cookie, BEFORE_ANY_VECTOR)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('is refused in the other compatibility mode', () => {
    const otherMode = vector.settings.compatibilityMode === 'Framework45' ? 'Framework20SP2' : 'Framework45';
    const read = readFormsTicket(machineKey({ ...vector.settings, compatibilityMode: otherMode }), vector.cookie, BEFORE_ANY_VECTOR);
    expect(read.ok).toBe(false);
  });
});

it('covers both protections and every validation algorithm with vectors from .NET', () => {
  const combinations = new Set(DOTNET_VECTORS.map((vector) => `${vector.settings.compatibilityMode === 'Framework45' ? '4.5' : 'legacy'} ${vector.settings.validation}`));
  expect([...combinations].sort()).toEqual(['4.5 HMACSHA512', 'legacy HMACSHA256', 'legacy HMACSHA384', 'legacy HMACSHA512', 'legacy SHA1']);
});
