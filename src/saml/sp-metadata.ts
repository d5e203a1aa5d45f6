import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { chosenSettings, samlSpSettings, type SamlSpChoices, type SamlSpSettings } from '../service/saml/index.js';
import { BodyTooLong, boundedText } from '../web/bounded-body.js';
import { isLoopbackName } from '../web/host-policy.js';
import { guardXml, METADATA_BOUNDS } from './xml-guard.js';

const METADATA_NS = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const SAML2_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
/** The binding the identity provider answers an AuthnRequest with: an SP needs an assertion consumer service for it. */
export const HTTP_POST_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

/** Where an SP takes responses: an AssertionConsumerService of its metadata. */
export interface AssertionConsumerService {
  /** The binding's URN, as the metadata gives it. */
  binding: string;
  location: string;
  index: number | null;
  isDefault: boolean;
}

/** Where an SP takes logout messages: a SingleLogoutService of its metadata (SOAP for the back channel). */
export interface SingleLogoutService {
  binding: string;
  location: string;
  /** Where LogoutResponses go, when not to `location`. */
  responseLocation: string | null;
}

/** What the identity provider uses of an SP's metadata. */
export interface SpMetadata {
  entityId: string;
  assertionConsumerServices: AssertionConsumerService[];
  singleLogoutServices: SingleLogoutService[];
  /** PEM; a KeyDescriptor without `use` counts for signing and encryption alike, as the metadata spec says. */
  signingCertificates: string[];
  encryptionCertificates: string[];
  authnRequestsSigned: boolean;
  wantAssertionsSigned: boolean;
  nameIdFormats: string[];
}

export type ReadSpMetadata = { ok: true; metadata: SpMetadata } | { ok: false; reason: string };

class Refused extends Error {}

/**
 * An SP's metadata document read: after the guard (bounds, no DTD, comments or duplicated IDs), its one
 * EntityDescriptor with one SAML 2.0 SPSSODescriptor, namespace-aware. Endpoints must be absolute https URLs (http
 * only on a loopback host, for tests and local SPs): an assertion must never travel in the clear. The document is
 * the admin's, given to the CLI, so any signature on it is not checked; it is trusted as given.
 */
export function readSpMetadata(xml: string): ReadSpMetadata {
  const guarded = guardXml(xml, METADATA_BOUNDS);
  if (!guarded.ok) return { ok: false, reason: `the metadata is refused: ${guarded.reason}` };
  try {
    return { ok: true, metadata: read(xml) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.message };
    throw error;
  }
}

/** An SP to register: its entity id and settings (the metadata's facts, then the admin's choices), and what the admin may want to know. */
export type SpRegistration = { ok: true; entityId: string; settings: SamlSpSettings; warnings: string[] } | { ok: false; reason: string };

/** What an SP's metadata and the admin's choices register, for the CLI's `saml-sps add` and the staff console's form alike. */
export function spRegistration(xml: string, choices: SamlSpChoices): SpRegistration {
  const read = readSpMetadata(xml);
  if (!read.ok) return read;
  const { metadata } = read;
  const settings = samlSpSettings({ authnRequestsSigned: metadata.authnRequestsSigned, encryptionCertificate: metadata.encryptionCertificates.length > 0 }, chosenSettings(choices));
  return { ok: true, entityId: metadata.entityId, settings, warnings: metadataWarnings(metadata, settings) };
}

/** What the admin may want to know about the SP as registered, though it is not an error. */
function metadataWarnings(metadata: SpMetadata, settings: SamlSpSettings): string[] {
  const warnings: string[] = [];
  if (settings.requireSignedRequests && metadata.signingCertificates.length === 0) {
    warnings.push('signed requests are required, but the metadata has no signing certificate: every request of the site will be refused');
  }
  if (metadata.encryptionCertificates.length === 0) warnings.push('the metadata has no encryption certificate: assertions are sent signed, not encrypted');
  return warnings;
}

