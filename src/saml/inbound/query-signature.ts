import { type KeyObject, verify } from 'node:crypto';
import type { QuerySignature } from './bindings.js';
import { refuse } from './refusal.js';

/** The SigAlg values taken, and their digests: RSA with SHA-256, and with SHA-1, which SPs still send. */
const ALGORITHMS = new Map([
  ['http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'sha256'],
  ['http://www.w3.org/2000/09/xmldsig#rsa-sha1', 'sha1'],
]);

/**
 * Checks an HTTP-Redirect signature, which covers the query's octets as sent (SAML bindings 3.4.4.1), not the XML.
 * Node's HTTP parser answers 400 to a request target that is not ASCII, so the query's characters are the bytes
 * the service provider signed, one for one.
 */
export function verifyQuerySignature(signed: QuerySignature, keys: readonly KeyObject[]): void {
  const digest = ALGORITHMS.get(signed.sigAlg);
  if (digest === undefined) refuse('signature', 'a SigAlg other than RSA-SHA256 or RSA-SHA1');
  const octets = Buffer.from(signed.signedOctets, 'latin1');
  if (!keys.some((key) => verify(digest, octets, key, signed.signature))) refuse('signature', 'a query signature no certificate of the service provider verifies');
}
