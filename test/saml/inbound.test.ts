import { SAML, type SamlConfig } from '@node-saml/node-saml';
import { readInbound } from '../../src/saml/inbound/read-inbound.js';
import { OPENSSL } from '../helpers/certificate.js';
import { describeRequiring } from '../helpers/requirements.js';
import {
  ACS_URL,
  authnRequestXml,
  IDP_SLO_URL,
  IDP_SSO_URL,
  logoutRequestXml,
  postForm,
  redirectQuery,
  RSA_SHA1,
  signXml,
  SP_ENTITY_ID,
  spKeys,
  trusting,
  type SpKeys,
} from './sp-messages.js';

/** What service providers send, read as the identity provider reads it; the hostile cases are in inbound-hostile.test.ts. */

const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

describeRequiring([OPENSSL], 'readInbound', () => {
  let keys: SpKeys;
  let otherKeys: SpKeys;
  const signing = () => trusting({ [SP_ENTITY_ID]: { signingCertificates: [keys.cert], requireSigned: true } });
  const lenient = () => trusting({ [SP_ENTITY_ID]: { signingCertificates: [keys.cert], requireSigned: false } });
  /** node-saml as the service provider: an implementation independent of this one and of samlify. */
  const nodeSaml = (config: Partial<SamlConfig> = {}) =>
    new SAML({
      issuer: SP_ENTITY_ID,
      callbackUrl: ACS_URL,
      entryPoint: IDP_SSO_URL,
      logoutUrl: IDP_SLO_URL,
      idpCert: otherKeys.cert,
      privateKey: keys.key,
      publicCert: keys.cert,
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
      ...config,
    });
  const queryOf = (url: string) => url.slice(url.indexOf('?') + 1);
  const formOf = (html: string) => Object.fromEntries([...html.matchAll(/name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));

  beforeAll(() => {
    keys = spKeys('sp');
    otherKeys = spKeys('other');
  });

  test("node-saml's signed AuthnRequest over HTTP-Redirect: its fields, its RelayState, signed", async () => {
    const url = await nodeSaml().getAuthorizeUrlAsync('relay/1?a=b&c', undefined, {});
    const read = await readInbound({ binding: 'redirect', rawQuery: queryOf(url) }, signing());
    expect(read).toEqual({
      ok: true,
      signed: true,
      issuer: SP_ENTITY_ID,
      relayState: 'relay/1?a=b&c',
      message: expect.objectContaining({
        kind: 'AuthnRequest',
        issuer: SP_ENTITY_ID,
        destination: IDP_SSO_URL,
        assertionConsumerServiceUrl: ACS_URL,
        protocolBinding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
        forceAuthn: false,
        isPassive: false,
      }),
    });
    if (!read.ok || read.message.kind !== 'AuthnRequest') throw new Error('not read');
    expect(read.message.id).toMatch(/^_/);
    expect(Math.abs(read.message.issueInstant - Date.now())).toBeLessThan(60_000);
  });

  test.each([
    ['as the binding says', true],
    ['DEFLATEd, as node-saml sends it by default', false],
  ])("node-saml's AuthnRequest over HTTP-POST with an enveloped signature, %s: signed, its fields", async (_, skipRequestCompression) => {
    const form = formOf(await nodeSaml({ authnRequestBinding: 'HTTP-POST', forceAuthn: true, skipRequestCompression }).getAuthorizeFormAsync('r'));
    const read = await readInbound({ binding: 'post', params: form }, signing());
    expect(read).toEqual({
      ok: true,
      signed: true,
      issuer: SP_ENTITY_ID,
      relayState: 'r',
      message: expect.objectContaining({ kind: 'AuthnRequest', forceAuthn: true, assertionConsumerServiceUrl: ACS_URL }),
    });
  });

  test("node-saml's signed LogoutRequest over HTTP-Redirect: NameID, Format, SessionIndex", async () => {
    const url = await nodeSaml().getLogoutUrlAsync({ issuer: 'https://idp.example.test', nameID: 'member-7', nameIDFormat: PERSISTENT, sessionIndex: '_s7' }, 'rs', {});
    const read = await readInbound({ binding: 'redirect', rawQuery: queryOf(url) }, signing());
    expect(read).toEqual({
      ok: true,
      signed: true,
      issuer: SP_ENTITY_ID,
      relayState: 'rs',
      message: expect.objectContaining({
        kind: 'LogoutRequest',
        destination: IDP_SLO_URL,
        nameId: { value: 'member-7', format: PERSISTENT },
        sessionIndexes: ['_s7'],
      }),
    });
  });

  test("node-saml's signed LogoutResponse over HTTP-Redirect: InResponseTo and the status", async () => {
    const url = await nodeSaml().getLogoutResponseUrlAsync({ issuer: 'https://idp.example.test', nameID: 'm', nameIDFormat: PERSISTENT, ID: '_idp_lr' }, '', {}, true);
    const read = await readInbound({ binding: 'redirect', rawQuery: queryOf(url) }, signing());
    expect(read).toEqual({
      ok: true,
      signed: true,
      issuer: SP_ENTITY_ID,
      message: expect.objectContaining({ kind: 'LogoutResponse', inResponseTo: '_idp_lr', statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success' }),
      ...(queryOf(url).includes('RelayState=') ? { relayState: '' } : {}),
    });
  });

  test('every AuthnRequest field this identity provider reads', async () => {
    const xml = authnRequestXml({
      attributes: ' ForceAuthn="1" IsPassive="true" AssertionConsumerServiceIndex="3"',
      children:
        '<samlp:NameIDPolicy Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" AllowCreate="false"/>' +
        '<samlp:RequestedAuthnContext Comparison="minimum"><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></samlp:RequestedAuthnContext>',
    });
    const read = await readInbound({ binding: 'post', params: postForm(signXml(xml, keys)) }, signing());
    expect(read).toEqual({
      ok: true,
      signed: true,
      issuer: SP_ENTITY_ID,
      message: {
        kind: 'AuthnRequest',
        id: '_req1',
        issueInstant: Date.parse('2026-11-28T12:00:00Z'),
        destination: IDP_SSO_URL,
        issuer: SP_ENTITY_ID,
        assertionConsumerServiceUrl: ACS_URL,
        assertionConsumerServiceIndex: 3,
        protocolBinding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
        forceAuthn: true,
        isPassive: true,
        nameIdPolicy: { format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', allowCreate: false },
        requestedAuthnContext: { comparison: 'minimum', classRefs: ['urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport'], declRefs: [] },
      },
    });
  });

  test('a signed LogoutRequest over HTTP-POST with several SessionIndexes', async () => {
    const xml = signXml(logoutRequestXml({ sessionIndexes: ['_a', '_b'] }), keys);
    const read = await readInbound({ binding: 'post', params: postForm(xml, { relayState: 'x' }) }, signing());
    expect(read).toMatchObject({ ok: true, signed: true, relayState: 'x', message: { kind: 'LogoutRequest', id: '_lr1', sessionIndexes: ['_a', '_b'], nameId: { value: 'member-1' } } });
  });

  test('unsigned messages from a service provider that does not sign: read, signed false', async () => {
    const redirect = await readInbound({ binding: 'redirect', rawQuery: redirectQuery(authnRequestXml()) }, lenient());
    const post = await readInbound({ binding: 'post', params: postForm(logoutRequestXml()) }, lenient());
    expect([redirect, post]).toEqual([
      { ok: true, signed: false, issuer: SP_ENTITY_ID, message: expect.objectContaining({ kind: 'AuthnRequest' }) },
      { ok: true, signed: false, issuer: SP_ENTITY_ID, message: expect.objectContaining({ kind: 'LogoutRequest' }) },
    ]);
  });

  test('unsigned messages from a service provider that signs: refused, in either binding', async () => {
    const redirect = await readInbound({ binding: 'redirect', rawQuery: redirectQuery(authnRequestXml()) }, signing());
    const post = await readInbound({ binding: 'post', params: postForm(logoutRequestXml()) }, signing());
    for (const read of [redirect, post]) expect(read).toEqual({ ok: false, reason: { code: 'signature', text: expect.stringContaining('unsigned') } });
  });

  test('RSA-SHA1 is taken in both bindings, as SPs still send it', async () => {
    const redirect = await readInbound({ binding: 'redirect', rawQuery: redirectQuery(authnRequestXml(), { sign: { key: keys.key, sigAlg: RSA_SHA1 } }) }, signing());
    const post = await readInbound({ binding: 'post', params: postForm(signXml(authnRequestXml(), keys, { signatureAlgorithm: RSA_SHA1 })) }, signing());
    expect([redirect, post]).toEqual([expect.objectContaining({ ok: true, signed: true }), expect.objectContaining({ ok: true, signed: true })]);
  });

  test("any of the service provider's certificates verifies (a key rollover), given as PEM or as metadata's bare base64", async () => {
    const bare = keys.cert.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    const sps = trusting({ [SP_ENTITY_ID]: { signingCertificates: [otherKeys.cert, bare], requireSigned: true } });
    const redirect = await readInbound({ binding: 'redirect', rawQuery: redirectQuery(authnRequestXml(), { sign: { key: keys.key } }) }, sps);
    const post = await readInbound({ binding: 'post', params: postForm(signXml(authnRequestXml(), keys)) }, sps);
    expect([redirect, post]).toEqual([expect.objectContaining({ ok: true, signed: true }), expect.objectContaining({ ok: true, signed: true })]);
  });

  test('an Issuer that is no registered service provider is refused before any signature is checked', async () => {
    const read = await readInbound({ binding: 'post', params: postForm(signXml(authnRequestXml({ issuer: 'https://stranger.example' }), keys)) }, signing());
    expect(read).toEqual({ ok: false, reason: { code: 'issuer', text: 'an Issuer that is not a registered service provider' } });
  });

  test('a RelayState of 1024 bytes comes back unchanged; one more byte is refused', async () => {
    const relayState = 'é'.repeat(511) + 'ab';
    const within = await readInbound({ binding: 'redirect', rawQuery: redirectQuery(authnRequestXml(), { relayState, sign: { key: keys.key } }) }, signing());
    const beyond = await readInbound({ binding: 'post', params: postForm(authnRequestXml(), { relayState: `${relayState}c` }) }, lenient());
    expect(within).toMatchObject({ ok: true, relayState });
    expect(beyond).toEqual({ ok: false, reason: { code: 'relay-state', text: 'RelayState longer than 1024 bytes' } });
  });
});
