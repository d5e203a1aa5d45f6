import { hash, parseOptions, verify } from '@node-rs/argon2';
import { createHash, createHmac, pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Member password hashes. A stored hash names its own scheme, so members imported with their old hashes
 * sign in with their old passwords and are moved to argon2id at their first successful sign-in:
 * - `$argon2id$v=19$m=…,t=…,p=…$salt$hash`, the PHC string of @node-rs/argon2 (ours);
 * - `aspnet-membership$<ALGORITHM>$<salt base64>$<hash base64>`, SqlMembershipProvider PasswordFormat 1;
 * - `aspnet-identity$<base64>`, ASP.NET Identity v2 (marker 0x00) and v3 (marker 0x01), bytes as exported.
 */

/**
 * OWASP's minimum for argon2id (Password Storage Cheat Sheet): 19 MiB, 2 passes, 1 lane. Every concurrent
 * sign-in holds this much memory, and the service is meant to run on small hosts; each hash carries its
 * parameters, so raising them here upgrades every member at the next sign-in (see needsRehash).
 */
export const ARGON2_PARAMETERS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const MEMBERSHIP_ALGORITHMS = ['SHA1', 'HMACSHA256', 'SHA256', 'SHA512', 'MD5', 'HMACSHA512'] as const;
export type MembershipAlgorithm = (typeof MEMBERSHIP_ALGORITHMS)[number];

/** How a password left the old membership store (SqlMembershipProvider's PasswordFormat, or the hash family). */
export type ImportedPasswordFormat = 'clear' | 'hashed' | 'encrypted' | 'identity' | 'argon2id';

/** A stored or imported hash that cannot be used; the message says why and never holds the hash. */
export class PasswordHashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PasswordHashError';
  }
}

interface StoredHash {
  matches(password: string): Promise<boolean>;
  /** Weaker than what hashPassword makes today. */
  outdated: boolean;
}

interface MembershipSpec {
  digest: string;
  length: number;
  /** Set for .NET's KeyedHashAlgorithm classes, whose default key is one hash block long. */
  keyLength?: number;
}

const MEMBERSHIP_SPECS: Record<MembershipAlgorithm, MembershipSpec> = {
  SHA1: { digest: 'sha1', length: 20 },
  HMACSHA256: { digest: 'sha256', length: 32, keyLength: 64 },
  SHA256: { digest: 'sha256', length: 32 },
  SHA512: { digest: 'sha512', length: 64 },
  MD5: { digest: 'md5', length: 16 },
  HMACSHA512: { digest: 'sha512', length: 64, keyLength: 128 },
};

/** SqlMembershipProvider's defaults: SHA1 before .NET 4, HMACSHA256 since. Other lengths must be named. */
const ALGORITHM_BY_HASH_LENGTH: ReadonlyMap<number, MembershipAlgorithm> = new Map([
  [20, 'SHA1'],
  [32, 'HMACSHA256'],
]);

/** KeyDerivationPrf's values: HMACSHA1 = 0, HMACSHA256 = 1, HMACSHA512 = 2. */
const IDENTITY_PRFS = ['sha1', 'sha256', 'sha512'] as const;
/** ASP.NET Identity itself refuses salts and subkeys shorter than 128 bits. */
const IDENTITY_MIN_BYTES = 16;
/** A corrupt or hostile count would hold a sign-in for hours; real ones are at most a few hundred thousand. */
const IDENTITY_MAX_ITERATIONS = 10_000_000;

const ARGON2ID_PREFIX = '$argon2id$';
const MEMBERSHIP_TAG = 'aspnet-membership';
const IDENTITY_TAG = 'aspnet-identity';

/** An argon2id hash that no password matches, made with the current parameters: a verification costs as much. */
const DUMMY_HASH =
  `${ARGON2ID_PREFIX}v=19$m=${ARGON2_PARAMETERS.memoryCost},t=${ARGON2_PARAMETERS.timeCost},` +
  `p=${ARGON2_PARAMETERS.parallelism}$${'A'.repeat(22)}$${'A'.repeat(43)}`;

const ENCRYPTED_REFUSAL =
  'encrypted passwords (PasswordFormat 2) cannot be imported: reset them or decrypt them with the old machine key first';

const pbkdf2Async = promisify(pbkdf2);

