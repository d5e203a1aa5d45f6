import { type KeyLike, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import type { SpTrust } from '../../src/saml/inbound/read-inbound.js';
import { selfSignedCertificate } from '../helpers/certificate.js';

/**
 * What a service provider sends an identity provider, built and signed here with xml-crypto and node's crypto
 * (as an independent SP would: never with samlify, which the identity provider itself uses).
 */

export const SP_ENTITY_ID = 'https://sp.example.test/metadata';
export const IDP_SSO_URL = 'https://idp.example.test/saml/sso';
export const IDP_SLO_URL = 'https://idp.example.test/saml/slo';
export const ACS_URL = 'https://sp.example.test/acs';

export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

export interface SpKeys {
  /** PEM. */
  cert: string;
  /** PEM. */
  key: string;
}

/** An RSA key and its self-signed certificate, made with openssl. */
export function spKeys(name = 'sp'): SpKeys {
  const dir = mkdtempSync(join(tmpdir(), 'saml-sp-'));
  try {
    const { cert, key } = selfSignedCertificate(dir, 'rsa', name);
    return { cert, key };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const NS = 'xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';
const INSTANT = '2026-11-28T12:00:00Z';

/** Where and when a message is sent: this module's identity provider and instant unless given (a running service's). */
interface Addressed {
  destination?: string;
  issueInstant?: string;
}

/**
 * An AuthnRequest; `attributes` and `children` add to (or, given first, stand in for) the usual ones; `acsUrl`
 * null leaves AssertionConsumerServiceURL out.
 */
export function authnRequestXml(o: Addressed & { id?: string; issuer?: string; acsUrl?: string | null; attributes?: string; children?: string } = {}): string {
  const acs = o.acsUrl === null ? '' : ` AssertionConsumerServiceURL="${o.acsUrl ?? ACS_URL}"`;
  return (
    `<samlp:AuthnRequest ${NS} ID="${o.id ?? '_req1'}" Version="2.0" IssueInstant="${o.issueInstant ?? INSTANT}" Destination="${o.destination ?? IDP_SSO_URL}"` +
    `${acs} ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"${o.attributes ?? ''}>` +
    `<saml:Issuer>${o.issuer ?? SP_ENTITY_ID}</saml:Issuer>${o.children ?? ''}</samlp:AuthnRequest>`
  );
}

/** A LogoutRequest for a NameID and its session indexes. */
export function logoutRequestXml(o: Addressed & { id?: string; issuer?: string; nameId?: string; sessionIndexes?: string[]; children?: string } = {}): string {
  return (
    `<samlp:LogoutRequest ${NS} ID="${o.id ?? '_lr1'}" Version="2.0" IssueInstant="${o.issueInstant ?? INSTANT}" Destination="${o.destination ?? IDP_SLO_URL}">` +
    `<saml:Issuer>${o.issuer ?? SP_ENTITY_ID}</saml:Issuer>` +
    `<saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${o.nameId ?? 'member-1'}</saml:NameID>` +
    (o.sessionIndexes ?? ['_s1']).map((index) => `<samlp:SessionIndex>${index}</samlp:SessionIndex>`).join('') +
    `${o.children ?? ''}</samlp:LogoutRequest>`
  );
}

/**
 * The document with an enveloped signature over the elements `references` select (the root by default), placed
 * after the first one's Issuer as SAML core 5.4 places it, or where `location` says.
 */
export function signXml(
  xml: string,
  keys: SpKeys,
  o: { references?: string[]; emptyUri?: boolean; location?: { reference: string; action: 'append' | 'prepend' | 'before' | 'after' }; signatureAlgorithm?: string } = {},
): string {
  const references = o.references ?? ['/*'];
  const signed = new SignedXml({ privateKey: keys.key, publicCert: keys.cert, signatureAlgorithm: o.signatureAlgorithm ?? RSA_SHA256, canonicalizationAlgorithm: EXC_C14N });
  for (const xpath of references) signed.addReference({ xpath, transforms: [ENVELOPED, EXC_C14N], digestAlgorithm: SHA256, isEmptyUri: o.emptyUri ?? false });
  signed.computeSignature(xml, { location: o.location ?? { reference: `${references[0]}/*[local-name(.)='Issuer']`, action: 'after' } });
  return signed.getSignedXml();
}

/** The HTTP-POST form fields that carry a message. */
export function postForm(xml: string, o: { parameter?: string; relayState?: string } = {}): Record<string, string> {
  return { [o.parameter ?? 'SAMLRequest']: Buffer.from(xml).toString('base64'), ...(o.relayState === undefined ? {} : { RelayState: o.relayState }) };
}

const DIGESTS: Record<string, string> = { [RSA_SHA256]: 'sha256', [RSA_SHA1]: 'sha1' };

/** The HTTP-Redirect query (after the `?`) that carries a message, signed over its octets when `sign` is given. */
export function redirectQuery(xml: string, o: { parameter?: string; relayState?: string; sign?: { key: KeyLike; sigAlg?: string } } = {}): string {
  const parts = [`${o.parameter ?? 'SAMLRequest'}=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}`];
  if (o.relayState !== undefined) parts.push(`RelayState=${encodeURIComponent(o.relayState)}`);
  if (o.sign === undefined) return parts.join('&');
  const sigAlg = o.sign.sigAlg ?? RSA_SHA256;
  parts.push(`SigAlg=${encodeURIComponent(sigAlg)}`);
  const signature = sign(DIGESTS[sigAlg] ?? 'sha256', Buffer.from(parts.join('&')), o.sign.key).toString('base64');
  return `${parts.join('&')}&Signature=${encodeURIComponent(signature)}`;
}

/** An SP lookup that knows these service providers (by entity ID) and no other. */
export function trusting(sps: Record<string, { signingCertificates: string[]; requireSigned: boolean }>): SpTrust {
  return async (issuer) => (Object.hasOwn(sps, issuer) ? sps[issuer]! : null);
}