function read(xml: string): SpMetadata {
  const refuse = (reason: string): never => {
    throw new Refused(reason);
  };
  const notWellFormed = (message: unknown) => refuse(`the metadata is not well-formed XML (${String(message)})`);
  const parser = new DOMParser({ errorHandler: { error: notWellFormed, fatalError: notWellFormed } });
  const root = parser.parseFromString(xml, 'text/xml').documentElement;
  if (root?.namespaceURI !== METADATA_NS || root.localName !== 'EntityDescriptor') refuse('the metadata is not one md:EntityDescriptor');
  const entity = root as Element;
  const entityId = entity.getAttribute('entityID') ?? '';
  if (entityId === '') refuse('the EntityDescriptor has no entityID');
  const descriptors = children(entity, 'SPSSODescriptor').filter((sp) => (sp.getAttribute('protocolSupportEnumeration') ?? '').split(/\s+/).includes(SAML2_PROTOCOL));
  const [sp] = descriptors;
  if (sp === undefined || descriptors.length > 1) refuse('the metadata needs exactly one SAML 2.0 SPSSODescriptor');
  const descriptor = sp as Element;

  const endpoint = (element: Element, attribute: string): string => {
    const value = element.getAttribute(attribute) ?? '';
    const problem = endpointProblem(value);
    if (problem !== null) refuse(`${element.localName} ${attribute} ${JSON.stringify(value)} ${problem}`);
    return value;
  };
  const assertionConsumerServices = children(descriptor, 'AssertionConsumerService').map((acs) => {
    // xmldom's getAttribute answers '' for an attribute that is not there: hasAttribute tells.
    const index = acs.hasAttribute('index') ? acs.getAttribute('index') : null;
    if (index !== null && !/^\d{1,5}$/.test(index)) refuse(`AssertionConsumerService index ${JSON.stringify(index)} is not a number`);
    return { binding: acs.getAttribute('Binding') ?? '', location: endpoint(acs, 'Location'), index: index === null ? null : Number(index), isDefault: isTrue(acs.getAttribute('isDefault')) };
  });
  if (!assertionConsumerServices.some((acs) => acs.binding === HTTP_POST_BINDING)) refuse('the SP has no AssertionConsumerService with the HTTP-POST binding, the one responses are sent by');
  const singleLogoutServices = children(descriptor, 'SingleLogoutService').map((slo) => ({
    binding: slo.getAttribute('Binding') ?? '',
    location: endpoint(slo, 'Location'),
    responseLocation: slo.hasAttribute('ResponseLocation') ? endpoint(slo, 'ResponseLocation') : null,
  }));

  const certificates = (use: 'signing' | 'encryption') =>
    children(descriptor, 'KeyDescriptor')
      .filter((key) => !key.hasAttribute('use') || key.getAttribute('use') === use)
      .flatMap((key) => children(key, 'KeyInfo', DSIG_NS))
      .flatMap((info) => children(info, 'X509Data', DSIG_NS))
      .flatMap((data) => children(data, 'X509Certificate', DSIG_NS))
      .map((certificate) => pem(certificate.textContent ?? '') ?? refuse(`a ${use} X509Certificate is not a certificate`));

  return {
    entityId,
    assertionConsumerServices,
    singleLogoutServices,
    signingCertificates: certificates('signing'),
    encryptionCertificates: certificates('encryption'),
    authnRequestsSigned: isTrue(descriptor.getAttribute('AuthnRequestsSigned')),
    wantAssertionsSigned: isTrue(descriptor.getAttribute('WantAssertionsSigned')),
    nameIdFormats: children(descriptor, 'NameIDFormat').map((format) => (format.textContent ?? '').trim()),
  };
}

function children(parent: Element, localName: string, ns = METADATA_NS): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    const element = node as Element;
    if (node.nodeType === node.ELEMENT_NODE && element.namespaceURI === ns && element.localName === localName) found.push(element);
  }
  return found;
}

/** xs:boolean. */
function isTrue(value: string | null): boolean {
  return value === 'true' || value === '1';
}

/** Why an endpoint URL cannot be used, or null. */
function endpointProblem(value: string): string | null {
  const url = URL.canParse(value) ? new URL(value) : null;
  if (url === null) return 'is not an absolute URL';
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackName(url.hostname))) return null;
  return 'must be https (http only on a loopback host)';
}

/** The certificate's base64 as a PEM certificate, or null when it is not one. */
function pem(base64: string): string | null {
  const body = base64.replace(/\s+/g, '');
  const text = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(text);
    return text;
  } catch {
    return null;
  }
}

/** The longest a metadata URL may take to answer, whole. */
const FETCH_TIMEOUT_MS = 10_000;

/**
 * The metadata document at `url`: https, or http on a loopback host; no redirect followed (one could lead to
 * plain http); refused past METADATA_BOUNDS' length in bytes, read no further, and after FETCH_TIMEOUT_MS.
 * Rejects with an Error that says why.
 */
export async function fetchSpMetadata(url: string, timeoutMs = FETCH_TIMEOUT_MS): Promise<string> {
  const problem = endpointProblem(url);
  if (problem !== null) throw new Error(`the metadata URL ${problem}`);
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'error', signal, headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } });
  } catch (error) {
    throw new Error(`the metadata could not be fetched: ${signal.aborted ? `no answer within ${timeoutMs / 1000} s` : causeOf(error)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`the metadata could not be fetched: HTTP ${response.status}`);
  }
  try {
    return await boundedText(response, METADATA_BOUNDS.maxLength);
  } catch (error) {
    if (error instanceof BodyTooLong) throw new Error(`the metadata is ${error.message}`);
    throw new Error(`the metadata could not be fetched: ${signal.aborted ? `no answer within ${timeoutMs / 1000} s` : causeOf(error)}`);
  }
}

/** fetch's TypeError says only "fetch failed"; its cause says why (refused, no such host, a redirect). */
function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
