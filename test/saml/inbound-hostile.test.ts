import { sign } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { readInbound, type InboundInput, type SpTrust } from '../../src/saml/inbound/read-inbound.js';
import type { InboundRefusalCode } from '../../src/saml/inbound/refusal.js';
import { OPENSSL } from '../helpers/certificate.js';
import { describeRequiring } from '../helpers/requirements.js';
import { cheapestCpuMs } from '../helpers/thread-cpu.js';
import { authnRequestXml, logoutRequestXml, postForm, redirectQuery, signXml, SP_ENTITY_ID, spKeys, trusting, type SpKeys } from './sp-messages.js';

/**
 * What an attacker sends an identity provider in a service provider's name: each is refused, in the protocol's
 * terms (a code and a sentence, never an exception), at a bounded cost.
 */

const SAML_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';
const SIGNATURE = /<Signature[\s\S]*<\/Signature>/;
const RSA_SHA512 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512';

describeRequiring([OPENSSL], 'readInbound refuses', () => {
  let keys: SpKeys;
  let otherKeys: SpKeys;
  let signing: SpTrust;
  let lenient: SpTrust;

  beforeAll(() => {
    keys = spKeys('sp');
    otherKeys = spKeys('attacker');
    signing = trusting({ [SP_ENTITY_ID]: { signingCertificates: [keys.cert], requireSigned: true } });
    lenient = trusting({ [SP_ENTITY_ID]: { signingCertificates: [keys.cert], requireSigned: false } });
  });

  const post = (xml: string): InboundInput => ({ binding: 'post', params: postForm(xml) });
  /** The refusal, for a service provider that signs and (where the code is a signature's) one that need not. */
  async function expectRefused(input: InboundInput, code: InboundRefusalCode, text: string | RegExp, sps: SpTrust[] = [signing, lenient]) {
    for (const sp of sps) expect(await readInbound(input, sp)).toEqual({ ok: false, reason: { code, text: expect.stringMatching(text) } });
  }

  /** A signed element the SP sent elsewhere (an Assertion, as in the advisory, or an AuthnRequest the browser carried). */
  const capturedAssertion = () =>
    signXml(
      `<saml:Assertion xmlns:saml="${SAML_NS}" ID="_cap1" Version="2.0" IssueInstant="2026-11-28T12:00:00Z"><saml:Issuer>${SP_ENTITY_ID}</saml:Issuer>` +
        `<saml:Subject><saml:NameID>anything</saml:NameID></saml:Subject></saml:Assertion>`,
      keys,
    );
  const capturedAuthnRequest = () => signXml(authnRequestXml({ id: '_cap2' }), keys);

  describe("samlify's signature wrapping (GHSA-63ch-w8pw-4mf2, tngan/samlify#634): a signed element wrapped in attacker values", () => {
    test.each([
      ['a LogoutRequest naming a victim, around a captured signed Assertion', () => logoutRequestXml({ id: '_evil', nameId: 'victim', children: capturedAssertion() })],
      ['a LogoutRequest naming a victim, around a captured signed AuthnRequest', () => logoutRequestXml({ id: '_evil', nameId: 'victim', children: capturedAuthnRequest() })],
      ['an AuthnRequest with its own ACS URL, around a captured signed Assertion', () => authnRequestXml({ id: '_evil', children: capturedAssertion() })],
    ])('%s', async (_, xml) => {
      await expectRefused(post(xml()), 'signature', /^a ds:Signature that is not a child of the (LogoutRequest|AuthnRequest)$/);
    });

    test('the same over HTTP-Redirect, where a signature inside the XML counts for nothing: unsigned', async () => {
      const input: InboundInput = { binding: 'redirect', rawQuery: redirectQuery(logoutRequestXml({ id: '_evil', nameId: 'victim', children: capturedAssertion() })) };
      await expectRefused(input, 'signature', /^an unsigned message/, [signing]);
    });
  });

  describe('XML signature wrapping', () => {
    const signedLogout = () => signXml(logoutRequestXml(), keys);

    test('the signed message wrapped in a new root that names a victim (XSW: the signature stays with the inner one)', async () => {
      const xml = logoutRequestXml({ id: '_evil', nameId: 'victim', children: `<samlp:Extensions>${signedLogout()}</samlp:Extensions>` });
      await expectRefused(post(xml), 'signature', 'a ds:Signature that is not a child of the LogoutRequest');
    });

    test('the signature moved up to the new root, the signed message below it without it', async () => {
      const signed = signedLogout();
      const signature = SIGNATURE.exec(signed)![0];
      const evil = logoutRequestXml({ id: '_evil', nameId: 'victim', children: `<samlp:Extensions>${signed.replace(SIGNATURE, '')}</samlp:Extensions>` });
      const xml = evil.replace('</saml:Issuer>', `</saml:Issuer>${signature}`);
      await expectRefused(post(xml), 'signature', 'a signature whose Reference is not to the LogoutRequest');
    });

    test('the new root given the signed one\'s ID as well', async () => {
      const xml = logoutRequestXml({ id: '_lr1', nameId: 'victim', children: `<samlp:Extensions>${signedLogout()}</samlp:Extensions>` });
      await expectRefused(post(xml), 'xml', 'an ID held by two elements');
    });

    test('a Reference to the whole document (URI="") rather than to the message', async () => {
      await expectRefused(post(signXml(logoutRequestXml(), keys, { emptyUri: true })), 'signature', 'a signature whose Reference is not to the LogoutRequest');
    });

    test('a second Reference, to an element inside the message', async () => {
      const xml = signXml(logoutRequestXml(), keys, { references: ['/*', "/*/*[local-name(.)='NameID']"] });
      await expectRefused(post(xml), 'signature', 'a signature with more than 1 Reference');
    });

    test('two signatures', async () => {
      await expectRefused(post(signXml(signedLogout(), keys)), 'signature', 'more than one ds:Signature');
    });

    test('a signed message whose NameID was changed after signing', async () => {
      await expectRefused(post(signedLogout().replace('>member-1<', '>victim<')), 'signature', 'a signature no certificate of the service provider verifies');
    });

    test('a comment splitting the NameID of a signed message (canonicalisation leaves comments out of the digest)', async () => {
      await expectRefused(post(signedLogout().replace('>member-1<', '>victim<!---->@example<')), 'xml', 'a comment');
    });

    test('an element of another namespace in the signature where xml-crypto reads by local name (a second SignatureMethod)', async () => {
      const xml = signedLogout().replace('<SignatureValue', `<x:SignatureMethod xmlns:x="urn:x" Algorithm="${RSA_SHA512}"/><SignatureValue`);
      await expectRefused(post(xml), 'signature', 'a signature holding an element XML Signature in SAML does not');
    });

    test('a long chain of Transforms (each canonicalises the message again)', async () => {
      const transform = '<Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>';
      const xml = signedLogout().replace('<Transforms>', `<Transforms>${transform.repeat(40)}`);
      await expectRefused(post(xml), 'signature', 'a signature with more than 2 Transform');
    });
  });

  describe('keys and algorithms', () => {
    test('a message signed with a key not the service provider\'s, its certificate in KeyInfo (never trusted)', async () => {
      const xml = signXml(logoutRequestXml(), otherKeys);
      expect(xml).toContain('<X509Certificate>');
      await expectRefused(post(xml), 'signature', 'a signature no certificate of the service provider verifies');
    });

    test('a Redirect query signed with a key not the service provider\'s', async () => {
      const input: InboundInput = { binding: 'redirect', rawQuery: redirectQuery(authnRequestXml(), { sign: { key: otherKeys.key } }) };
      await expectRefused(input, 'signature', 'a query signature no certificate of the service provider verifies');
    });

    test('a signed Redirect query whose RelayState was changed (the signature covers the octets sent)', async () => {
      const rawQuery = redirectQuery(authnRequestXml(), { relayState: 'home', sign: { key: keys.key } }).replace('RelayState=home', 'RelayState=https%3A%2F%2Fevil');
      await expectRefused({ binding: 'redirect', rawQuery }, 'signature', 'a query signature no certificate of the service provider verifies');
    });

    test.each([
      ['RSA-SHA512', RSA_SHA512],
      ['HMAC-SHA1', 'http://www.w3.org/2000/09/xmldsig#hmac-sha1'],
      ['DSA-SHA1', 'http://www.w3.org/2000/09/xmldsig#dsa-sha1'],
      ['an unknown one', 'urn:x'],
    ])('a Redirect SigAlg of %s', async (_, sigAlg) => {
      const query = redirectQuery(authnRequestXml(), { sign: { key: keys.key } }).replace(/SigAlg=[^&]*/, `SigAlg=${encodeURIComponent(sigAlg)}`);
      const octets = query.slice(0, query.indexOf('&Signature='));
      const rawQuery = `${octets}&Signature=${encodeURIComponent(sign('sha512', Buffer.from(octets), keys.key).toString('base64'))}`;
      await expectRefused({ binding: 'redirect', rawQuery }, 'signature', 'a SigAlg other than RSA-SHA256 or RSA-SHA1');
    });

    test('an enveloped signature with RSA-SHA512 (valid, but not one this identity provider takes)', async () => {
      await expectRefused(post(signXml(logoutRequestXml(), keys, { signatureAlgorithm: RSA_SHA512 })), 'signature', 'a SignatureMethod this identity provider does not take');
    });

    test.each([
      ['SignatureMethod HMAC-SHA1', 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'http://www.w3.org/2000/09/xmldsig#hmac-sha1', 'SignatureMethod'],
      ['DigestMethod MD5', 'http://www.w3.org/2001/04/xmlenc#sha256', 'http://www.w3.org/2001/04/xmldsig-more#md5', 'DigestMethod'],
      ['an XPath Transform', 'http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/TR/1999/REC-xpath-19991116', 'Transform'],
      ['canonicalisation with comments', 'CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"', 'CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#WithComments"', 'CanonicalizationMethod'],
    ])('an enveloped signature naming %s', async (_, from, to, element) => {
      await expectRefused(post(signXml(logoutRequestXml(), keys).replace(from, to)), 'signature', `a ${element} this identity provider does not take`);
    });

    test('a Signature without SigAlg, a SigAlg without Signature', async () => {
      const signed = redirectQuery(authnRequestXml(), { sign: { key: keys.key } });
      await expectRefused({ binding: 'redirect', rawQuery: signed.replace(/&SigAlg=[^&]*/, '') }, 'signature', 'a Signature without SigAlg');
      await expectRefused({ binding: 'redirect', rawQuery: signed.replace(/&Signature=[^&]*/, '') }, 'signature', 'a SigAlg without Signature');
    });
  });

  /** Messages that fail to be what they claim, from a service provider that need not sign (one that does is refused them unsigned). */
  describe('messages', () => {
    test('a second SAMLRequest in the query (one signed, one read)', async () => {
      const signed = redirectQuery(authnRequestXml(), { sign: { key: keys.key } });
      const other = redirectQuery(authnRequestXml({ id: '_other' }));
      await expectRefused({ binding: 'redirect', rawQuery: `${signed}&${other}` }, 'encoding', 'SAMLRequest given twice');
    });

    test('a form field sent twice (a body parser makes it an array)', async () => {
      const twice = (name: string, fields: Record<string, string>) => ({ ...fields, [name]: [fields[name] ?? 'x', 'x'] }) as unknown as Record<string, string>;
      await expectRefused({ binding: 'post', params: twice('SAMLRequest', postForm(authnRequestXml())) }, 'encoding', 'SAMLRequest given twice');
      await expectRefused({ binding: 'post', params: twice('RelayState', postForm(authnRequestXml())) }, 'encoding', 'RelayState given twice');
    });

    test('SAMLRequest and SAMLResponse both, or neither', async () => {
      await expectRefused({ binding: 'post', params: { ...postForm(authnRequestXml()), SAMLResponse: 'PA==' } }, 'encoding', 'both SAMLRequest and SAMLResponse');
      await expectRefused({ binding: 'redirect', rawQuery: 'RelayState=x' }, 'encoding', 'neither SAMLRequest nor SAMLResponse');
    });

    test.each([
      ['a Response as a SAMLRequest', 'SAMLRequest', '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r" Version="2.0" IssueInstant="2026-11-28T12:00:00Z"><saml:Issuer>https://sp.example.test/metadata</saml:Issuer></samlp:Response>'],
      ['an AuthnRequest as a SAMLResponse', 'SAMLResponse', authnRequestXml()],
      ['an element named for a property of every object', 'SAMLRequest', authnRequestXml().replace(/AuthnRequest/g, 'constructor')],
    ])('%s', async (_, parameter, xml) => {
      await expectRefused({ binding: 'post', params: postForm(xml, { parameter }) }, 'message', `${parameter} holding a message this identity provider does not take`, [lenient]);
    });

    test('a LogoutRequest without NameID, with an EncryptedID, or with two NameIDs', async () => {
      const nameId = /<saml:NameID[^>]*>member-1<\/saml:NameID>/;
      await expectRefused(post(logoutRequestXml().replace(nameId, '')), 'message', 'LogoutRequest without NameID', [lenient]);
      await expectRefused(post(logoutRequestXml().replace(nameId, '<saml:EncryptedID/>')), 'message', /EncryptedID/, [lenient]);
      await expectRefused(post(logoutRequestXml().replace(nameId, '<saml:NameID>a</saml:NameID><saml:NameID>b</saml:NameID>')), 'message', 'LogoutRequest with more than one NameID', [lenient]);
    });

    test('a NameID holding an element, an IssueInstant without a time zone, SAML 1.1', async () => {
      await expectRefused(post(logoutRequestXml({ nameId: 'a<saml:x/>b' })), 'message', 'NameID holding an element', [lenient]);
      await expectRefused(post(logoutRequestXml().replace('12:00:00Z', '12:00:00')), 'message', /IssueInstant that is not a UTC date/, [lenient]);
      await expectRefused(post(logoutRequestXml().replace('Version="2.0"', 'Version="1.1"')), 'message', 'LogoutRequest that is not SAML 2.0', [lenient]);
    });
  });

  describe('encodings and bounds', () => {
    const big = (n: number) => logoutRequestXml({ sessionIndexes: Array.from({ length: n }, (_, i) => `_session-${String(i).padStart(200, '0')}`) });
    const deep = `<a>`.repeat(5_000) + `</a>`.repeat(5_000);
    const wide = `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ${Array.from({ length: 5000 }, (_, i) => `a${i}="x"`).join(' ')}/>`;
    const laughs =
      `<!DOCTYPE samlp:LogoutRequest [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('')}]>` +
      logoutRequestXml({ nameId: '&lol9;' });
    let bombQuery: string | undefined;
    const bomb = (): InboundInput => {
      bombQuery ??= `SAMLRequest=${encodeURIComponent(deflateRawSync(Buffer.alloc(100_000_000, 0x20)).toString('base64'))}`;
      return { binding: 'redirect', rawQuery: bombQuery };
    };

    test('not base64, not URL-encoding, not UTF-8, not raw DEFLATE', async () => {
      await expectRefused({ binding: 'post', params: { SAMLRequest: 'PHNhbWxwOg*=' } }, 'encoding', 'SAMLRequest is not base64');
      await expectRefused({ binding: 'redirect', rawQuery: 'SAMLRequest=%E0%A4%A' }, 'encoding', 'a query parameter that is not URL-encoded UTF-8');
      await expectRefused({ binding: 'post', params: { SAMLRequest: Buffer.from([0x3c, 0xff, 0xfe]).toString('base64') } }, 'encoding', 'SAMLRequest is not UTF-8');
      await expectRefused({ binding: 'redirect', rawQuery: `SAMLRequest=${encodeURIComponent(Buffer.from('<x/>').toString('base64'))}` }, 'encoding', 'SAMLRequest is not raw DEFLATE');
    });

    test('a DTD (an internal entity, a billion laughs)', async () => {
      await expectRefused(post(`<!DOCTYPE x [<!ENTITY e "victim">]>${logoutRequestXml({ nameId: '&e;' })}`), 'xml', 'a DTD');
      await expectRefused(post(laughs), 'xml', 'a DTD');
    });

    test('a document past the bounds: too long, too deep, too many attributes, malformed', async () => {
      await expectRefused(post(big(320)), 'xml', 'longer than 65536 characters');
      await expectRefused(post(deep), 'xml', 'elements nested deeper than 24');
      await expectRefused(post(wide), 'xml', 'an element with more than 32 attributes');
      await expectRefused(post('<samlp:LogoutRequest'), 'xml', /^not well-formed XML/);
      await expectRefused({ binding: 'post', params: { SAMLRequest: 'A'.repeat(400_000) } }, 'encoding', 'SAMLRequest longer than 393216 characters');
    });

    test('an inflate bomb (100 MB of DEFLATE in 100 kB) stops at the bound', async () => {
      expect(bomb()).toMatchObject({ rawQuery: expect.stringMatching(/^.{50000,200000}$/) });
      await expectRefused(bomb(), 'encoding', 'SAMLRequest inflates past 196608 bytes');
    });

    // In CPU time, the cheapest of five: reading a signed message at the bounds (56 kB, 230 SessionIndexes) cost 74
    // to 119 ms under Jest (about 30 ms in plain Node: xml-crypto's XPath and xmldom), the same message tampered
    // with and tried against two certificates 126 to 223 ms (1.6 to 1.9 times as much), each refusal before any
    // signature (the bomb, a DTD, too deep, too wide, too long) 0.2 to 1.3 ms (2026-11-28, 2 cores shared).
    // Inflating the bomb whole would take 100 MB; unbounded Transforms would canonicalise the message once each.
    test('each worst case costs about what reading a large signed message costs', async () => {
      const largest = signXml(big(230), keys);
      expect(largest.length).toBeGreaterThan(50_000);
      expect(await readInbound(post(largest), signing)).toMatchObject({ ok: true, signed: true });
      const twoKeys = trusting({ [SP_ENTITY_ID]: { signingCertificates: [otherKeys.cert, keys.cert], requireSigned: true } });
      const tampered = largest.replace('_session-0', '_session-X');
      const refused = (input: InboundInput, sps = signing) => async () => expect(await readInbound(input, sps)).toMatchObject({ ok: false });
      const [readMs, ...worst] = await cheapestCpuMs(5, [
        async () => expect(await readInbound(post(largest), signing)).toMatchObject({ ok: true }),
        refused(post(tampered), twoKeys),
        refused(bomb()),
        refused(post(laughs)),
        refused(post(deep)),
        refused(post(wide)),
        refused(post(big(320))),
      ]);
      const within = worst.every((ms) => ms < 3 * readMs + 10);
      expect({ readMs, worst, within }).toEqual({ readMs, worst, within: true });
    });
  });
});
