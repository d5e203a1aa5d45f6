/**
 * The SAML part of the service (src/service/saml/): SPs with their settings, the signing keys and their
 * certificates through a rotation, pending requests (sealed, replays refused, consumed once, expired), and the
 * SPs of member sessions. The store's side is the contract's (test/store/contract-saml.ts).
 */
import { createPrivateKey, createPublicKey, sign, verify, X509Certificate } from 'node:crypto';
import { DEFAULT_SAML_ATTRIBUTES, samlSpSettings, type SamlSpInput } from '../../src/service/saml/index.js';
import { serialNumber } from '../../src/service/saml/certificate.js';
import type { Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { tempServices } from '../helpers/test-services.js';

const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

let services: Services;
let store: Store;
let cleanup: () => Promise<void>;
let now: number;

beforeEach(async () => {
  now = T0;
  ({ services, store, cleanup } = await tempServices({ clock: () => now }));
});
afterEach(() => cleanup());

async function refusal(promise: Promise<unknown>): Promise<[string, string]> {
  const error = await serviceErrorOf(promise);
  return [error.code, error.message];
}

function anSp(name: string, changes: Partial<SamlSpInput> = {}): SamlSpInput {
  return {
    name,
    entityId: `https://${name}.example.org/sp`,
    metadataXml: `<EntityDescriptor entityID="https://${name}.example.org/sp"/>`,
    settings: samlSpSettings({ authnRequestsSigned: false, encryptionCertificate: true }),
    ...changes,
  };
}

describe('SPs', () => {
  test('the default settings: persistent NameID, the documented attributes, both signed, signing and encryption as the metadata says', () => {
    expect(samlSpSettings({ authnRequestsSigned: true, encryptionCertificate: false })).toEqual({
      nameIdFormat: 'persistent',
      attributes: DEFAULT_SAML_ATTRIBUTES,
      signResponse: true,
      signAssertion: true,
      requireSignedRequests: true,
      encryptAssertion: false,
    });
    expect(DEFAULT_SAML_ATTRIBUTES.map((attribute) => attribute.friendlyName ?? attribute.name)).toEqual(['mail', 'givenName', 'sn', 'displayName', 'memberId', 'isMember', 'roles']);
  });

  test('are added with their settings, found by name, entity id and id, and removed; any() follows', async () => {
    expect(await services.saml.sps.any()).toBe(false);
    const cvent = anSp('cvent', { settings: samlSpSettings({ authnRequestsSigned: false, encryptionCertificate: false }, { nameIdFormat: 'emailAddress', attributes: [{ name: 'email_address', nameFormat: 'basic', field: 'email' }] }) });
    const sp = await services.saml.sps.add(cvent);
    expect(sp).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), ...cvent, createdAt: T0 });
    expect(await services.saml.sps.any()).toBe(true);
    expect(await services.saml.sps.find('cvent')).toEqual(sp);
    expect(await services.saml.sps.findByEntityId('https://cvent.example.org/sp')).toEqual(sp);
    expect(await services.saml.sps.findById(sp.id)).toEqual(sp);
    expect(await services.saml.sps.list()).toEqual([sp]);
    expect(await services.saml.sps.find('ghost')).toBeNull();
    expect(await services.saml.sps.remove('cvent')).toBe(true);
    expect(await services.saml.sps.remove('cvent')).toBe(false);
    expect(await services.saml.sps.any()).toBe(false);
  });

  test('a name or an entity id is taken once', async () => {
    await services.saml.sps.add(anSp('forum'));
    expect(await refusal(services.saml.sps.add(anSp('forum', { entityId: 'https://other.example.org/' })))).toEqual([
      'SAML_SP_EXISTS',
      'A SAML service provider with this name or entity id already exists: forum (https://other.example.org/)',
    ]);
    expect((await refusal(services.saml.sps.add(anSp('other', { entityId: 'https://forum.example.org/sp' }))))[0]).toBe('SAML_SP_EXISTS');
  });

  test('settings that cannot work are refused, and nothing is stored', async () => {
    const settings = samlSpSettings({ authnRequestsSigned: false, encryptionCertificate: false });
    const twice = { ...settings, attributes: [...settings.attributes, { name: 'roles', nameFormat: 'basic' as const, field: 'id' as const }] };
    expect(await refusal(services.saml.sps.add(anSp('a', { settings: twice })))).toEqual(['SAML_SP_INVALID', 'The SAML service provider cannot be registered as given: attribute roles is given twice']);
    expect((await refusal(services.saml.sps.add(anSp('a', { settings: { ...settings, signResponse: false, signAssertion: false } }))))[0]).toBe('SAML_SP_INVALID');
    expect((await refusal(services.saml.sps.add(anSp('', {}))))[0]).toBe('SAML_SP_INVALID');
    expect((await refusal(services.saml.sps.add(anSp('a', { entityId: '' }))))[0]).toBe('SAML_SP_INVALID');
    expect(await services.saml.sps.list()).toEqual([]);
  });
});