/** Strict, padded base64 as .NET writes it; Buffer.from would silently skip bad characters. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeBase64(text: string | undefined, what: string): Buffer {
  if (!text) throw new PasswordHashError(`the ${what} is missing`);
  if (!BASE64.test(text)) throw new PasswordHashError(`the ${what} is not valid base64`);
  return Buffer.from(text, 'base64');
}

function isMembershipAlgorithm(name: string | undefined): name is MembershipAlgorithm {
  return (MEMBERSHIP_ALGORITHMS as readonly (string | undefined)[]).includes(name);
}

/** Compares in time independent of where the values differ; lengths are fixed by the format. */
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function decodeArgon2id(stored: string): StoredHash {
  let parameters: ReturnType<typeof parseOptions>;
  try {
    parameters = parseOptions(stored);
  } catch {
    throw new PasswordHashError('not a valid argon2id hash');
  }
  return {
    matches: (password) => verify(stored, password),
    outdated:
      parameters.memoryCost < ARGON2_PARAMETERS.memoryCost ||
      parameters.timeCost < ARGON2_PARAMETERS.timeCost ||
      parameters.parallelism < ARGON2_PARAMETERS.parallelism,
  };
}

/**
 * Legacy schemes are fast: run beside an argon2id verification, a wrong password takes as long as for an
 * unknown login, and does not tell which members have not signed in since the import.
 */
function legacy(matches: (password: string) => Promise<boolean>): StoredHash {
  return {
    matches: async (password) => (await Promise.all([matches(password), equalizeTiming(password)]))[0],
    outdated: true,
  };
}

/** SqlMembershipProvider.EncodePassword: the salt bytes, then the password in UTF-16LE. */
function membershipDigest(spec: MembershipSpec, salt: Buffer, password: string): Buffer {
  const text = Buffer.from(password, 'utf16le');
  if (spec.keyLength === undefined) return createHash(spec.digest).update(salt).update(text).digest();
  // The keyed variant hashes the password only; its key is the salt cut or repeated to the key length,
  // which is exactly what filling a buffer of that length with the salt does.
  return createHmac(spec.digest, Buffer.alloc(spec.keyLength, salt)).update(text).digest();
}

function decodeMembership(fields: string[]): StoredHash {
  const [algorithm, saltText, hashText, ...extra] = fields;
  if (!isMembershipAlgorithm(algorithm)) throw new PasswordHashError(`unknown membership hash algorithm "${algorithm ?? ''}"`);
  if (extra.length > 0) throw new PasswordHashError('a membership hash has three fields after its tag');
  const spec = MEMBERSHIP_SPECS[algorithm];
  const salt = decodeBase64(saltText, 'salt');
  const expected = decodeBase64(hashText, 'hash');
  if (expected.length !== spec.length) {
    throw new PasswordHashError(`a ${algorithm} hash is ${spec.length} bytes long, this one ${expected.length}`);
  }
  return legacy(async (password) => sameBytes(membershipDigest(spec, salt, password), expected));
}

function pbkdf2Hash(digest: string, iterations: number, salt: Buffer, subkey: Buffer): StoredHash {
  return legacy(async (password) => sameBytes(await pbkdf2Async(password, salt, iterations, subkey.length, digest), subkey));
}

/** Identity v2: 0x00, a 16-byte salt, then 32 bytes of PBKDF2-HMAC-SHA1 with 1000 iterations. */
function decodeIdentityV2(bytes: Buffer): StoredHash {
  if (bytes.length !== 49) throw new PasswordHashError(`an ASP.NET Identity v2 hash is 49 bytes long, this one ${bytes.length}`);
  return pbkdf2Hash('sha1', 1000, bytes.subarray(1, 17), bytes.subarray(17));
}

/** Identity v3: 0x01, then prf, iteration count and salt length as big-endian uint32, the salt, the subkey. */
function decodeIdentityV3(bytes: Buffer): StoredHash {
  if (bytes.length < 13 + 2 * IDENTITY_MIN_BYTES) throw new PasswordHashError('the ASP.NET Identity v3 hash is too short');
  const prf = IDENTITY_PRFS[bytes.readUInt32BE(1)];
  const iterations = bytes.readUInt32BE(5);
  const saltLength = bytes.readUInt32BE(9);
  if (!prf) throw new PasswordHashError(`unknown ASP.NET Identity v3 pseudo-random function ${bytes.readUInt32BE(1)}`);
  if (iterations < 1 || iterations > IDENTITY_MAX_ITERATIONS) {
    throw new PasswordHashError(`an ASP.NET Identity v3 iteration count of ${iterations} is out of range`);
  }
  if (saltLength < IDENTITY_MIN_BYTES || bytes.length - 13 - saltLength < IDENTITY_MIN_BYTES) {
    throw new PasswordHashError('an ASP.NET Identity v3 hash needs a salt and a subkey of at least 16 bytes each');
  }
  return pbkdf2Hash(prf, iterations, bytes.subarray(13, 13 + saltLength), bytes.subarray(13 + saltLength));
}

