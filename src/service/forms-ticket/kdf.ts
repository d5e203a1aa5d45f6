/**
 * NIST SP 800-108 key derivation in counter mode with HMAC-SHA-512, as System.Web's SP800_108.DeriveKey does it
 * for the .NET 4.5 crypto (AspNetCryptoServiceProvider): each block is
 * HMACSHA512(key, [i]₃₂ || label || 0x00 || context || [L]₃₂), i counting from 1 and L the output length in bits,
 * both big-endian. The derived key is as long as the master key.
 */
import { createHmac } from 'node:crypto';

const HMAC_SHA512_BYTES = 64;

function uint32BigEndian(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

/** The SP 800-108 counter-mode HMAC-SHA-512 output of `lengthBytes` bytes. */
export function sp800108HmacSha512(key: Buffer, label: Buffer, context: Buffer, lengthBytes: number): Buffer {
  const fixedInput = Buffer.concat([label, Buffer.from([0]), context, uint32BigEndian(lengthBytes * 8)]);
  const blocks: Buffer[] = [];
  for (let i = 1; blocks.length * HMAC_SHA512_BYTES < lengthBytes; i++) {
    blocks.push(createHmac('sha512', key).update(uint32BigEndian(i)).update(fixedInput).digest());
  }
  return Buffer.concat(blocks).subarray(0, lengthBytes);
}

/**
 * The key System.Web derives from a master key for a purpose: the label is the purpose's name in UTF-8 and the
 * context its specific purposes. FormsAuthentication.Ticket has none (Purpose.FormsAuthentication_Ticket is
 * built from the name alone, and FormsAuthentication appends nothing), so its context is empty.
 */
export function deriveKeyForPurpose(masterKey: Buffer, purpose: string): Buffer {
  return sp800108HmacSha512(masterKey, Buffer.from(purpose, 'utf8'), Buffer.alloc(0), masterKey.length);
}
