import type { KeyObject } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { attribute, childElements, DSIG_NS, optionalChild, requiredChild } from './dom.js';
import { refuse } from './refusal.js';

const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const SIGNATURE_METHODS = new Set(['http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'http://www.w3.org/2000/09/xmldsig#rsa-sha1']);
const DIGEST_METHODS = new Set(['http://www.w3.org/2001/04/xmlenc#sha256', 'http://www.w3.org/2000/09/xmldsig#sha1']);
/** SAML's profile of XML Signature (SAML core 5.4): exclusive canonicalisation (inclusive tolerated) and the enveloped transform. */
const TRANSFORMS = new Set([ENVELOPED, EXC_C14N, C14N]);
/** Those two: each transform canonicalises the whole message again, so a long list of them would cost as much again. */
const MAX_TRANSFORMS = 2;
const CANONICALISATIONS = new Set([EXC_C14N, C14N]);

/** Whether the document holds an XML Signature anywhere: if it does, it must be the one signature of the message. */
export function holdsSignature(root: Element): boolean {
  return root.getElementsByTagNameNS(DSIG_NS, 'Signature').length > 0;
}

/**
 * How many of each element a SAML signature holds: at most (Transforms, Transform, KeyInfo's) or exactly (the
 * rest). xml-crypto finds several of them by local name at any depth of the signature, whatever their namespace,
 * so each must be the only one of its name for what it reads to be what these checks read.
 */
const SIGNATURE_ELEMENTS = new Map<string, { min: number; max: number }>([
  ['SignedInfo', { min: 1, max: 1 }],
  ['CanonicalizationMethod', { min: 1, max: 1 }],
  ['SignatureMethod', { min: 1, max: 1 }],
  ['Reference', { min: 1, max: 1 }],
  ['Transforms', { min: 0, max: 1 }],
  ['Transform', { min: 0, max: MAX_TRANSFORMS }],
  ['DigestMethod', { min: 1, max: 1 }],
  ['DigestValue', { min: 1, max: 1 }],
  ['SignatureValue', { min: 1, max: 1 }],
  ['KeyInfo', { min: 0, max: 1 }],
  ['X509Data', { min: 0, max: 8 }],
  ['X509Certificate', { min: 0, max: 8 }],
  ['KeyValue', { min: 0, max: 1 }],
  ['RSAKeyValue', { min: 0, max: 1 }],
  ['Modulus', { min: 0, max: 1 }],
  ['Exponent', { min: 0, max: 1 }],
  ['KeyName', { min: 0, max: 1 }],
  ['X509IssuerSerial', { min: 0, max: 8 }],
  ['X509IssuerName', { min: 0, max: 8 }],
  ['X509SerialNumber', { min: 0, max: 8 }],
  ['X509SubjectName', { min: 0, max: 8 }],
  ['X509SKI', { min: 0, max: 8 }],
]);

/** Exclusive canonicalisation's InclusiveNamespaces, the one element of another namespace a SAML signature may hold. */
const INCLUSIVE_NAMESPACES = { ns: EXC_C14N, local: 'InclusiveNamespaces' };

function checkElements(signature: Element): void {
  const counts = new Map<string, number>();
  const elements = signature.getElementsByTagName('*');
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i]!;
    if (element.namespaceURI === INCLUSIVE_NAMESPACES.ns && element.localName === INCLUSIVE_NAMESPACES.local) continue;
    if (element.namespaceURI !== DSIG_NS || !SIGNATURE_ELEMENTS.has(element.localName)) refuse('signature', 'a signature holding an element XML Signature in SAML does not');
    counts.set(element.localName, (counts.get(element.localName) ?? 0) + 1);
  }
  for (const [local, { min, max }] of SIGNATURE_ELEMENTS) {
    const count = counts.get(local) ?? 0;
    if (count < min || count > max) refuse('signature', count < min ? `a signature without ${local}` : `a signature with more than ${max} ${local}`);
  }
}

function algorithm(parent: Element, local: string, allowed: ReadonlySet<string>): void {
  const value = attribute(requiredChild(parent, DSIG_NS, local), 'Algorithm');
  if (value === undefined || !allowed.has(value)) refuse('signature', `a ${local} this identity provider does not take`);
}

/**
 * The shape SAML core 5.4 gives a signed protocol message, checked before any cryptography: one ds:Signature in
 * the whole document, a child of the root, with one Reference, to `#` and the root's ID (which guardXml made
 * sure no other element holds), over RSA with SHA-256 or SHA-1. samlify's verifySignature takes a signature
 * found lower down (in an Assertion wrapped into a LogoutRequest or AuthnRequest, GHSA-63ch-w8pw-4mf2) as the
 * message's, and then reads the unsigned outer message; this shape leaves no other element to be signed.
 */
function checkShape(root: Element): Element {
  const signatures = root.getElementsByTagNameNS(DSIG_NS, 'Signature');
  const signature = signatures[0];
  if (signatures.length !== 1 || signature === undefined) refuse('signature', 'more than one ds:Signature');
  if (signature.parentNode !== root) refuse('signature', `a ds:Signature that is not a child of the ${root.localName}`);
  checkElements(signature);
  const signedInfo = requiredChild(signature, DSIG_NS, 'SignedInfo');
  algorithm(signedInfo, 'CanonicalizationMethod', CANONICALISATIONS);
  algorithm(signedInfo, 'SignatureMethod', SIGNATURE_METHODS);
  const reference = requiredChild(signedInfo, DSIG_NS, 'Reference');
  const id = attribute(root, 'ID');
  if (id === undefined || id === '' || attribute(reference, 'URI') !== `#${id}`) refuse('signature', `a signature whose Reference is not to the ${root.localName}`);
  algorithm(reference, 'DigestMethod', DIGEST_METHODS);
  const transformList = optionalChild(reference, DSIG_NS, 'Transforms');
  const transforms = transformList === undefined ? [] : childElements(transformList, DSIG_NS, 'Transform');
  for (const transform of transforms) {
    const value = attribute(transform, 'Algorithm');
    if (value === undefined || !TRANSFORMS.has(value)) refuse('signature', 'a Transform this identity provider does not take');
  }
  return signature;
}

/**
 * Verifies the enveloped signature of a message with xml-crypto (the keys are the service provider's; the
 * document's own KeyInfo is never trusted) and returns the canonical XML of the element it covers, the root
 * without its signature: what xml-crypto says it verified, the only text the message's fields may be read from.
 * `xml` is the document `root` was parsed from, which guardXml accepted.
 */
export function verifiedRootXml(xml: string, root: Element, keys: readonly KeyObject[]): string {
  const signature = checkShape(root);
  if (keys.length === 0) refuse('signature', 'a signed message from a service provider with no signing certificate');
  for (const publicCert of keys) {
    const signed = new SignedXml({ publicCert });
    signed.loadSignature(signature);
    let valid = false;
    try {
      valid = signed.checkSignature(xml);
    } catch {
      // xml-crypto throws for a signature value the key does not verify: the next key may.
    }
    const references = valid ? signed.getSignedReferences() : [];
    if (references.length === 1 && references[0] !== undefined) return references[0];
  }
  return refuse('signature', 'a signature no certificate of the service provider verifies');
}
