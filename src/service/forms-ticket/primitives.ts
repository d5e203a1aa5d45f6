/**
 * The two operations both protections are built of: an HMAC, checked in constant time, and CBC with PKCS #7
 * padding (what .NET's SymmetricAlgorithm does by default), with Node's crypto.
 */
import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import type { CipherKey, MacKey } from './machine-key.js';

/**
 * Why a cookie is not a ticket of this site: not even the shape of one (`malformed`), not signed with its key
 * (`bad-signature`), signed but not a ticket .NET would read (`bad-ticket`), or a ticket past its expiration.
 */
export type Refusal = 'malformed' | 'bad-signature' | 'bad-ticket' | 'expired';

/** What removing a protection gives: the serialized ticket, or why there is none. */
export type Unprotected = { readonly ok: true; readonly plaintext: Buffer } | { readonly ok: false; readonly reason: Exclude<Refusal, 'expired'> };

export function sign(mac: MacKey, data: Buffer): Buffer {
  return createHmac(mac.hash, mac.key).update(data).digest();
}

/** Whether `signature` is the HMAC of `data`, compared in constant time. */
export function signatureMatches(mac: MacKey, data: Buffer, signature: Buffer): boolean {
  return signature.length === mac.size && timingSafeEqual(sign(mac, data), signature);
}

export function encryptCbc(cipher: CipherKey, iv: Buffer, plaintext: Buffer): Buffer {
  const encryptor = createCipheriv(cipher.name, cipher.key, iv);
  return Buffer.concat([encryptor.update(plaintext), encryptor.final()]);
}

/** The plaintext, or undefined when the padding is wrong (the ciphertext is then not what was signed). */
export function decryptCbc(cipher: CipherKey, iv: Buffer, ciphertext: Buffer): Buffer | undefined {
  try {
    const decryptor = createDecipheriv(cipher.name, cipher.key, iv);
    return Buffer.concat([decryptor.update(ciphertext), decryptor.final()]);
  } catch {
    return undefined;
  }
}
