/**
 * The protection before .NET 4.5 (compatibilityMode="Framework20SP1" or "Framework20SP2"), as
 * FormsAuthentication.Encrypt builds it from MachineKeySection's routines with protection="All":
 *
 *   1. HashData:             ticket || HMAC(validation key, ticket)
 *   2. EncryptOrDecryptData  (IVType.Random, signData): a random prefix as long as the decryption key (the
 *      "IV", which is really a prefix: the cipher's own IV is all zeros) is put before it, the whole is
 *      encrypted with CBC, and the HMAC of the ciphertext appended:
 *      CBC(decryption key, zero IV, prefix || ticket || inner HMAC) || HMAC(validation key, ciphertext)
 *
 * Reading undoes it in the same order as FormsAuthentication.Decrypt: the outer HMAC is checked (constant
 * time) before anything is decrypted, then the prefix is dropped and the inner HMAC checked.
 */
import type { MachineKey } from './machine-key.js';
import { decryptCbc, encryptCbc, sign, signatureMatches, type Unprotected } from './primitives.js';

/** The length of the random prefix: the decryption key's (_IVLengthDecryption, "key sizes rather than block sizes"). */
export function legacyPrefixLength(key: MachineKey): number {
  return key.cipher.key.symmetricKeySize ?? 0;
}

function zeroIv(key: MachineKey): Buffer {
  return Buffer.alloc(key.cipher.blockSize);
}

/** The protected ticket, with this prefix (the caller draws it at random: legacyPrefixLength bytes). */
export function protectLegacy(key: MachineKey, plaintext: Buffer, prefix: Buffer): Buffer {
  const hashed = Buffer.concat([prefix, plaintext, sign(key.mac, plaintext)]);
  const ciphertext = encryptCbc(key.cipher, zeroIv(key), hashed);
  return Buffer.concat([ciphertext, sign(key.mac, ciphertext)]);
}

/** FormsAuthentication.Decrypt's legacy path: the serialized ticket, or why not. */
export function unprotectLegacy(key: MachineKey, blob: Buffer): Unprotected {
  const { blockSize } = key.cipher;
  const ciphertextLength = blob.length - key.mac.size;
  if (ciphertextLength <= 0 || ciphertextLength % blockSize !== 0) return { ok: false, reason: 'malformed' };
  const ciphertext = blob.subarray(0, ciphertextLength);
  if (!signatureMatches(key.mac, ciphertext, blob.subarray(ciphertextLength))) return { ok: false, reason: 'bad-signature' };
  const decrypted = decryptCbc(key.cipher, zeroIv(key), ciphertext);
  const hashedStart = legacyPrefixLength(key);
  if (decrypted === undefined || decrypted.length <= hashedStart + key.mac.size) return { ok: false, reason: 'bad-ticket' };
  const plaintext = decrypted.subarray(hashedStart, decrypted.length - key.mac.size);
  if (!signatureMatches(key.mac, plaintext, decrypted.subarray(decrypted.length - key.mac.size))) return { ok: false, reason: 'bad-signature' };
  return { ok: true, plaintext };
}
