import { randomUUID } from 'node:crypto';
import samlify from 'samlify';
import { STATUS } from './login-response.js';
import type { SigningKey } from './signature.js';
import { optionalAttribute, xml } from './xml-markup.js';

const { IdentityProvider, ServiceProvider, Utility, Constants } = samlify;
const { binding: BINDINGS } = Constants.namespace;

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';

/** How a logout message reaches an SP's endpoint through the browser: a redirect to a URL, or a form posted. */
export type FrontChannelMessage = { binding: 'redirect'; url: string } | { binding: 'post'; url: string; fields: Record<string, string> };

/** Whom a LogoutRequest names: the NameID and SessionIndex the SP was given at sign-in. */
export interface LogoutSubject {
  nameId: string;
  nameIdFormat: string;
  sessionIndex: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** samlify's entities for one message: this IdP with its signing key, the SP with the one endpoint the message goes to. */
function entities(issuer: string, key: SigningKey, spEntityId: string, endpoint: { binding: 'redirect' | 'post'; location: string }) {
  const idp = IdentityProvider({
    entityID: issuer,
    signingCert: Utility.normalizeCerString(key.certificatePem),
    privateKey: key.privateKeyPem,
    singleSignOnService: [{ Binding: BINDINGS.redirect, Location: issuer }],
    singleLogoutService: [{ Binding: BINDINGS.redirect, Location: issuer }],
  });
  const sp = ServiceProvider({
    entityID: spEntityId,
    wantLogoutRequestSigned: true,
    wantLogoutResponseSigned: true,
    singleLogoutService: [{ Binding: BINDINGS[endpoint.binding], Location: endpoint.location }],
  });
  return { idp, sp };
}

function front(made: { context: string }, binding: 'redirect' | 'post', location: string, relayState: string | undefined, field: 'SAMLRequest' | 'SAMLResponse'): FrontChannelMessage {
  if (binding === 'redirect') return { binding, url: made.context };
  return { binding, url: location, fields: relayState === undefined ? { [field]: made.context } : { [field]: made.context, RelayState: relayState } };
}

/** The XML of a LogoutRequest to an SP; every value escaped (src/saml/xml-markup.ts). */
function logoutRequestXml(issuer: string, destination: string, subject: LogoutSubject, id: string): string {
  return xml`<samlp:LogoutRequest xmlns:samlp="${PROTOCOL}" xmlns:saml="${ASSERTION}" ID="${id}" Version="2.0" IssueInstant="${iso(Date.now())}" Destination="${destination}"><saml:Issuer>${issuer}</saml:Issuer><saml:NameID Format="${subject.nameIdFormat}">${subject.nameId}</saml:NameID><samlp:SessionIndex>${subject.sessionIndex}</samlp:SessionIndex></samlp:LogoutRequest>`.text;
}

/**
 * A signed LogoutRequest telling an SP that the member session it takes part in ended, written here and signed
 * and encoded by samlify: a redirect URL with the query signature, or a form with the enveloped signature.
 */
export function logoutRequest(
  issuer: string,
  key: SigningKey,
  sp: { entityId: string; binding: 'redirect' | 'post'; location: string },
  subject: LogoutSubject,
  relayState?: string,
): { id: string; message: FrontChannelMessage } {
  const { idp, sp: target } = entities(issuer, key, sp.entityId, sp);
  const id = `_${randomUUID()}`;
  const context = logoutRequestXml(issuer, sp.location, subject, id);
  const made = idp.createLogoutRequest(target, sp.binding, {}, { ...(relayState === undefined ? {} : { relayState }), customTagReplacement: () => ({ id, context }) }) as { context: string };
  return { id, message: front(made, sp.binding, sp.location, relayState, 'SAMLRequest') };
}

/** The same LogoutRequest, signed, as XML for the SOAP back channel, with its ID (which the SP's answer must name). */
export function logoutRequestXmlSigned(issuer: string, key: SigningKey, sp: { entityId: string; location: string }, subject: LogoutSubject): { id: string; xml: string } {
  const { id, message } = logoutRequest(issuer, key, { ...sp, binding: 'post' }, subject);
  return { id, xml: message.binding === 'post' ? (Utility.base64Decode(message.fields['SAMLRequest'] ?? '') as string) : '' };
}

/** The signed LogoutResponse to the SP that asked for the logout: Success, or PartialLogout when not every SP was told. */
export function logoutResponse(
  issuer: string,
  key: SigningKey,
  sp: { entityId: string; binding: 'redirect' | 'post'; location: string },
  answer: { inResponseTo: string; partial: boolean; relayState?: string | undefined },
): FrontChannelMessage {
  const { idp, sp: target } = entities(issuer, key, sp.entityId, sp);
  const id = `_${randomUUID()}`;
  const status = answer.partial ? xml`<samlp:StatusCode Value="${STATUS.success}"><samlp:StatusCode Value="${STATUS.partialLogout}"/></samlp:StatusCode>` : xml`<samlp:StatusCode Value="${STATUS.success}"/>`;
  const context = xml`<samlp:LogoutResponse xmlns:samlp="${PROTOCOL}" xmlns:saml="${ASSERTION}" ID="${id}" Version="2.0" IssueInstant="${iso(Date.now())}" Destination="${sp.location}"${optionalAttribute('InResponseTo', answer.inResponseTo)}><saml:Issuer>${issuer}</saml:Issuer><samlp:Status>${status}</samlp:Status></samlp:LogoutResponse>`.text;
  const relayState = answer.relayState;
  const made = idp.createLogoutResponse(target, { extract: { request: { id: answer.inResponseTo } } }, sp.binding, { ...(relayState === undefined ? {} : { relayState }), customTagReplacement: () => ({ id, context }) }) as { context: string };
  return front(made, sp.binding, sp.location, relayState, 'SAMLResponse');
}
