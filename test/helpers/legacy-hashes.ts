import { createHash, randomBytes } from 'node:crypto';

/** Bytes as SqlMembershipProvider stores them: base64. */
export const b64 = (bytes: Buffer) => bytes.toString('base64');

/** A password as SqlMembershipProvider hashes it: UTF-16LE. */
export const utf16le = (text: string) => Buffer.from(text, 'utf16le');

/**
 * A password hash as imported from SqlMembershipProvider's SHA1 scheme (salt bytes, then the password in
 * UTF-16LE): a legacy hash, which verifies and is replaced by argon2id at the first successful sign-in.
 */
export function legacySha1(password: string): string {
  const salt = randomBytes(16);
  const digest = createHash('sha1').update(salt).update(utf16le(password)).digest();
  return `aspnet-membership$SHA1$${b64(salt)}$${b64(digest)}`;
}
