/**
 * The .NET 4.5 protection (compatibilityMode="Framework45"): System.Web's NetFXCryptoService with the keys
 * machine-key.ts derived for Purpose.FormsAuthentication_Ticket.
 *
 *   Protect:   IV (one random block) || CBC(encryption key, IV, ticket) || HMAC(validation key, IV || ciphertext)
 *   Unprotect: the HMAC is checked first, in constant time; only a signed ciphertext is decrypted.
 */
import type { MachineKey } from './machine-key.js';
import { decryptCbc, encryptCbc, sign, signatureMatches, type Unprotected } from './primitives.js';

/** The protected ticket, with this IV (the caller draws it at random: one block). */
export function protectFramework45(key: MachineKey, plaintext: Buffer, iv: Buffer): Buffer {
  const signed = Buffer.concat([iv, encryptCbc(key.cipher, iv, plaintext)]);
  return Buffer.concat([signed, sign(key.mac, signed)]);
}

/** NetFXCryptoService.Unprotect: the serialized ticket, or why not. */
export function unprotectFramework45(key: MachineKey, blob: Buffer): Unprotected {
  const { blockSize } = key.cipher;
  const ciphertextLength = blob.length - blockSize - key.mac.size;
  if (ciphertextLength <= 0 || ciphertextLength % blockSize !== 0) return { ok: false, reason: 'malformed' };
  const signed = blob.subarray(0, blockSize + ciphertextLength);
  if (!signatureMatches(key.mac, signed, blob.subarray(signed.length))) return { ok: false, reason: 'bad-signature' };
  const plaintext = decryptCbc(key.cipher, blob.subarray(0, blockSize), blob.subarray(blockSize, signed.length));
  return plaintext === undefined ? { ok: false, reason: 'bad-ticket' } : { ok: true, plaintext };
}
