/**
 * An SP's metadata as the admin CLI reads it (src/saml/sp-metadata.ts): what node-saml (an SP independent of
 * the identity provider's library) publishes, a Shibboleth SP's shape, what is refused and why, and a metadata
 * URL fetched within its bounds.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { fetchSpMetadata, HTTP_POST_BINDING, readSpMetadata, type SpMetadata } from '../../src/saml/sp-metadata.js';
import { METADATA_BOUNDS } from '../../src/saml/xml-guard.js';
import { selfSignedKey, type KeyAndCertificate } from '../../src/service/saml/certificate.js';

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const SOAP = 'urn:oasis:names:tc:SAML:2.0:bindings:SOAP';

/** Made before the tables of cases below, which hold the certificates. */
const signing: KeyAndCertificate = await selfSignedKey('sp.example.org', Date.now());
const encryption: KeyAndCertificate = await selfSignedKey('sp.example.org', Date.now());

const base64Of = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');

function metadata(ok: ReturnType<typeof readSpMetadata>): SpMetadata {
  if (!ok.ok) throw new Error(ok.reason);
  return ok.metadata;
}

function refusal(xml: string): string {
  const read = readSpMetadata(xml);
  if (read.ok) throw new Error('read, not refused');
  return read.reason;
}

/** A Shibboleth SP's metadata, trimmed: several endpoints, a KeyDescriptor without `use`, extensions of other namespaces. */
function shibboleth(changes: { acs?: string; slo?: string; key?: string; root?: (descriptor: string) => string } = {}): string {
  const descriptor = `<md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol urn:oasis:names:tc:SAML:1.1:protocol">
      <md:Extensions><init:RequestInitiator xmlns:init="urn:oasis:names:tc:SAML:profiles:SSO:request-init" Binding="urn:oasis:names:tc:SAML:profiles:SSO:request-init" Location="https://sp.example.org/Shibboleth.sso/Login"/></md:Extensions>
      ${changes.key ?? `<md:KeyDescriptor><ds:KeyInfo><ds:X509Data><ds:X509Certificate>\n${base64Of(signing.certificatePem)}\n</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`}
      ${changes.slo ?? `<md:SingleLogoutService Binding="${SOAP}" Location="https://sp.example.org/Shibboleth.sso/SLO/SOAP"/>
      <md:SingleLogoutService Binding="${REDIRECT}" Location="https://sp.example.org/Shibboleth.sso/SLO/Redirect" ResponseLocation="https://sp.example.org/Shibboleth.sso/SLO/Return"/>`}
      <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:transient</md:NameIDFormat>
      ${changes.acs ?? `<md:AssertionConsumerService Binding="${HTTP_POST_BINDING}" Location="https://sp.example.org/Shibboleth.sso/SAML2/POST" index="1" isDefault="true"/>
      <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact" Location="https://sp.example.org/Shibboleth.sso/SAML2/Artifact" index="3"/>`}
    </md:SPSSODescriptor>`;
  const entity = (inner: string) => `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://sp.example.org/shibboleth">${inner}</md:EntityDescriptor>`;
  return (changes.root ?? entity)(descriptor);
}

