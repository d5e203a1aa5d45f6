/**
 * The site's <machineKey>, turned into the keys and algorithms that protect its Forms tickets.
 *
 * - compatibilityMode="Framework45" (or <httpRuntime targetFramework="4.5"> and later): System.Web's
 *   AspNetCryptoServiceProvider. The configured keys are master keys; the keys in use are derived from them
 *   with SP800_108.DeriveKey for Purpose.FormsAuthentication_Ticket (see kdf.ts), as long as the master keys.
 *   validation="SHA1" means HMACSHA1 (MachineKeyCryptoAlgorithmFactory).
 * - Framework20SP1 / Framework20SP2 (the default without targetFramework): MachineKeySection's own routines,
 *   with the configured keys as they are. HashData is an HMAC whose pads are the algorithm's block size
 *   (_AutoGenValidationKeySize), so a validation key longer than the block, which SetInnerOuterKeys cannot
 *   take, is refused here too. SP1 and SP2 write the same Forms ticket since MS10-070: FormsAuthentication
 *   always asks EncryptOrDecryptData for a random prefix and a signature, whatever the mode (see legacy.ts).
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { deriveKeyForPurpose } from './kdf.js';

export type ValidationAlgorithm = 'SHA1' | 'HMACSHA256' | 'HMACSHA384' | 'HMACSHA512';
export type DecryptionAlgorithm = 'AES' | '3DES';
export type CompatibilityMode = 'Framework20SP1' | 'Framework20SP2' | 'Framework45';

/** The <machineKey> attributes that decide a Forms ticket's protection; the keys in hex, as web.config has them. */
export interface MachineKeySettings {
  readonly validationKey: string;
  readonly decryptionKey: string;
  readonly validation: ValidationAlgorithm;
  readonly decryption: DecryptionAlgorithm;
  readonly compatibilityMode: CompatibilityMode;
}

/**
 * An HMAC: Node's hash name, its key, and the length of its output. Keys are key objects made once: given a
 * Buffer, every HMAC and cipher would make its own.
 */
export interface MacKey {
  readonly hash: string;
  readonly key: KeyObject;
  readonly size: number;
}

/** A CBC cipher: Node's cipher name, its key, and its block size. */
export interface CipherKey {
  readonly name: string;
  readonly key: KeyObject;
  readonly blockSize: number;
}

export interface MachineKey {
  /** Which of System.Web's two protections the tickets have. */
  readonly protection: 'Framework45' | 'legacy';
  readonly mac: MacKey;
  readonly cipher: CipherKey;
}

/** A <machineKey> this service cannot use; the message names the attribute, never a key. */
export class MachineKeyError extends Error {
  override readonly name = 'MachineKeyError';
}

/** The HMACs of the validation attribute: Node's hash, its output and its block size, in bytes. */
const VALIDATIONS: Record<ValidationAlgorithm, { hash: string; size: number; blockSize: number }> = {
  SHA1: { hash: 'sha1', size: 20, blockSize: 64 },
  HMACSHA256: { hash: 'sha256', size: 32, blockSize: 64 },
  HMACSHA384: { hash: 'sha384', size: 48, blockSize: 128 },
  HMACSHA512: { hash: 'sha512', size: 64, blockSize: 128 },
};

/** The ciphers of the decryption attribute, by key length in bytes (.NET's Aes and TripleDES take these). */
const DECRYPTIONS: Record<DecryptionAlgorithm, { names: Record<number, string>; blockSize: number }> = {
  AES: { names: { 16: 'aes-128-cbc', 24: 'aes-192-cbc', 32: 'aes-256-cbc' }, blockSize: 16 },
  '3DES': { names: { 16: 'des-ede-cbc', 24: 'des-ede3-cbc' }, blockSize: 8 },
};

const COMPATIBILITY_MODES: readonly string[] = ['Framework20SP1', 'Framework20SP2', 'Framework45'] satisfies CompatibilityMode[];
const FORMS_TICKET_PURPOSE = 'FormsAuthentication.Ticket';
/** MachineKeySection refuses a validation key of fewer than 40 hex digits. */
const MIN_VALIDATION_KEY_HEX = 40;
const HEX = /^(?:[0-9A-Fa-f]{2})+$/;

function keyBytes(attribute: string, hex: string): Buffer {
  if (!HEX.test(hex)) {
    throw new MachineKeyError(`${attribute} must be an even number of hex digits (AutoGenerate and IsolateApps keys cannot be shared).`);
  }
  return Buffer.from(hex, 'hex');
}

/** The keys and algorithms of a <machineKey>, checked; a MachineKeyError says what is wrong. */
export function machineKey(settings: MachineKeySettings): MachineKey {
  // Settings come from configuration files: a name such as "toString" must not find Object.prototype's.
  const validation = Object.hasOwn(VALIDATIONS, settings.validation) ? VALIDATIONS[settings.validation] : undefined;
  const decryption = Object.hasOwn(DECRYPTIONS, settings.decryption) ? DECRYPTIONS[settings.decryption] : undefined;
  if (validation === undefined) throw new MachineKeyError(`validation="${settings.validation}" is not supported: use SHA1, HMACSHA256, HMACSHA384 or HMACSHA512.`);
  if (decryption === undefined) throw new MachineKeyError(`decryption="${settings.decryption}" is not supported: use AES or 3DES.`);
  if (!COMPATIBILITY_MODES.includes(settings.compatibilityMode)) {
    throw new MachineKeyError(`compatibilityMode="${settings.compatibilityMode}" is not one of ${COMPATIBILITY_MODES.join(', ')}.`);
  }
  const validationKey = keyBytes('validationKey', settings.validationKey);
  const decryptionKey = keyBytes('decryptionKey', settings.decryptionKey);
  if (settings.validationKey.length < MIN_VALIDATION_KEY_HEX) {
    throw new MachineKeyError(`validationKey must have at least ${MIN_VALIDATION_KEY_HEX} hex digits.`);
  }
  const cipherName = decryption.names[decryptionKey.length];
  if (cipherName === undefined) {
    const lengths = Object.keys(decryption.names).map((bytes) => Number(bytes) * 2);
    throw new MachineKeyError(`decryptionKey for ${settings.decryption} must have ${lengths.join(' or ')} hex digits.`);
  }
  if (settings.compatibilityMode === 'Framework45') {
    return {
      protection: 'Framework45',
      mac: { hash: validation.hash, size: validation.size, key: createSecretKey(deriveKeyForPurpose(validationKey, FORMS_TICKET_PURPOSE)) },
      cipher: { name: cipherName, blockSize: decryption.blockSize, key: createSecretKey(deriveKeyForPurpose(decryptionKey, FORMS_TICKET_PURPOSE)) },
    };
  }
  if (validationKey.length > validation.blockSize) {
    throw new MachineKeyError(`validationKey for ${settings.validation} in ${settings.compatibilityMode} mode must have at most ${validation.blockSize * 2} hex digits.`);
  }
  return {
    protection: 'legacy',
    mac: { hash: validation.hash, size: validation.size, key: createSecretKey(validationKey) },
    cipher: { name: cipherName, blockSize: decryption.blockSize, key: createSecretKey(decryptionKey) },
  };
}