describe('signing keys', () => {
  test('the first key is made when asked for: RSA 2048 with a ten-year self-signed certificate for the IdP host, its private key sealed', async () => {
    const key = await services.saml.keys.signing();
    const certificate = new X509Certificate(key.certificatePem);
    expect(certificate.subject).toBe('CN=localhost');
    expect(certificate.issuer).toBe('CN=localhost');
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.checkPrivateKey(createPrivateKey(key.privateKeyPem))).toBe(true);
    expect(createPublicKey(key.certificatePem).asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(Date.parse(certificate.validFrom)).toBeLessThanOrEqual(T0);
    expect(Date.parse(certificate.validTo)).toBeGreaterThanOrEqual(T0 + 3652 * 24 * 3600 * 1000);
    const signature = sign('sha256', Buffer.from('x'), key.privateKeyPem);
    expect(verify('sha256', Buffer.from('x'), certificate.publicKey, signature)).toBe(true);
    const [row] = await store.listSamlKeys();
    expect(row?.privateKeySealed).not.toContain('PRIVATE KEY');
    expect(await services.saml.keys.signing()).toEqual(key);
    expect(await services.saml.keys.published()).toEqual([{ kid: key.kid, certificatePem: key.certificatePem, state: 'current' }]);
  });

  test('a rotation publishes the next key beside the current, which still signs; activation makes it sign and retires the other', async () => {
    const first = await services.saml.keys.signing();
    now = T0 + MINUTE;
    const next = await services.saml.keys.rotate();
    expect(next).toEqual({ kid: expect.any(String), state: 'next', createdAt: T0 + MINUTE, activatedAt: null, retiredAt: null, notAfter: expect.any(Number), sha256Fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/) });
    expect((await services.saml.keys.signing()).kid).toBe(first.kid);
    expect((await services.saml.keys.published()).map((key) => [key.kid, key.state])).toEqual([
      [first.kid, 'current'],
      [next.kid, 'next'],
    ]);
    expect(await refusal(services.saml.keys.rotate())).toEqual(['SAML_KEY_PENDING', 'A next SAML signing key is published already: activate it first']);

    now = T0 + 2 * MINUTE;
    expect(await services.saml.keys.activate()).toEqual({ ...next, state: 'current', activatedAt: T0 + 2 * MINUTE });
    expect((await services.saml.keys.signing()).kid).toBe(next.kid);
    expect((await services.saml.keys.published()).map((key) => [key.kid, key.state])).toEqual([[next.kid, 'current']]);
    expect((await services.saml.keys.list()).map((key) => [key.kid, key.state, key.retiredAt])).toEqual([
      [next.kid, 'current', null],
      [first.kid, 'retired', T0 + 2 * MINUTE],
    ]);
    expect(await refusal(services.saml.keys.activate())).toEqual(['SAML_KEY_NOT_PENDING', 'No next SAML signing key is published: rotate first']);
  });

  test('a certificate serial number is positive and in its fewest octets, whatever the random octets it starts from', () => {
    // Of random serials, one in 256 began 0x00 then below 0x80: DER padding that X509Certificate refused.
    for (const first of [0x00, 0x01, 0x3f, 0x40, 0x7f, 0x80, 0xff]) {
      const random = Buffer.alloc(16, 0x05);
      random[0] = first;
      const serial = serialNumber(random);
      expect(serial).toHaveLength(16);
      expect(serial[0]).toBeGreaterThanOrEqual(0x40);
      expect(serial[0]).toBeLessThanOrEqual(0x7f);
      expect(serial.subarray(1)).toEqual(random.subarray(1));
    }
  });

  test('a rotation with no key yet makes the current key first', async () => {
    const next = await services.saml.keys.rotate();
    expect((await services.saml.keys.list()).map((key) => key.state)).toEqual(['current', 'next']);
    expect((await services.saml.keys.signing()).kid).not.toBe(next.kid);
  });
});

