import { randomUUID } from 'node:crypto';
import samlify from 'samlify';
import type { AttributeValues } from './attribute-values.js';
import { signElement, signRoot, type SigningKey } from './signature.js';
import { optionalAttribute, xml, type Markup } from './xml-markup.js';

const { IdentityProvider, SamlLib, Utility } = samlify;

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

/** The top-level status codes (SAML core 3.2.2.2) and the second-level ones this IdP answers with. */
export const STATUS = {
  success: 'urn:oasis:names:tc:SAML:2.0:status:Success',
  requester: 'urn:oasis:names:tc:SAML:2.0:status:Requester',
  responder: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
  noPassive: 'urn:oasis:names:tc:SAML:2.0:status:NoPassive',
  invalidNameIdPolicy: 'urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy',
  requestDenied: 'urn:oasis:names:tc:SAML:2.0:status:RequestDenied',
  noAuthnContext: 'urn:oasis:names:tc:SAML:2.0:status:NoAuthnContext',
  partialLogout: 'urn:oasis:names:tc:SAML:2.0:status:PartialLogout',
} as const;

/** How long an assertion may be presented: the SP reads it the moment the browser posts it. */
export const ASSERTION_LIFETIME_MS = 5 * 60 * 1000;

/** Where a Response goes and what it answers. */
export interface ResponseAddress {
  /** The IdP's entity ID. */
  issuer: string;
  /** The SP's assertion consumer service URL, one of its metadata's. */
  destination: string;
  /** The AuthnRequest's ID; none for an IdP-initiated sign-in. */
  inResponseTo?: string | undefined;
  now: number;
}

/** The assertion of a sign-in. */
export interface LoginAssertion {
  /** The SP's entity ID. */
  audience: string;
  nameId: string;
  nameIdFormat: string;
  sessionIndex: string;
  /** When the member session began. */
  authnInstant: number;
  authnContextClassRef: string;
  attributes: readonly AttributeValues[];
}

/** How the SP's settings want the Response protected. */
export interface Protection {
  key: SigningKey;
  signResponse: boolean;
  signAssertion: boolean;
  /** The SP's encryption certificate (PEM or its base64 body): the assertion is encrypted for it. */
  encryptFor?: string | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();
const newId = () => `_${randomUUID()}`;

function attributeStatement(attributes: readonly AttributeValues[]): Markup {
  if (attributes.length === 0) return xml``;
  const each = attributes.map(
    (attribute) =>
      xml`<saml:Attribute Name="${attribute.name}" NameFormat="${attribute.nameFormat}"${optionalAttribute('FriendlyName', attribute.friendlyName)}>${attribute.values.map(
        (value) => xml`<saml:AttributeValue xsi:type="xs:string">${value}</saml:AttributeValue>`,
      )}</saml:Attribute>`,
  );
  return xml`<saml:AttributeStatement>${each}</saml:AttributeStatement>`;
}

function assertionXml(address: ResponseAddress, assertion: LoginAssertion): Markup {
  const { issuer, destination, inResponseTo, now } = address;
  const notOnOrAfter = iso(now + ASSERTION_LIFETIME_MS);
  return xml`<saml:Assertion xmlns:saml="${ASSERTION}" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ID="${newId()}" Version="2.0" IssueInstant="${iso(now)}"><saml:Issuer>${issuer}</saml:Issuer><saml:Subject><saml:NameID Format="${assertion.nameIdFormat}">${assertion.nameId}</saml:NameID><saml:SubjectConfirmation Method="${BEARER}"><saml:SubjectConfirmationData${optionalAttribute('InResponseTo', inResponseTo)} NotOnOrAfter="${notOnOrAfter}" Recipient="${destination}"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${iso(now)}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${assertion.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${iso(assertion.authnInstant)}" SessionIndex="${assertion.sessionIndex}"><saml:AuthnContext><saml:AuthnContextClassRef>${assertion.authnContextClassRef}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>${attributeStatement(assertion.attributes)}</saml:Assertion>`;
}

function responseXml(address: ResponseAddress, status: Markup, assertion: Markup): string {
  const { issuer, destination, inResponseTo, now } = address;
  return xml`<samlp:Response xmlns:samlp="${PROTOCOL}" xmlns:saml="${ASSERTION}" ID="${newId()}" Version="2.0" IssueInstant="${iso(now)}" Destination="${destination}"${optionalAttribute('InResponseTo', inResponseTo)}><saml:Issuer>${issuer}</saml:Issuer><samlp:Status>${status}</samlp:Status>${assertion}</samlp:Response>`.text;
}

const RESPONSE = "/*[local-name(.)='Response']";
const ASSERTION_PATH = `${RESPONSE}/*[local-name(.)='Assertion']`;

/** The assertion encrypted (AES-256-GCM, its key by RSA-OAEP) for the SP's certificate, by samlify. */
async function encrypted(responseText: string, certificate: string): Promise<string> {
  const { algorithms } = samlify.Constants;
  // samlify's settings type leaves out the algorithms its entities read.
  const settings = {
    isAssertionEncrypted: true,
    dataEncryptionAlgorithm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
    keyEncryptionAlgorithm: algorithms.encryption.key.RSA_OAEP_MGF1P,
    // Endpoints samlify's entity insists on, which encrypting does not use.
    singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.post, Location: 'urn:unused' }],
    singleLogoutService: [{ Binding: samlify.Constants.namespace.binding.post, Location: 'urn:unused' }],
  };
  const idp = IdentityProvider(settings);
  const sp = samlify.ServiceProvider({ encryptCert: Utility.normalizeCerString(certificate), assertionConsumerService: [] });
  return Utility.base64Decode(await SamlLib.encryptAssertion(idp, sp, responseText)) as string;
}

/**
 * A successful Response carrying the sign-in's assertion, base64 for the HTTP-POST binding. In the order that
 * keeps every signature valid: the assertion signed, then encrypted, then the Response signed around it.
 */
export async function loginResponse(address: ResponseAddress, assertion: LoginAssertion, protection: Protection): Promise<string> {
  let text = responseXml(address, xml`<samlp:StatusCode Value="${STATUS.success}"/>`, assertionXml(address, assertion));
  if (protection.signAssertion) text = signElement(text, protection.key, { xpath: ASSERTION_PATH, issuerXPath: `${ASSERTION_PATH}/*[local-name(.)='Issuer']` });
  if (protection.encryptFor !== undefined) text = await encrypted(text, protection.encryptFor);
  if (protection.signResponse) text = signRoot(text, protection.key, 'Response');
  return Buffer.from(text).toString('base64');
}

/** A Response that refuses the request with a status (NoPassive, RequestDenied...), signed, base64 for HTTP-POST. */
export function statusResponse(address: ResponseAddress, status: { top: string; second?: string | undefined }, key: SigningKey): string {
  const code =
    status.second === undefined ? xml`<samlp:StatusCode Value="${status.top}"/>` : xml`<samlp:StatusCode Value="${status.top}"><samlp:StatusCode Value="${status.second}"/></samlp:StatusCode>`;
  return Buffer.from(signRoot(responseXml(address, code, xml``), key, 'Response')).toString('base64');
}
