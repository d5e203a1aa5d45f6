import { guardXml, MESSAGE_BOUNDS } from '../xml-guard.js';
import { type CarriedMessage, fromPostForm, fromRedirectQuery } from './bindings.js';
import { attribute, parseRoot } from './dom.js';
import { type InboundMessage, issuerOf, readMessage } from './messages.js';
import { verifyQuerySignature } from './query-signature.js';
import { type InboundRefusal, Refused, refuse } from './refusal.js';
import { rsaSigningKeys } from './signing-keys.js';
import { holdsSignature, verifiedRootXml } from './xml-signature.js';

/**
 * A message as the browser brought it: the HTTP-Redirect query exactly as sent (after the `?`: its signature
 * covers those octets), or the HTTP-POST form's fields.
 */
export type InboundInput = { binding: 'redirect'; rawQuery: string } | { binding: 'post'; params: Record<string, string> };

/** What the identity provider knows of the service provider a message names as its Issuer (null: none such). */
export type SpTrust = (issuer: string) => Promise<{ signingCertificates: string[]; requireSigned: boolean } | null>;

export type InboundResult =
  | { ok: true; message: InboundMessage; relayState?: string; signed: boolean; issuer: string }
  | { ok: false; reason: InboundRefusal };

/**
 * The root a message's fields are read from, and whether it was signed. An HTTP-Redirect query signature covers
 * the whole document (signatures inside a Redirect message are not part of that binding and count for nothing).
 * For an HTTP-POST message it is the element xml-crypto verified, re-read from its canonical form, never the
 * outer document.
 */
function verifiedRoot(binding: InboundInput['binding'], carried: CarriedMessage, outer: Element, certificates: string[]): { root: Element; signed: boolean } {
  if (binding === 'redirect') {
    if (carried.querySignature === undefined) return { root: outer, signed: false };
    verifyQuerySignature(carried.querySignature, rsaSigningKeys(certificates));
    return { root: outer, signed: true };
  }
  if (!holdsSignature(outer)) return { root: outer, signed: false };
  const root = parseRoot(verifiedRootXml(carried.xml, outer, rsaSigningKeys(certificates)));
  if (root.localName !== outer.localName || root.namespaceURI !== outer.namespaceURI || attribute(root, 'ID') !== attribute(outer, 'ID')) {
    refuse('signature', 'a signature over another element than the message');
  }
  return { root, signed: true };
}

/**
 * Reads and verifies a message a service provider sent through the browser: decodes it as its binding says,
 * passes it through guardXml, finds the service provider by the Issuer, checks the signature (required when the
 * service provider signs its messages, checked whenever one is present), and reads the message's fields from
 * what the signature covers. Every refusal is an answer, never an exception.
 */
export async function readInbound(input: InboundInput, sp: SpTrust): Promise<InboundResult> {
  try {
    const carried = input.binding === 'redirect' ? fromRedirectQuery(input.rawQuery) : fromPostForm(input.params);
    const guarded = guardXml(carried.xml, MESSAGE_BOUNDS);
    if (!guarded.ok) refuse('xml', guarded.reason);
    const outer = parseRoot(carried.xml);
    const issuer = issuerOf(outer);
    const trust = await sp(issuer);
    if (trust === null) refuse('issuer', 'an Issuer that is not a registered service provider');
    const { root, signed } = verifiedRoot(input.binding, carried, outer, trust.signingCertificates);
    if (!signed && trust.requireSigned) refuse('signature', 'an unsigned message from a service provider that signs its messages');
    const message = readMessage(root, carried.parameter);
    if (message.issuer !== issuer) refuse('signature', 'a signed Issuer other than the one the message shows');
    return { ok: true, message, ...(carried.relayState === undefined ? {} : { relayState: carried.relayState }), signed, issuer };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.refusal };
    throw error;
  }
}
