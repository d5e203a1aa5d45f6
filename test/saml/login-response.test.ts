import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAML, ValidateInResponseTo, type SamlConfig } from '@node-saml/node-saml';
import { ATTRIBUTE_NAME_FORMATS } from '../../src/saml/attribute-values.js';
import { loginResponse, STATUS, statusResponse, type LoginAssertion, type Protection, type ResponseAddress } from '../../src/saml/login-response.js';
import { NAME_ID_FORMATS } from '../../src/saml/name-id.js';
import { selfSignedCertificate, type Certificate } from '../helpers/certificate.js';

/**
 * The Response the identity provider writes, read by @node-saml/node-saml as a service provider would: the
 * signatures verify, the encrypted assertion decrypts, and every value reads back as it was, markup included.
 */
const IDP = 'https://idp.example.org/saml/metadata';
const SP = 'https://sp.example.net/shibboleth';
const ACS = 'https://sp.example.net/Shibboleth.sso/SAML2/POST';
const PASSWORD_CLASS = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';

let dir: string;
let idpKey: Certificate;
let spKey: Certificate;
let otherKey: Certificate;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'saml-response-'));
  idpKey = selfSignedCertificate(dir, 'rsa', 'idp');
  spKey = selfSignedCertificate(dir, 'rsa', 'sp');
  otherKey = selfSignedCertificate(dir, 'rsa', 'other');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const address = (): ResponseAddress => ({ issuer: IDP, destination: ACS, inResponseTo: '_request-1', now: Date.now() });
const assertion = (overrides: Partial<LoginAssertion> = {}): LoginAssertion => ({
  audience: SP,
  nameId: 'member-1',
  nameIdFormat: NAME_ID_FORMATS.persistent,
  sessionIndex: '_session-1',
  authnInstant: Date.now() - 60_000,
  authnContextClassRef: PASSWORD_CLASS,
  attributes: [
    { name: 'urn:oid:0.9.2342.19200300.100.1.3', nameFormat: ATTRIBUTE_NAME_FORMATS.uri, friendlyName: 'mail', values: ['ada@example.org'] },
    { name: 'roles', nameFormat: ATTRIBUTE_NAME_FORMATS.basic, values: ['Board', 'Members & <Friends>'] },
  ],
  ...overrides,
});
const protection = (overrides: Partial<Protection> = {}): Protection => ({
  key: { privateKeyPem: idpKey.key, certificatePem: idpKey.cert },
  signResponse: true,
  signAssertion: true,
  ...overrides,
});

function serviceProvider(options: Partial<SamlConfig> = {}): SAML {
  return new SAML({
    callbackUrl: ACS,
    issuer: SP,
    audience: SP,
    idpIssuer: IDP,
    idpCert: idpKey.cert,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: true,
    validateInResponseTo: ValidateInResponseTo.never,
    ...options,
  });
}

const decoded = (response: string) => Buffer.from(response, 'base64').toString('utf8');

