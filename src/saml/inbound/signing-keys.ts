import { type KeyObject, X509Certificate } from 'node:crypto';

/**
 * The RSA public keys of a service provider's signing certificates (PEM, or the bare base64 of its metadata's
 * X509Certificate). A certificate that cannot be read, or holds another kind of key, verifies nothing.
 */
export function rsaSigningKeys(certificates: readonly string[]): KeyObject[] {
  return certificates.flatMap((certificate) => {
    try {
      const source = certificate.includes('-----BEGIN') ? certificate : Buffer.from(certificate.replace(/\s+/g, ''), 'base64');
      const key = new X509Certificate(source).publicKey;
      return key.asymmetricKeyType === 'rsa' ? [key] : [];
    } catch {
      return [];
    }
  });
}
