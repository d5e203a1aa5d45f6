import { randomBytes, webcrypto } from 'node:crypto';
import { Integer, Utf8String } from 'asn1js';
import { AttributeTypeAndValue, Certificate } from 'pkijs';

/** RSA 2048 with SHA-256: what every SAML SP verifies (the metadata interoperability profile's baseline). */
const KEY_ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) };
/** SPs take the certificate as a key holder only (the metadata interoperability profile): a long life spares a renewal; rotation replaces it. */
const LIFETIME_MS = 10 * 365.25 * 24 * 3600 * 1000;
const COMMON_NAME_OID = '2.5.4.3';

/** A private key and its self-signed certificate, both PEM. */
export interface KeyAndCertificate {
  privateKeyPem: string;
  certificatePem: string;
}

/**
 * A new RSA key and a self-signed X.509 certificate for it, subject and issuer CN = `host`, valid from `now` for
 * ten years. Node.js reads certificates but cannot make them: pkijs builds it (ASN.1 by asn1js), and the
 * signature is WebCrypto's (pkijs takes Node.js's global crypto). @peculiar/x509, the brief's candidate, needs a Reflect polyfill installed globally.
 */
export async function selfSignedKey(host: string, now: number): Promise<KeyAndCertificate> {
  const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const certificate = new Certificate();
  certificate.version = 2;
  certificate.serialNumber = new Integer({ valueHex: serialNumber(randomBytes(16)) });
  for (const name of [certificate.subject, certificate.issuer]) {
    name.typesAndValues.push(new AttributeTypeAndValue({ type: COMMON_NAME_OID, value: new Utf8String({ value: host }) }));
  }
  certificate.notBefore.value = new Date(now);
  certificate.notAfter.value = new Date(now + LIFETIME_MS);
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey);
  await certificate.sign(keys.privateKey, 'SHA-256');
  const der = Buffer.from(certificate.toSchema(true).toBER(false));
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { privateKeyPem: pem('PRIVATE KEY', pkcs8), certificatePem: pem('CERTIFICATE', der) };
}

/**
 * A positive serial number of 16 octets (RFC 5280 4.1.2.2: at most 20) from random ones, its first octet between
 * 0x40 and 0x7f: DER writes an INTEGER in its fewest octets, so a first octet of 0 (before one below 0x80) would be
 * padding that strict readers, Node.js's X509Certificate among them, refuse ("illegal padding"), once in 256 keys.
 */
export function serialNumber(random: Buffer): Buffer {
  const serial = Buffer.from(random);
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  return serial;
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