describe('loginResponse', () => {
  it('signs the assertion and the Response; the SP reads the NameID, session index and attributes, several values included', async () => {
    const SAMLResponse = await loginResponse(address(), assertion(), protection());
    const { profile } = await serviceProvider().validatePostResponseAsync({ SAMLResponse });
    expect(profile).toMatchObject({
      issuer: IDP,
      nameID: 'member-1',
      nameIDFormat: NAME_ID_FORMATS.persistent,
      sessionIndex: '_session-1',
      'urn:oid:0.9.2342.19200300.100.1.3': 'ada@example.org',
      roles: ['Board', 'Members & <Friends>'],
    });
    const text = decoded(SAMLResponse);
    expect(text).toContain('FriendlyName="mail"');
    expect(text).toContain(`<saml:AuthnContextClassRef>${PASSWORD_CLASS}</saml:AuthnContextClassRef>`);
    expect(text.match(/<ds:Signature /g)).toHaveLength(2);
  });

  it('writes every value as text: markup, quotes and placeholders in a value or an attribute name stay what they are', async () => {
    const hostile = '"/><saml:Attribute Name="isMember"><saml:AttributeValue>true</saml:AttributeValue></saml:Attribute>{AssertionID}';
    const SAMLResponse = await loginResponse(
      address(),
      assertion({
        nameId: 'a<b>&"c"',
        attributes: [
          { name: 'givenName', nameFormat: ATTRIBUTE_NAME_FORMATS.basic, values: [hostile] },
          { name: 'x" Injected="1', nameFormat: ATTRIBUTE_NAME_FORMATS.basic, values: ['\u0001ok'] },
        ],
      }),
      protection(),
    );
    const { profile } = await serviceProvider().validatePostResponseAsync({ SAMLResponse });
    expect(profile?.nameID).toBe('a<b>&"c"');
    expect(profile?.['givenName']).toBe(hostile);
    expect(profile?.['isMember']).toBeUndefined();
    expect(profile?.['x" Injected="1']).toBe('\uFFFDok');
  });

  it('encrypts the signed assertion for the SP, which decrypts it and checks both signatures', async () => {
    const SAMLResponse = await loginResponse(address(), assertion(), protection({ encryptFor: spKey.cert }));
    const text = decoded(SAMLResponse);
    expect(text).toContain('EncryptedAssertion');
    expect(text).not.toContain('ada@example.org');
    expect(text).toContain('http://www.w3.org/2009/xmlenc11#aes256-gcm');
    const { profile } = await serviceProvider({ decryptionPvk: spKey.key }).validatePostResponseAsync({ SAMLResponse });
    expect(profile).toMatchObject({ nameID: 'member-1', 'urn:oid:0.9.2342.19200300.100.1.3': 'ada@example.org' });
    await expect(serviceProvider({ decryptionPvk: otherKey.key }).validatePostResponseAsync({ SAMLResponse })).rejects.toThrow();
  });

  it('signs only what the settings ask: the assertion alone, or the Response alone', async () => {
    const assertionOnly = await loginResponse(address(), assertion(), protection({ signResponse: false }));
    expect(decoded(assertionOnly).match(/<ds:Signature /g)).toHaveLength(1);
    await expect(serviceProvider().validatePostResponseAsync({ SAMLResponse: assertionOnly })).rejects.toThrow(/[Ii]nvalid (document )?signature/);
    expect((await serviceProvider({ wantAuthnResponseSigned: false }).validatePostResponseAsync({ SAMLResponse: assertionOnly })).profile?.nameID).toBe('member-1');

    const responseOnly = await loginResponse(address(), assertion(), protection({ signAssertion: false }));
    await expect(serviceProvider().validatePostResponseAsync({ SAMLResponse: responseOnly })).rejects.toThrow(/[Ii]nvalid (document )?signature/);
    expect((await serviceProvider({ wantAssertionsSigned: false }).validatePostResponseAsync({ SAMLResponse: responseOnly })).profile?.nameID).toBe('member-1');
  });

  it('is refused by the SP when changed after signing, or signed with a key the SP does not trust', async () => {
    const SAMLResponse = await loginResponse(address(), assertion(), protection());
    const changed = Buffer.from(decoded(SAMLResponse).replace('member-1', 'member-2')).toString('base64');
    await expect(serviceProvider().validatePostResponseAsync({ SAMLResponse: changed })).rejects.toThrow(/[Ii]nvalid (document )?signature/);
    await expect(serviceProvider({ idpCert: otherKey.cert }).validatePostResponseAsync({ SAMLResponse })).rejects.toThrow(/[Ii]nvalid (document )?signature/);
  });
});

describe('statusResponse', () => {
  it('answers NoPassive as a signed Response without an assertion, which the SP reads as "not signed in"', async () => {
    const SAMLResponse = statusResponse(address(), { top: STATUS.responder, second: STATUS.noPassive }, protection().key);
    expect(await serviceProvider().validatePostResponseAsync({ SAMLResponse })).toEqual({ profile: null, loggedOut: false });
  });

  it('refuses with the status the SP reads', async () => {
    const SAMLResponse = statusResponse(address(), { top: STATUS.requester, second: STATUS.requestDenied }, protection().key);
    await expect(serviceProvider().validatePostResponseAsync({ SAMLResponse })).rejects.toThrow('SAML provider returned Requester error: RequestDenied');
  });
});
