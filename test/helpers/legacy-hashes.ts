import { createHash, randomBytes } from 'node:crypto';

/**
 * A password hash as imported from SqlMembershipProvider's SHA1 scheme (salt bytes, then the password in
 * UTF-16LE): a legacy hash, which verifies and is replaced by argon2id at the first successful sign-in.
 */
export function legacySha1(password: string): string {
  const salt = randomBytes(16);
  const digest = createHash('sha1').update(salt).update(Buffer.from(password, 'utf16le')).digest();
  return `aspnet-membership$SHA1$${salt.toString('base64')}$${digest.toString('base64')}`;
}
