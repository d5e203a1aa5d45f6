import type { MessageParameter } from './bindings.js';
import { attribute, childElements, optionalChild, requiredAttribute, requiredChild, SAML_NS, SAMLP_NS, textOf } from './dom.js';
import { refuse } from './refusal.js';

/** What every protocol message of a service provider says of itself. */
interface MessageHeader {
  id: string;
  /** Milliseconds since the epoch. */
  issueInstant: number;
  destination?: string;
  issuer: string;
}

export interface AuthnRequestMsg extends MessageHeader {
  kind: 'AuthnRequest';
  assertionConsumerServiceUrl?: string;
  assertionConsumerServiceIndex?: number;
  protocolBinding?: string;
  forceAuthn: boolean;
  isPassive: boolean;
  nameIdPolicy?: { format?: string; allowCreate?: boolean; spNameQualifier?: string };
  requestedAuthnContext?: { comparison: 'exact' | 'minimum' | 'maximum' | 'better'; classRefs: string[]; declRefs: string[] };
}

export interface LogoutRequestMsg extends MessageHeader {
  kind: 'LogoutRequest';
  nameId: { value: string; format?: string; nameQualifier?: string; spNameQualifier?: string };
  sessionIndexes: string[];
  notOnOrAfter?: number;
  reason?: string;
}

export interface LogoutResponseMsg extends MessageHeader {
  kind: 'LogoutResponse';
  inResponseTo?: string;
  /** The top-level StatusCode's Value, e.g. urn:oasis:names:tc:SAML:2.0:status:Success. */
  statusCode: string;
  subStatusCode?: string;
}

export type InboundMessage = AuthnRequestMsg | LogoutRequestMsg | LogoutResponseMsg;

const ENTITY_FORMAT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:entity';

/** xs:dateTime with a time zone (SAML core 1.3.3 wants UTC; one without a zone would be read in the server's). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

function dateTime(element: Element, name: string, value: string): number {
  const ms = DATE_TIME.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) refuse('message', `${element.localName} with a ${name} that is not a UTC date and time`);
  return ms;
}

function optionalBoolean(element: Element, name: string): boolean | undefined {
  const value = attribute(element, name);
  if (value === undefined) return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return refuse('message', `${element.localName} with a ${name} that is not a boolean`);
}

/** The Issuer a message names as its sender: its text, an entity ID (the only format a service provider's may have). */
export function issuerOf(root: Element): string {
  const issuer = requiredChild(root, SAML_NS, 'Issuer');
  const format = attribute(issuer, 'Format');
  if (format !== undefined && format !== ENTITY_FORMAT) refuse('message', 'an Issuer that is not an entity ID');
  const value = textOf(issuer);
  if (value === '') refuse('message', 'an empty Issuer');
  return value;
}

function header(root: Element): MessageHeader {
  if (attribute(root, 'Version') !== '2.0') refuse('message', `${root.localName} that is not SAML 2.0`);
  const destination = attribute(root, 'Destination');
  return {
    id: requiredAttribute(root, 'ID'),
    issueInstant: dateTime(root, 'IssueInstant', requiredAttribute(root, 'IssueInstant')),
    ...(destination === undefined ? {} : { destination }),
    issuer: issuerOf(root),
  };
}

/** Drops the fields an element did not have, so that a message holds only what was sent. */
function present<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}

const COMPARISONS = ['exact', 'minimum', 'maximum', 'better'] as const;

function requestedAuthnContext(request: Element): AuthnRequestMsg['requestedAuthnContext'] {
  const context = optionalChild(request, SAMLP_NS, 'RequestedAuthnContext');
  if (context === undefined) return undefined;
  const comparison = attribute(context, 'Comparison') ?? 'exact';
  if (!(COMPARISONS as readonly string[]).includes(comparison)) refuse('message', 'a RequestedAuthnContext with an unknown Comparison');
  const classRefs = childElements(context, SAML_NS, 'AuthnContextClassRef').map(textOf);
  const declRefs = childElements(context, SAML_NS, 'AuthnContextDeclRef').map(textOf);
  if (classRefs.length + declRefs.length === 0) refuse('message', 'a RequestedAuthnContext naming no context');
  return { comparison: comparison as (typeof COMPARISONS)[number], classRefs, declRefs };
}

