import { MULTI_FACTOR_CONTEXT, PASSWORD_CONTEXT } from '../../src/saml/authn-context.js';
import { acceptAuthnRequest, HTTP_POST } from '../../src/saml/authn-request.js';
import type { AuthnRequestMsg } from '../../src/saml/inbound/messages.js';
import { STATUS } from '../../src/saml/login-response.js';
import type { SpMetadata } from '../../src/saml/sp-metadata.js';
import { samlSpSettings, type SamlSp } from '../../src/service/saml/index.js';

/** An AuthnRequest, read and verified, checked against the SP's metadata and the profile before anything is answered. */
const SSO = 'https://idp.example.org/saml/sso';
const NOW = Date.parse('2026-11-28T12:00:00Z');
const ACS = 'https://sp.example.net/acs';
const OTHER_ACS = 'https://sp.example.net/acs/2';

const metadata: SpMetadata = {
  entityId: 'https://sp.example.net',
  assertionConsumerServices: [
    { binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact', location: 'https://sp.example.net/artifact', index: 0, isDefault: true },
    { binding: HTTP_POST, location: ACS, index: 1, isDefault: false },
    { binding: HTTP_POST, location: OTHER_ACS, index: 2, isDefault: false },
  ],
  singleLogoutServices: [],
  signingCertificates: [],
  encryptionCertificates: [],
  authnRequestsSigned: false,
  wantAssertionsSigned: true,
  nameIdFormats: [],
};
const sp: SamlSp = {
  id: 'sp-1',
  name: 'portal',
  entityId: metadata.entityId,
  metadataXml: '',
  settings: samlSpSettings({ authnRequestsSigned: false, encryptionCertificate: false }, { nameIdFormat: 'emailAddress' }),
  createdAt: NOW,
};
const request = (fields: Partial<AuthnRequestMsg> = {}): AuthnRequestMsg => ({
  kind: 'AuthnRequest',
  id: '_r1',
  issueInstant: NOW,
  destination: SSO,
  issuer: metadata.entityId,
  forceAuthn: false,
  isPassive: false,
  ...fields,
});
const accept = (fields: Partial<AuthnRequestMsg> = {}, signed = false) => acceptAuthnRequest(request(fields), sp, metadata, { ssoUrl: SSO, now: NOW, relayState: 'r', signed });

describe('acceptAuthnRequest', () => {
  it('answers at the ACS named by URL or index, or the first over HTTP-POST; the SP\'s NameID format unless the request names one', () => {
    expect(accept()).toEqual({ ok: true, pending: { acsUrl: ACS, inResponseTo: '_r1', nameIdFormat: 'emailAddress', forceAuthn: false, relayState: 'r' } });
    expect(accept({ assertionConsumerServiceUrl: OTHER_ACS })).toMatchObject({ ok: true, pending: { acsUrl: OTHER_ACS } });
    expect(accept({ assertionConsumerServiceIndex: 2 })).toMatchObject({ ok: true, pending: { acsUrl: OTHER_ACS } });
    expect(accept({ nameIdPolicy: { format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient' } })).toMatchObject({ ok: true, pending: { nameIdFormat: 'transient' } });
    expect(accept({ nameIdPolicy: { format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified' } })).toMatchObject({ ok: true, pending: { nameIdFormat: 'emailAddress' } });
    expect(accept({ isPassive: true, forceAuthn: true })).toMatchObject({ ok: true, pending: { forceAuthn: true, isPassive: true } });
  });

  it('refuses with a page, posting nothing: an ACS not in the metadata (or not HTTP-POST), another binding, another Destination, an old or future request', () => {
    const refused = (fields: Partial<AuthnRequestMsg>) => expect(accept(fields)).toEqual({ ok: false, refusal: { page: expect.any(String) } });
    refused({ assertionConsumerServiceUrl: 'https://attacker.example/acs' });
    refused({ assertionConsumerServiceUrl: 'https://sp.example.net/artifact' });
    refused({ assertionConsumerServiceIndex: 0 });
    refused({ assertionConsumerServiceIndex: 7 });
    refused({ protocolBinding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact' });
    refused({ destination: 'https://other-idp.example.org/saml/sso' });
    refused({ issueInstant: NOW - 16 * 60 * 1000 });
    refused({ issueInstant: NOW + 4 * 60 * 1000 });
  });

  it('answers a NameID format it does not offer with InvalidNameIDPolicy at the ACS', () => {
    expect(accept({ nameIdPolicy: { format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:kerberos' } })).toEqual({
      ok: false,
      refusal: { status: { top: STATUS.requester, second: STATUS.invalidNameIdPolicy }, acsUrl: ACS, reason: 'a NameID format not offered' },
    });
  });

  it('refuses a signed request without a Destination (SAML bindings 3.4.5.2, 3.5.5.2); an unsigned one may leave it out', () => {
    expect(accept({ destination: undefined }, true)).toEqual({ ok: false, refusal: { page: 'a signed request without a Destination' } });
    expect(accept({ destination: undefined })).toMatchObject({ ok: true });
    expect(accept({}, true)).toMatchObject({ ok: true });
  });

  it('takes the classes that meet a RequestedAuthnContext by its Comparison; one none meets is answered NoAuthnContext at the ACS', () => {
    const OTHER = 'urn:oasis:names:tc:SAML:2.0:ac:classes:Kerberos';
    const contexts = (comparison: 'exact' | 'minimum' | 'better' | 'maximum', classRefs: string[]) => {
      const accepted = accept({ requestedAuthnContext: { comparison, classRefs, declRefs: [] } });
      return accepted.ok ? accepted.pending.authnContexts : accepted.refusal;
    };
    const noAuthnContext = { status: { top: STATUS.responder, second: STATUS.noAuthnContext }, acsUrl: ACS, reason: 'an authentication context not offered' };
    expect(contexts('exact', [PASSWORD_CONTEXT])).toEqual([PASSWORD_CONTEXT]);
    expect(contexts('exact', [OTHER, MULTI_FACTOR_CONTEXT])).toEqual([MULTI_FACTOR_CONTEXT]);
    expect(contexts('minimum', [PASSWORD_CONTEXT])).toEqual([PASSWORD_CONTEXT, MULTI_FACTOR_CONTEXT]);
    expect(contexts('minimum', [MULTI_FACTOR_CONTEXT])).toEqual([MULTI_FACTOR_CONTEXT]);
    expect(contexts('better', [PASSWORD_CONTEXT])).toEqual([MULTI_FACTOR_CONTEXT]);
    expect(contexts('better', [MULTI_FACTOR_CONTEXT])).toEqual(noAuthnContext);
    expect(contexts('maximum', [PASSWORD_CONTEXT])).toEqual([PASSWORD_CONTEXT]);
    expect(contexts('maximum', [MULTI_FACTOR_CONTEXT])).toEqual([PASSWORD_CONTEXT, MULTI_FACTOR_CONTEXT]);
    expect(contexts('exact', [OTHER])).toEqual(noAuthnContext);
    expect(contexts('minimum', [OTHER])).toEqual(noAuthnContext);
    expect(accept()).toMatchObject({ ok: true, pending: expect.not.objectContaining({ authnContexts: expect.anything() }) });
  });
});
