import type { SamlKeyRow, SamlParticipantRow, SamlRequestRow, SamlSpRow, SessionRow, Store } from '../../src/store/store.js';
import { StoreConflictError } from '../../src/store/store.js';

/** Well past 2^31, as in the rest of the contract. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

function anSp(id: string, overrides: Partial<SamlSpRow> = {}): SamlSpRow {
  return {
    id,
    name: `sp-${id}`,
    entityId: `https://${id}.example.org/shibboleth`,
    metadataXml: `<md:EntityDescriptor entityID="https://${id}.example.org/shibboleth">Zoë "Z" \\ 日本</md:EntityDescriptor>`,
    settings: JSON.stringify({ nameIdFormat: 'persistent', attributes: [{ name: 'first_name', nameFormat: 'basic', field: 'firstName' }] }),
    createdAt: T0,
    ...overrides,
  };
}

function aKey(kid: string, overrides: Partial<SamlKeyRow> = {}): SamlKeyRow {
  return { kid, privateKeySealed: `sealed-key-${kid}`, certificate: `certificate-${kid}`, createdAt: T0, activatedAt: null, retiredAt: null, ...overrides };
}

function aRequest(handle: string, spId: string, requestId: string, overrides: Partial<SamlRequestRow> = {}): SamlRequestRow {
  return { handle, spId, requestId, kind: 'authn', payloadSealed: `sealed-${handle}`, createdAt: T0, expiresAt: T0 + MINUTE, consumedAt: null, ...overrides };
}

/**
 * The SAML identity provider's part of the store contract (src/service/saml/ uses it): service providers,
 * signing keys, the SPs taking part in member sessions, and pending requests. `store` is the test's fresh store.
 */
