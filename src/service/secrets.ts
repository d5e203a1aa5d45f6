import { createCipheriv, createDecipheriv, createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Hashing and sealing with the server key. Lookup hashes are HMAC-SHA256 under the key, so a copy of the
 * database alone (without the key) neither signs anybody in nor lets an attacker test guesses offline.
 * Tokens and login cookies are also sealed (AES-256-GCM): AuthenticateCookie returns the session's token, and
 * an iBridge result's USER_COOKIE the session's login cookie.
 *
 * The sub-keys are key objects made once: given a Buffer, every HMAC and cipher would make its own key object
 * (about a tenth of an uncached AuthenticateToken's time went there).
 */
export class Secrets {
  readonly #hashKey: KeyObject;
  readonly #sealKey: KeyObject;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('The secret key must be 32 bytes');
    // Separate sub-keys so that a hash can never be confused with a ciphertext key.
    this.#hashKey = createSecretKey(createHmac('sha256', key).update('authentication-asmx/hash').digest());
    this.#sealKey = createSecretKey(createHmac('sha256', key).update('authentication-asmx/seal').digest());
  }

  /**
   * Deterministic keyed hash for lookups and proofs; the purpose keeps, say, a cookie hash from matching a
   * token hash or a sign-in form's proof.
   */
  hash(
    purpose:
      | 'caller-password'
      | 'provisioning-token'
      | 'cookie'
      | 'token'
      | 'form-proof'
      | 'key-fingerprint'
      | 'recovery-code'
      | 'recovery-token'
      | 'signin-challenge'
      | 'passkey-challenge'
      | 'oidc-client-secret'
      | 'oidc-cookie-key',
    value: string,
  ): string {
    return createHmac('sha256', this.#hashKey).update(`${purpose}\0${value}`).digest('base64url');
  }

  /** Whether `proof` is hash(purpose, value), compared in constant time. */
  proves(purpose: 'signin-challenge', value: string, proof: string): boolean {
    const expected = Buffer.from(this.hash(purpose, value));
    const given = Buffer.from(proof);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#sealKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** Null when the value was not sealed with this key. */
  unseal(sealed: string): string | null {
    try {
      const raw = Buffer.from(sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.#sealKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

/** A URL- and cookie-safe random secret: 32 bytes give 256 bits of entropy in 43 characters. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