describe('reading', () => {
  test("node-saml's metadata: entity id, the ACS and SLO endpoints, both certificates, what it asks for", () => {
    const xml = generateServiceProviderMetadata({
      issuer: 'https://portal.example.org/saml',
      callbackUrl: 'https://portal.example.org/saml/acs',
      logoutCallbackUrl: 'http://127.0.0.1:4000/saml/slo',
      identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      wantAssertionsSigned: true,
      decryptionCert: encryption.certificatePem,
      decryptionPvk: encryption.privateKeyPem,
      publicCerts: signing.certificatePem,
      privateKey: signing.privateKeyPem,
    });
    expect(metadata(readSpMetadata(xml))).toEqual({
      entityId: 'https://portal.example.org/saml',
      assertionConsumerServices: [{ binding: HTTP_POST_BINDING, location: 'https://portal.example.org/saml/acs', index: 1, isDefault: true }],
      singleLogoutServices: [{ binding: HTTP_POST_BINDING, location: 'http://127.0.0.1:4000/saml/slo', responseLocation: null }],
      signingCertificates: [expect.stringContaining(base64Of(signing.certificatePem).slice(0, 64))],
      encryptionCertificates: [expect.stringContaining(base64Of(encryption.certificatePem).slice(0, 64))],
      authnRequestsSigned: true,
      wantAssertionsSigned: true,
      nameIdFormats: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
    });
  });

  test("a Shibboleth SP's: every endpoint with its index, default and response location; a key without use signs and encrypts", () => {
    const read = metadata(readSpMetadata(shibboleth()));
    expect(read.assertionConsumerServices).toEqual([
      { binding: HTTP_POST_BINDING, location: 'https://sp.example.org/Shibboleth.sso/SAML2/POST', index: 1, isDefault: true },
      { binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact', location: 'https://sp.example.org/Shibboleth.sso/SAML2/Artifact', index: 3, isDefault: false },
    ]);
    expect(read.singleLogoutServices).toEqual([
      { binding: SOAP, location: 'https://sp.example.org/Shibboleth.sso/SLO/SOAP', responseLocation: null },
      { binding: REDIRECT, location: 'https://sp.example.org/Shibboleth.sso/SLO/Redirect', responseLocation: 'https://sp.example.org/Shibboleth.sso/SLO/Return' },
    ]);
    expect(read.signingCertificates).toEqual(read.encryptionCertificates);
    expect(read.signingCertificates).toHaveLength(1);
    expect(read.authnRequestsSigned).toBe(false);
    expect(read.nameIdFormats).toEqual(['urn:oasis:names:tc:SAML:2.0:nameid-format:transient']);
  });

  test.each([
    ['a DTD', `<!DOCTYPE x [<!ENTITY e "e">]>${shibboleth()}`, 'the metadata is refused: a DTD'],
    ['not XML', 'metadata', 'the metadata is refused: not well-formed XML'],
    ['another root', shibboleth({ root: (d) => `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><md:EntityDescriptor entityID="x">${d}</md:EntityDescriptor></md:EntitiesDescriptor>` }), 'the metadata is not one md:EntityDescriptor'],
    ['the wrong namespace', shibboleth({ root: (d) => `<EntityDescriptor xmlns="urn:example" xmlns:md="urn:example" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="x">${d}</EntityDescriptor>` }), 'the metadata is not one md:EntityDescriptor'],
    ['no entityID', shibboleth({ root: (d) => `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">${d}</md:EntityDescriptor>` }), 'the EntityDescriptor has no entityID'],
    ['an IdP only', '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></md:EntityDescriptor>', 'exactly one SAML 2.0 SPSSODescriptor'],
    ['no HTTP-POST ACS', shibboleth({ acs: `<md:AssertionConsumerService Binding="${REDIRECT}" Location="https://sp.example.org/acs" index="0"/>` }), 'no AssertionConsumerService with the HTTP-POST binding'],
    ['an ACS in the clear', shibboleth({ acs: `<md:AssertionConsumerService Binding="${HTTP_POST_BINDING}" Location="http://sp.example.org/acs" index="0"/>` }), 'AssertionConsumerService Location "http://sp.example.org/acs" must be https (http only on a loopback host)'],
    ['a relative ACS', shibboleth({ acs: `<md:AssertionConsumerService Binding="${HTTP_POST_BINDING}" Location="/acs" index="0"/>` }), 'is not an absolute URL'],
    ['a bad index', shibboleth({ acs: `<md:AssertionConsumerService Binding="${HTTP_POST_BINDING}" Location="https://sp.example.org/acs" index="-1"/>` }), 'index "-1" is not a number'],
    ['an SLO response location in the clear', shibboleth({ slo: `<md:SingleLogoutService Binding="${REDIRECT}" Location="https://sp.example.org/slo" ResponseLocation="http://sp.example.org/back"/>` }), 'SingleLogoutService ResponseLocation "http://sp.example.org/back" must be https'],
    ['a broken certificate', shibboleth({ key: '<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>TUlJQg==</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>' }), 'a signing X509Certificate is not a certificate'],
  ])('%s is refused, saying why', (_, xml, reason) => {
    expect(refusal(xml)).toContain(reason);
  });
});

describe('fetching', () => {
  let server: Server;
  let origin: string;
  let handler: RequestListener;

  beforeAll(async () => {
    server = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('a loopback http URL is fetched whole', async () => {
    handler = (_, res) => res.end(shibboleth());
    expect(await fetchSpMetadata(`${origin}/metadata`)).toBe(shibboleth());
  });

  test('http beyond loopback, and a URL that is none, are refused before any request', async () => {
    await expect(fetchSpMetadata('http://sp.example.org/metadata')).rejects.toThrow('the metadata URL must be https (http only on a loopback host)');
    await expect(fetchSpMetadata('metadata.xml')).rejects.toThrow('the metadata URL is not an absolute URL');
  });

  test('an error status, a redirect, a document past the bounds and a server that does not answer in time are refused', async () => {
    handler = (_, res) => res.writeHead(404).end('no');
    await expect(fetchSpMetadata(`${origin}/metadata`)).rejects.toThrow('the metadata could not be fetched: HTTP 404');
    handler = (_, res) => res.writeHead(302, { location: 'http://sp.example.org/metadata' }).end();
    await expect(fetchSpMetadata(`${origin}/metadata`)).rejects.toThrow('the metadata could not be fetched: ');
    handler = (_, res) => res.end('x'.repeat(METADATA_BOUNDS.maxLength + 1));
    await expect(fetchSpMetadata(`${origin}/metadata`)).rejects.toThrow(`the metadata is longer than ${METADATA_BOUNDS.maxLength} bytes`);
    handler = () => undefined;
    await expect(fetchSpMetadata(`${origin}/metadata`, 200)).rejects.toThrow('the metadata could not be fetched: no answer within 0.2 s');
  });
});