describe('pending requests', () => {
  let spId: string;
  beforeEach(async () => {
    spId = (await services.saml.sps.add(anSp('forum'))).id;
  });

  test('are kept sealed, found while live, updated, and consumed once', async () => {
    const opened = await services.saml.requests.open({ spId, requestId: '_a1', kind: 'authn', payload: { acs: 'https://forum.example.org/acs', relayState: 'secret-state' }, lifetimeMs: 5 * MINUTE });
    if (opened === 'replayed') throw new Error('not a replay');
    expect(opened.handle).toMatch(/^[\w-]{43}$/);
    expect((await store.findSamlRequest(opened.handle))?.payloadSealed).not.toContain('secret-state');
    expect(await services.saml.requests.find(opened.handle)).toEqual({ spId, requestId: '_a1', kind: 'authn', payload: { acs: 'https://forum.example.org/acs', relayState: 'secret-state' }, createdAt: T0 });
    expect(await services.saml.requests.update(opened.handle, { step: 2 })).toBe(true);
    expect((await services.saml.requests.find(opened.handle))?.payload).toEqual({ step: 2 });
    expect(await services.saml.requests.consume(opened.handle)).toBe(true);
    expect(await services.saml.requests.consume(opened.handle)).toBe(false);
    expect(await services.saml.requests.find(opened.handle)).toBeNull();
    expect(await services.saml.requests.update(opened.handle, { step: 3 })).toBe(false);
    expect(await services.saml.requests.find('unknown-handle')).toBeNull();
  });

  test('a request ID the SP sent before is a replay, consumed or not', async () => {
    const request = { spId, requestId: '_a1', kind: 'authn' as const, payload: {}, lifetimeMs: 5 * MINUTE };
    const opened = await services.saml.requests.open(request);
    expect(await services.saml.requests.open(request)).toBe('replayed');
    if (opened !== 'replayed') await services.saml.requests.consume(opened.handle);
    expect(await services.saml.requests.open(request)).toBe('replayed');
  });

  test('an expired request is neither found nor consumed', async () => {
    const opened = await services.saml.requests.open({ spId, requestId: '_a1', kind: 'logout', payload: {}, lifetimeMs: 5 * MINUTE });
    if (opened === 'replayed') throw new Error('not a replay');
    now = T0 + 5 * MINUTE;
    expect(await services.saml.requests.find(opened.handle)).toBeNull();
    expect(await services.saml.requests.consume(opened.handle)).toBe(false);
  });
});

describe('session participants', () => {
  test('are found by session, by the ended sessions (one or all of a member) and by NameID; one leaves', async () => {
    const member = await services.members.add({ id: 'm1', username: 'ada' });
    const first = await services.sessions.create(member.id, 'example.org');
    const second = await services.sessions.create(member.id, 'example.org');
    const sp = await services.saml.sps.add(anSp('forum'));
    const participant = (memberSessionId: string) => ({ memberSessionId, memberId: 'm1', spId: sp.id, nameId: 'm1', nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', sessionIndex: `_${memberSessionId}`, createdAt: T0 });
    await services.saml.sessions.join(participant(first.session.id));
    await services.saml.sessions.join(participant(second.session.id));
    expect(await services.saml.sessions.ofSession(first.session.id)).toEqual([participant(first.session.id)]);
    expect(await services.saml.sessions.ofEnded({ sessionId: second.session.id })).toEqual([participant(second.session.id)]);
    expect(await services.saml.sessions.ofEnded({ memberId: 'm1' })).toHaveLength(2);
    expect(await services.saml.sessions.find(sp.id, 'm1')).toHaveLength(2);
    await services.saml.sessions.leave(first.session.id, sp.id);
    expect(await services.saml.sessions.ofSession(first.session.id)).toEqual([]);
  });
});