export function samlStoreContract(store: () => Store, aSession: (id: string, memberId: string) => SessionRow): void {
  describe('SAML service providers', () => {
    test('are stored with their metadata and settings exactly, found by id, name and entity id, listed by name', async () => {
      const forum = anSp('s2', { name: 'forum' });
      const events = anSp('s1', { name: 'events', createdAt: T0 + MINUTE });
      await store().createSamlSp(forum);
      await store().createSamlSp(events);
      expect(await store().getSamlSp('s2')).toEqual(forum);
      expect(await store().getSamlSpByName('events')).toEqual(events);
      expect(await store().getSamlSpByEntityId('https://s2.example.org/shibboleth')).toEqual(forum);
      expect(await store().getSamlSp('nope')).toBeNull();
      expect(await store().getSamlSpByName('nope')).toBeNull();
      expect(await store().getSamlSpByEntityId('https://nope.example.org/')).toBeNull();
      expect(await store().listSamlSps()).toEqual([events, forum]);
    });

    test('refuse a name, an entity id or an id taken, with StoreConflictError', async () => {
      await store().createSamlSp(anSp('s1', { name: 'events' }));
      await expect(store().createSamlSp(anSp('s2', { name: 'events' }))).rejects.toBeInstanceOf(StoreConflictError);
      await expect(store().createSamlSp(anSp('s2', { entityId: 'https://s1.example.org/shibboleth' }))).rejects.toBeInstanceOf(StoreConflictError);
      await expect(store().createSamlSp(anSp('s1', { name: 'other', entityId: 'https://other.example.org/' }))).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store().listSamlSps()).toHaveLength(1);
    });

    test('say whether any is registered, and are removed', async () => {
      expect(await store().hasSamlSps()).toBe(false);
      await store().createSamlSp(anSp('s1'));
      expect(await store().hasSamlSps()).toBe(true);
      expect(await store().deleteSamlSp('s1')).toBe(true);
      expect(await store().deleteSamlSp('s1')).toBe(false);
      expect(await store().hasSamlSps()).toBe(false);
    });
  });

  describe('SAML signing keys', () => {
    test('the first key is added once, signing from its creation, even asked twice', async () => {
      expect(await store().listSamlKeys()).toEqual([]);
      expect(await store().addFirstSamlKey(aKey('k1'))).toBe(true);
      expect(await store().addFirstSamlKey(aKey('k2'))).toBe(false);
      expect(await store().listSamlKeys()).toEqual([aKey('k1', { activatedAt: T0 })]);
    });

    test('of two first keys or two next keys added at once, one is', async () => {
      expect((await Promise.all([store().addFirstSamlKey(aKey('k1')), store().addFirstSamlKey(aKey('k2'))])).sort()).toEqual([false, true]);
      expect((await Promise.all([store().addNextSamlKey(aKey('k3')), store().addNextSamlKey(aKey('k4'))])).sort()).toEqual([false, true]);
      expect((await store().listSamlKeys()).map((key) => key.activatedAt === null)).toEqual([false, true]);
    });

    test('one next key is published at a time, listed after the signing key', async () => {
      await store().addFirstSamlKey(aKey('k1'));
      expect(await store().addNextSamlKey(aKey('k2', { createdAt: T0 + MINUTE }))).toBe(true);
      expect(await store().addNextSamlKey(aKey('k3', { createdAt: T0 + 2 * MINUTE }))).toBe(false);
      expect(await store().listSamlKeys()).toEqual([aKey('k1', { activatedAt: T0 }), aKey('k2', { createdAt: T0 + MINUTE })]);
    });

    test('activating makes the next key sign and retires the signing one, at the same time; with no next key it changes nothing', async () => {
      await store().addFirstSamlKey(aKey('k1'));
      expect(await store().activateNextSamlKey(T0 + MINUTE)).toBeNull();
      await store().addNextSamlKey(aKey('k2', { createdAt: T0 + MINUTE }));
      expect(await store().activateNextSamlKey(T0 + 2 * MINUTE)).toBe('k2');
      expect(await store().activateNextSamlKey(T0 + 3 * MINUTE)).toBeNull();
      await store().addNextSamlKey(aKey('k3', { createdAt: T0 + 4 * MINUTE }));
      expect(await store().listSamlKeys()).toEqual([
        aKey('k2', { createdAt: T0 + MINUTE, activatedAt: T0 + 2 * MINUTE }),
        aKey('k3', { createdAt: T0 + 4 * MINUTE }),
        aKey('k1', { activatedAt: T0, retiredAt: T0 + 2 * MINUTE }),
      ]);
    });

    test('of two activations at once, one activates the key', async () => {
      await store().addFirstSamlKey(aKey('k1'));
      await store().addNextSamlKey(aKey('k2', { createdAt: T0 + MINUTE }));
      const results = await Promise.all([store().activateNextSamlKey(T0 + 2 * MINUTE), store().activateNextSamlKey(T0 + 2 * MINUTE)]);
      expect(results.sort()).toEqual(['k2', null]);
      expect((await store().listSamlKeys()).map((key) => [key.kid, key.activatedAt, key.retiredAt])).toEqual([
        ['k2', T0 + 2 * MINUTE, null],
        ['k1', T0, T0 + 2 * MINUTE],
      ]);
    });
  });

  describe('SAML session participants and requests', () => {
    beforeEach(async () => {
      for (const [memberId, username] of [
        ['m1', 'ada'],
        ['m2', 'bob'],
      ]) {
        await store().createMember({ id: memberId ?? '', username: username ?? '', email: '', firstName: '', lastName: '', enabled: true, createdAt: T0, attributes: {} });
      }
      await store().createSession(aSession('ms1', 'm1'));
      await store().createSession(aSession('ms2', 'm1'));
      await store().createSession(aSession('ms3', 'm2'));
      await store().createSamlSp(anSp('sp1'));
      await store().createSamlSp(anSp('sp2'));
    });

    const participant = (memberSessionId: string, memberId: string, spId: string, overrides: Partial<SamlParticipantRow> = {}): SamlParticipantRow => ({
      memberSessionId,
      memberId,
      spId,
      nameId: memberId,
      nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      sessionIndex: `_index-${memberSessionId}-${spId}`,
      createdAt: T0,
      ...overrides,
    });

    test('participants are found by member session, by member and by SP and NameID; joining again replaces one; one leaves', async () => {
      await store().joinSamlSession(participant('ms1', 'm1', 'sp2'));
      await store().joinSamlSession(participant('ms1', 'm1', 'sp1', { createdAt: T0 + MINUTE }));
      await store().joinSamlSession(participant('ms2', 'm1', 'sp1'));
      await store().joinSamlSession(participant('ms3', 'm2', 'sp1', { nameId: 'transient-xyz' }));
      expect(await store().findSamlParticipants({ memberSessionId: 'ms1' })).toEqual([participant('ms1', 'm1', 'sp2'), participant('ms1', 'm1', 'sp1', { createdAt: T0 + MINUTE })]);
      expect(await store().findSamlParticipants({ memberId: 'm2' })).toEqual([participant('ms3', 'm2', 'sp1', { nameId: 'transient-xyz' })]);
      expect(await store().findSamlParticipants({ spId: 'sp1', nameId: 'm1' })).toEqual([participant('ms1', 'm1', 'sp1', { createdAt: T0 + MINUTE }), participant('ms2', 'm1', 'sp1')]);
      expect(await store().findSamlParticipants({ spId: 'sp2', nameId: 'transient-xyz' })).toEqual([]);

      const again = participant('ms1', 'm1', 'sp2', { nameId: 'ada@example.org', nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', sessionIndex: '_new', createdAt: T0 + 2 * MINUTE });
      await store().joinSamlSession(again);
      expect(await store().findSamlParticipants({ memberSessionId: 'ms1' })).toEqual([participant('ms1', 'm1', 'sp1', { createdAt: T0 + MINUTE }), again]);
      await store().leaveSamlSession('ms1', 'sp2');
      await store().leaveSamlSession('ms1', 'nope');
      expect(await store().findSamlParticipants({ memberSessionId: 'ms1' })).toEqual([participant('ms1', 'm1', 'sp1', { createdAt: T0 + MINUTE })]);
    });

    test('a participant needs its member session and its SP', async () => {
      await expect(store().joinSamlSession(participant('no-session', 'm1', 'sp1'))).rejects.toThrow();
      await expect(store().joinSamlSession(participant('ms1', 'm1', 'no-sp'))).rejects.toThrow();
    });

    test('participants go with their member session (purged, or its member removed) and with their SP', async () => {
      await store().joinSamlSession(participant('ms1', 'm1', 'sp1'));
      await store().joinSamlSession(participant('ms2', 'm1', 'sp1'));
      await store().joinSamlSession(participant('ms2', 'm1', 'sp2'));
      await store().joinSamlSession(participant('ms3', 'm2', 'sp1'));
      await store().revokeSession('ms1', T0);
      await store().purgeSessions(T0, T0 - 1);
      expect(await store().findSamlParticipants({ memberSessionId: 'ms1' })).toEqual([]);
      await store().deleteMember('m2');
      expect(await store().findSamlParticipants({ memberSessionId: 'ms3' })).toEqual([]);
      await store().deleteSamlSp('sp1');
      expect(await store().findSamlParticipants({ memberId: 'm1' })).toEqual([participant('ms2', 'm1', 'sp2')]);
    });

    test("a request is stored once per SP and request ID: the same ID again is a replay, another SP's is not", async () => {
      expect(await store().openSamlRequest(aRequest('h1', 'sp1', '_id1'))).toBe(true);
      expect(await store().openSamlRequest(aRequest('h2', 'sp1', '_id1', { kind: 'logout' }))).toBe(false);
      expect(await store().openSamlRequest(aRequest('h3', 'sp2', '_id1', { kind: 'logout', payloadSealed: 'Zoë 日本' }))).toBe(true);
      expect(await store().findSamlRequest('h1')).toEqual(aRequest('h1', 'sp1', '_id1'));
      expect(await store().findSamlRequest('h2')).toBeNull();
      expect(await store().findSamlRequest('h3')).toEqual(aRequest('h3', 'sp2', '_id1', { kind: 'logout', payloadSealed: 'Zoë 日本' }));
    });

    test('a request is updated and consumed only while live; consumed once', async () => {
      await store().openSamlRequest(aRequest('h1', 'sp1', '_id1'));
      expect(await store().updateSamlRequest('h1', 'sealed-2', T0 + 1)).toBe(true);
      expect(await store().updateSamlRequest('h1', 'sealed-late', T0 + MINUTE)).toBe(false);
      expect(await store().updateSamlRequest('nope', 'sealed', T0)).toBe(false);
      expect(await store().consumeSamlRequest('h1', T0 + MINUTE)).toBe(false);
      expect(await store().consumeSamlRequest('h1', T0 + 2)).toBe(true);
      expect(await store().consumeSamlRequest('h1', T0 + 3)).toBe(false);
      expect(await store().updateSamlRequest('h1', 'sealed-3', T0 + 4)).toBe(false);
      expect(await store().findSamlRequest('h1')).toEqual(aRequest('h1', 'sp1', '_id1', { payloadSealed: 'sealed-2', consumedAt: T0 + 2 }));
    });

    test('of two consumptions at once, one wins', async () => {
      await store().openSamlRequest(aRequest('h1', 'sp1', '_id1'));
      const results = await Promise.all([store().consumeSamlRequest('h1', T0 + 1), store().consumeSamlRequest('h1', T0 + 1)]);
      expect(results.sort()).toEqual([false, true]);
    });

    test('requests go with their SP', async () => {
      await store().openSamlRequest(aRequest('h1', 'sp1', '_id1'));
      await store().deleteSamlSp('sp1');
      expect(await store().findSamlRequest('h1')).toBeNull();
    });

    test('the purge deletes requests expired at or before its time, and keys retired at or before theirs', async () => {
      await store().openSamlRequest(aRequest('old', 'sp1', '_old', { expiresAt: T0 }));
      await store().openSamlRequest(aRequest('live', 'sp1', '_live', { expiresAt: T0 + 1 }));
      await store().addFirstSamlKey(aKey('k1'));
      await store().addNextSamlKey(aKey('k2', { createdAt: T0 + MINUTE }));
      await store().activateNextSamlKey(T0 + MINUTE);
      expect(await store().purgeSaml(T0, T0 + MINUTE - 1)).toBe(1);
      expect(await store().purgeSaml(T0, T0 + MINUTE)).toBe(1);
      expect(await store().findSamlRequest('old')).toBeNull();
      expect(await store().findSamlRequest('live')).not.toBeNull();
      expect((await store().listSamlKeys()).map((key) => key.kid)).toEqual(['k2']);
      // The purged request's ID may be used again: replays are refused while the request is kept.
      expect(await store().openSamlRequest(aRequest('again', 'sp1', '_old', { expiresAt: T0 + MINUTE }))).toBe(true);
    });
  });
}