function authnRequest(request: Element): AuthnRequestMsg {
  const index = attribute(request, 'AssertionConsumerServiceIndex');
  if (index !== undefined && !/^\d{1,5}$/.test(index)) refuse('message', 'an AssertionConsumerServiceIndex that is not an index');
  const policy = optionalChild(request, SAMLP_NS, 'NameIDPolicy');
  return present({
    kind: 'AuthnRequest' as const,
    ...header(request),
    assertionConsumerServiceUrl: attribute(request, 'AssertionConsumerServiceURL'),
    assertionConsumerServiceIndex: index === undefined ? undefined : Number(index),
    protocolBinding: attribute(request, 'ProtocolBinding'),
    forceAuthn: optionalBoolean(request, 'ForceAuthn') ?? false,
    isPassive: optionalBoolean(request, 'IsPassive') ?? false,
    nameIdPolicy:
      policy === undefined
        ? undefined
        : present({ format: attribute(policy, 'Format'), allowCreate: optionalBoolean(policy, 'AllowCreate'), spNameQualifier: attribute(policy, 'SPNameQualifier') }),
    requestedAuthnContext: requestedAuthnContext(request),
  });
}

function logoutRequest(request: Element): LogoutRequestMsg {
  for (const hidden of ['BaseID', 'EncryptedID']) {
    if (childElements(request, SAML_NS, hidden).length > 0) refuse('message', `a LogoutRequest naming its subject by ${hidden}, which this provider does not issue`);
  }
  const nameId = requiredChild(request, SAML_NS, 'NameID');
  const notOnOrAfter = attribute(request, 'NotOnOrAfter');
  return present({
    kind: 'LogoutRequest' as const,
    ...header(request),
    nameId: present({
      value: textOf(nameId),
      format: attribute(nameId, 'Format'),
      nameQualifier: attribute(nameId, 'NameQualifier'),
      spNameQualifier: attribute(nameId, 'SPNameQualifier'),
    }),
    sessionIndexes: childElements(request, SAMLP_NS, 'SessionIndex').map(textOf),
    notOnOrAfter: notOnOrAfter === undefined ? undefined : dateTime(request, 'NotOnOrAfter', notOnOrAfter),
    reason: attribute(request, 'Reason'),
  });
}

function logoutResponse(response: Element): LogoutResponseMsg {
  const status = requiredChild(response, SAMLP_NS, 'Status');
  const code = requiredChild(status, SAMLP_NS, 'StatusCode');
  const subCode = optionalChild(code, SAMLP_NS, 'StatusCode');
  return present({
    kind: 'LogoutResponse' as const,
    ...header(response),
    inResponseTo: attribute(response, 'InResponseTo'),
    statusCode: requiredAttribute(code, 'Value'),
    subStatusCode: subCode === undefined ? undefined : requiredAttribute(subCode, 'Value'),
  });
}

type Reader = (root: Element) => InboundMessage;

const READERS: Record<MessageParameter, Map<string, Reader>> = {
  SAMLRequest: new Map<string, Reader>([
    ['AuthnRequest', authnRequest],
    ['LogoutRequest', logoutRequest],
  ]),
  SAMLResponse: new Map<string, Reader>([['LogoutResponse', logoutResponse]]),
};

/** The message a root element holds, if it is one a service provider sends an identity provider in this parameter. */
export function readMessage(root: Element, parameter: MessageParameter): InboundMessage {
  const reader = root.namespaceURI === SAMLP_NS ? READERS[parameter].get(root.localName) : undefined;
  if (reader === undefined) refuse('message', `${parameter} holding a message this identity provider does not take`);
  return reader(root);
}
