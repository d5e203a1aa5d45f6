import { ServiceError } from '../errors.js';

export type SamlNameIdFormat = 'persistent' | 'emailAddress' | 'transient';
export const SAML_NAME_ID_FORMATS: readonly SamlNameIdFormat[] = ['persistent', 'emailAddress', 'transient'];

/** A member field an attribute carries. */
export type SamlMemberField = 'id' | 'username' | 'email' | 'firstName' | 'lastName' | 'displayName' | 'isMember' | 'roles';
export const SAML_MEMBER_FIELDS: readonly SamlMemberField[] = ['id', 'username', 'email', 'firstName', 'lastName', 'displayName', 'isMember', 'roles'];

/** An attribute of the assertion: its name (a URI, or a basic name), and the member field it carries. */
export interface SamlAttribute {
  name: string;
  friendlyName?: string;
  nameFormat: 'uri' | 'basic';
  field: SamlMemberField;
}

/** How the identity provider answers one SP. */
export interface SamlSpSettings {
  nameIdFormat: SamlNameIdFormat;
  attributes: SamlAttribute[];
  signResponse: boolean;
  signAssertion: boolean;
  requireSignedRequests: boolean;
  encryptAssertion: boolean;
}

/** What the defaults follow in an SP's metadata (src/saml/sp-metadata.ts reads it): the service reads no XML. */
export interface SamlSpMetadataFacts {
  /** Its SPSSODescriptor's AuthnRequestsSigned. */
  authnRequestsSigned: boolean;
  /** Whether it has an encryption certificate. */
  encryptionCertificate: boolean;
}

/**
 * The attributes an SP gets unless told otherwise: the eduPerson/inetOrgPerson names by OID that most SAML SPs
 * (Shibboleth's attribute map among them) know, with their friendly names, and the member's id, flag and roles.
 */
export const DEFAULT_SAML_ATTRIBUTES: readonly SamlAttribute[] = [
  { name: 'urn:oid:0.9.2342.19200300.100.1.3', friendlyName: 'mail', nameFormat: 'uri', field: 'email' },
  { name: 'urn:oid:2.5.4.42', friendlyName: 'givenName', nameFormat: 'uri', field: 'firstName' },
  { name: 'urn:oid:2.5.4.4', friendlyName: 'sn', nameFormat: 'uri', field: 'lastName' },
  { name: 'urn:oid:2.16.840.1.113730.3.1.241', friendlyName: 'displayName', nameFormat: 'uri', field: 'displayName' },
  { name: 'memberId', nameFormat: 'basic', field: 'id' },
  { name: 'isMember', nameFormat: 'basic', field: 'isMember' },
  { name: 'roles', nameFormat: 'basic', field: 'roles' },
];

/**
 * An SP's settings: the defaults (the member's id as a persistent NameID, the default attributes, response and
 * assertion signed, signed requests and encryption as its metadata says), with what the admin chose instead.
 */
export function samlSpSettings(facts: SamlSpMetadataFacts, chosen: Partial<SamlSpSettings> = {}): SamlSpSettings {
  return {
    nameIdFormat: 'persistent',
    attributes: DEFAULT_SAML_ATTRIBUTES.map((attribute) => ({ ...attribute })),
    signResponse: true,
    signAssertion: true,
    requireSignedRequests: facts.authnRequestsSigned,
    encryptAssertion: facts.encryptionCertificate,
    ...chosen,
  };
}

/** What is signed, as the admin chooses it: the response and the assertion (the default), or one of them. */
export const SAML_SIGNED = ['both', 'response', 'assertion'] as const;
export type SamlSigned = (typeof SAML_SIGNED)[number];

/** What the admin chose for an SP instead of the defaults, as the CLI's `saml-sps add` and the staff console's form take it. */
export interface SamlSpChoices {
  nameIdFormat?: SamlNameIdFormat | undefined;
  /** Instead of the default set. */
  attributes?: SamlAttribute[] | undefined;
  /** Refuse its unsigned requests even if its metadata does not say it signs them. */
  requireSignedRequests?: boolean | undefined;
  /** false: do not encrypt assertions, although its metadata has an encryption certificate. */
  encrypt?: boolean | undefined;
  sign?: SamlSigned | undefined;
}

/** The settings the admin's choices set, for samlSpSettings. */
export function chosenSettings(choices: SamlSpChoices): Partial<SamlSpSettings> {
  const sign = choices.sign ?? 'both';
  return {
    ...(choices.nameIdFormat && { nameIdFormat: choices.nameIdFormat }),
    ...(choices.attributes && { attributes: choices.attributes }),
    ...(choices.requireSignedRequests && { requireSignedRequests: true }),
    ...(choices.encrypt === false && { encryptAssertion: false }),
    signResponse: sign !== 'assertion',
    signAssertion: sign !== 'response',
  };
}

/** NAME=FIELD: an attribute named as the SP wants it, carrying a member field (a URN or URL name is a URI name); null when it is not one. */
export function samlAttribute(text: string): SamlAttribute | null {
  const at = text.lastIndexOf('=');
  const name = text.slice(0, at).trim();
  const field = text.slice(at + 1).trim() as SamlMemberField;
  if (at < 1 || name === '' || !SAML_MEMBER_FIELDS.includes(field)) return null;
  return { name, nameFormat: /^(urn|https?):/i.test(name) ? 'uri' : 'basic', field };
}

const MAX_ATTRIBUTE_NAME_LENGTH = 256;

/** The settings as given; SAML_SP_INVALID says what cannot be stored (the CLI checks its options first). */
export function checkedSettings(settings: SamlSpSettings): SamlSpSettings {
  const invalid = (detail: string) => new ServiceError('SAML_SP_INVALID', detail);
  if (!SAML_NAME_ID_FORMATS.includes(settings.nameIdFormat)) throw invalid(`unknown NameID format ${String(settings.nameIdFormat)}`);
  if (!settings.signResponse && !settings.signAssertion) throw invalid('the response, the assertion or both must be signed');
  const names = new Set<string>();
  for (const attribute of settings.attributes) {
    if (attribute.name === '' || attribute.name.length > MAX_ATTRIBUTE_NAME_LENGTH) throw invalid(`an attribute name must have 1 to ${MAX_ATTRIBUTE_NAME_LENGTH} characters`);
    if (!SAML_MEMBER_FIELDS.includes(attribute.field)) throw invalid(`attribute ${attribute.name}: unknown member field ${String(attribute.field)}`);
    if (names.has(attribute.name)) throw invalid(`attribute ${attribute.name} is given twice`);
    names.add(attribute.name);
  }
  return settings;
}