function decodeIdentity(fields: string[]): StoredHash {
  if (fields.length !== 1) throw new PasswordHashError('an ASP.NET Identity hash has one field after its tag');
  const bytes = decodeBase64(fields[0], 'hash');
  if (bytes[0] === 0x00) return decodeIdentityV2(bytes);
  if (bytes[0] === 0x01) return decodeIdentityV3(bytes);
  throw new PasswordHashError('an ASP.NET Identity hash starts with 0x00 (v2) or 0x01 (v3)');
}

function decode(stored: string): StoredHash {
  if (stored.startsWith(ARGON2ID_PREFIX)) return decodeArgon2id(stored);
  const [tag, ...fields] = stored.split('$');
  if (tag === MEMBERSHIP_TAG) return decodeMembership(fields);
  if (tag === IDENTITY_TAG) return decodeIdentity(fields);
  throw new PasswordHashError('not a password hash of a known scheme');
}

function decodeOrNull(stored: string): StoredHash | null {
  try {
    return decode(stored);
  } catch {
    return null;
  }
}

/** Returns the stored value once it decodes; throws PasswordHashError saying what is wrong otherwise. */
function checked(stored: string): string {
  decode(stored);
  return stored;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_PARAMETERS);
}

/**
 * Never throws: a stored value that does not decode matches no password. needsRehash is only ever true
 * when ok is, so that a wrong password can never replace a hash.
 */
export async function verifyPassword(stored: string, password: string): Promise<{ ok: boolean; needsRehash: boolean }> {
  const decoded = decodeOrNull(stored);
  if (!decoded) return { ok: false, needsRehash: false };
  const ok = await decoded.matches(password).catch(() => false);
  return { ok, needsRehash: ok && decoded.outdated };
}

/** True for every legacy scheme and for argon2id below ARGON2_PARAMETERS; false for what does not decode. */
export function needsRehash(stored: string): boolean {
  return decodeOrNull(stored)?.outdated ?? false;
}

/** Costs what verifying a wrong password costs, so that an unknown login cannot be told from a known one. */
export async function equalizeTiming(password: string): Promise<void> {
  await verify(DUMMY_HASH, password);
}

/**
 * The stored form of a password as the old membership store exported it: clear passwords are hashed at once
 * (never stored), hashes are wrapped in their tag once they decode. Throws PasswordHashError with the reason.
 * hashAlgorithm names the algorithm of `hashed` passwords whose length does not tell it.
 */
export async function importedPasswordHash(
  format: ImportedPasswordFormat,
  value: string,
  saltBase64: string,
  options: { hashAlgorithm?: MembershipAlgorithm } = {},
): Promise<string> {
  if (format === 'encrypted') throw new PasswordHashError(ENCRYPTED_REFUSAL);
  if (format === 'clear') return hashPassword(value);
  if (format === 'hashed') {
    const length = decodeBase64(value, 'hash').length;
    const algorithm = options.hashAlgorithm ?? ALGORITHM_BY_HASH_LENGTH.get(length);
    if (!algorithm) {
      throw new PasswordHashError(
        `a ${length}-byte hash is neither SHA1 (20 bytes) nor HMACSHA256 (32 bytes): name its hash algorithm`,
      );
    }
    return checked(`${MEMBERSHIP_TAG}$${algorithm}$${saltBase64}$${value}`);
  }
  if (saltBase64) throw new PasswordHashError(`${format} hashes carry their own salt: leave the salt empty`);
  if (format === 'identity') return checked(`${IDENTITY_TAG}$${value}`);
  if (!value.startsWith(ARGON2ID_PREFIX)) throw new PasswordHashError(`an argon2id hash starts with ${ARGON2ID_PREFIX}`);
  return checked(value);
}
