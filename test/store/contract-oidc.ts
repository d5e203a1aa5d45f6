import type { OidcClientRow, OidcKeyRow, OidcPayloadRow, SessionRow, Store } from '../../src/store/store.js';
import { StoreConflictError } from '../../src/store/store.js';

/** Well past 2^31, as in the rest of the contract. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

function aClient(id: string, overrides: Partial<OidcClientRow> = {}): OidcClientRow {
  return {
    id,
    name: `client-${id}`,
    secretHash: `secret-hash-${id}`,
    firstParty: false,
    redirectUris: ['https://rp.example.org/callback', 'http://127.0.0.1:8080/cb?x=1&y=Ünï'],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: null,
    createdAt: T0,
    ...overrides,
  };
}

function aKey(kid: string, overrides: Partial<OidcKeyRow> = {}): OidcKeyRow {
  return { kid, privateJwkSealed: `sealed-jwk-${kid}`, createdAt: T0, retiredAt: null, ...overrides };
}

function aRecord(model: string, id: string, overrides: Partial<OidcPayloadRow> = {}): OidcPayloadRow {
  return {
    model,
    id,
    payload: JSON.stringify({ jti: id, kind: model, note: 'Zoë "Z" \\ 日本' }),
    grantId: null,
    uid: null,
    expiresAt: T0 + MINUTE,
    consumedAt: null,
    ...overrides,
  };
}

/**
 * The OpenID provider's part of the store contract (src/service/oidc/ uses it): clients, signing keys, the
 * provider's records and the links of its sessions to member sessions. `store` is the test's fresh store.
 */
export function oidcStoreContract(store: () => Store, aSession: (id: string, memberId: string) => SessionRow): void {
  describe('OpenID clients', () => {
    test('are stored with their URIs exactly, found by id and by name, listed by name', async () => {
      const forum = aClient('c2', { name: 'forum', firstParty: true, postLogoutRedirectUris: ['https://forum.example.org/'], backchannelLogoutUri: 'http://10.0.0.5/logout' });
      const app = aClient('c1', { name: 'app', secretHash: null });
      await store().createOidcClient(forum);
      await store().createOidcClient(app);
      expect(await store().getOidcClient('c2')).toEqual(forum);
      expect(await store().getOidcClientByName('app')).toEqual(app);
      expect(await store().getOidcClient('nope')).toBeNull();
      expect(await store().getOidcClientByName('nope')).toBeNull();
      expect(await store().listOidcClients()).toEqual([app, forum]);
    });

    test('refuse a name or an id taken, with StoreConflictError', async () => {
      await store().createOidcClient(aClient('c1', { name: 'portal' }));
      await expect(store().createOidcClient(aClient('c2', { name: 'portal' }))).rejects.toBeInstanceOf(StoreConflictError);
      await expect(store().createOidcClient(aClient('c1', { name: 'other' }))).rejects.toBeInstanceOf(StoreConflictError);
    });

    test('say whether any is registered, change their secret hash and are removed', async () => {
      expect(await store().hasOidcClients()).toBe(false);
      await store().createOidcClient(aClient('c1'));
      expect(await store().hasOidcClients()).toBe(true);
      expect(await store().setOidcClientSecret('c1', 'new-hash')).toBe(true);
      expect(await store().setOidcClientSecret('nope', 'new-hash')).toBe(false);
      expect((await store().getOidcClient('c1'))?.secretHash).toBe('new-hash');
      expect(await store().deleteOidcClient('c1')).toBe(true);
      expect(await store().deleteOidcClient('c1')).toBe(false);
      expect(await store().hasOidcClients()).toBe(false);
    });
  });

  describe('OpenID signing keys', () => {
    test('the first key is added once, even asked twice', async () => {
      expect(await store().listOidcKeys()).toEqual([]);
      expect(await store().addFirstOidcKey(aKey('k1'))).toBe(true);
      expect(await store().addFirstOidcKey(aKey('k2'))).toBe(false);
      expect(await store().listOidcKeys()).toEqual([aKey('k1')]);
    });

    test('a rotation retires every key not retired, at the new key\'s creation, and lists the new one first', async () => {
      await store().addFirstOidcKey(aKey('k1'));
      await store().rotateOidcKeys(aKey('k2', { createdAt: T0 + MINUTE }));
      await store().rotateOidcKeys(aKey('k3', { createdAt: T0 + 2 * MINUTE }));
      expect(await store().listOidcKeys()).toEqual([
        aKey('k3', { createdAt: T0 + 2 * MINUTE }),
        aKey('k2', { createdAt: T0 + MINUTE, retiredAt: T0 + 2 * MINUTE }),
        aKey('k1', { retiredAt: T0 + MINUTE }),
      ]);
    });
  });

  describe('OpenID records', () => {
    test('are saved, found by model and id or by uid, and saved again in place', async () => {
      const session = aRecord('Session', 's1', { uid: 'u1', expiresAt: T0 + 10 * MINUTE });
      await store().upsertOidcPayload(session);
      await store().upsertOidcPayload(aRecord('Grant', 's1', { grantId: 's1', expiresAt: null }));
      expect(await store().findOidcPayload('Session', 's1')).toEqual(session);
      expect(await store().findOidcPayload('Grant', 's1')).toEqual(aRecord('Grant', 's1', { grantId: 's1', expiresAt: null }));
      expect(await store().findOidcPayloadByUid('Session', 'u1')).toEqual(session);
      expect(await store().findOidcPayloadByUid('Interaction', 'u1')).toBeNull();
      const again = { ...session, payload: '{"jti":"s1","changed":true}', expiresAt: T0 + 20 * MINUTE };
      await store().upsertOidcPayload(again);
      expect(await store().findOidcPayload('Session', 's1')).toEqual(again);
    });

    test('are consumed once, and a record saved again stays consumed', async () => {
      const token = aRecord('RefreshToken', 't1', { grantId: 'g1' });
      await store().upsertOidcPayload(token);
      await store().consumeOidcPayload('RefreshToken', 't1', T0 + 1000);
      await store().consumeOidcPayload('RefreshToken', 't1', T0 + 2000);
      expect(await store().findOidcPayload('RefreshToken', 't1')).toEqual({ ...token, consumedAt: T0 + 1000 });
      await store().upsertOidcPayload(token);
      expect((await store().findOidcPayload('RefreshToken', 't1'))?.consumedAt).toBe(T0 + 1000);
    });

    test('are deleted one by one, by grant and model, or by grant with the grant itself', async () => {
      const rows = [
        aRecord('Grant', 'g1', { grantId: 'g1' }),
        aRecord('AccessToken', 'a1', { grantId: 'g1' }),
        aRecord('RefreshToken', 'r1', { grantId: 'g1' }),
        aRecord('AccessToken', 'a2', { grantId: 'g2' }),
        aRecord('Session', 's1'),
      ];
      for (const row of rows) await store().upsertOidcPayload(row);
      await store().deleteOidcGrant('g1', 'AccessToken');
      expect(await store().findOidcPayload('AccessToken', 'a1')).toBeNull();
      expect(await store().findOidcPayload('RefreshToken', 'r1')).not.toBeNull();
      await store().deleteOidcGrant('g1');
      expect(await store().findOidcPayload('RefreshToken', 'r1')).toBeNull();
      expect(await store().findOidcPayload('Grant', 'g1')).toBeNull();
      expect(await store().findOidcPayload('AccessToken', 'a2')).not.toBeNull();
      await store().deleteOidcPayload('Session', 's1');
      expect(await store().findOidcPayload('Session', 's1')).toBeNull();
    });

    test('the purge deletes records expired at or before its time, and keys retired at or before theirs', async () => {
      await store().upsertOidcPayload(aRecord('AccessToken', 'old', { expiresAt: T0 }));
      await store().upsertOidcPayload(aRecord('AccessToken', 'live', { expiresAt: T0 + 1 }));
      await store().upsertOidcPayload(aRecord('Grant', 'forever', { expiresAt: null }));
      await store().addFirstOidcKey(aKey('k1'));
      await store().rotateOidcKeys(aKey('k2', { createdAt: T0 + MINUTE }));
      expect(await store().purgeOidc(T0, T0 + MINUTE - 1)).toBe(1);
      expect(await store().purgeOidc(T0, T0 + MINUTE)).toBe(1);
      expect(await store().findOidcPayload('AccessToken', 'live')).not.toBeNull();
      expect(await store().findOidcPayload('Grant', 'forever')).not.toBeNull();
      expect((await store().listOidcKeys()).map((key) => key.kid)).toEqual(['k2']);
    });
  });

  describe('OpenID session links', () => {
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
    });

    const link = (uid: string, memberSessionId: string, memberId: string) => ({ uid, memberSessionId, memberId, tokenSealed: `sealed-${memberSessionId}` });

    test('are found by uid, by member session and by member; a link again replaces it', async () => {
      await store().linkOidcSession(link('u1', 'ms1', 'm1'));
      await store().linkOidcSession(link('u2', 'ms2', 'm1'));
      await store().linkOidcSession(link('u3', 'ms3', 'm2'));
      expect(await store().findOidcSessionLink('u1')).toEqual(link('u1', 'ms1', 'm1'));
      expect(await store().findOidcSessionLink('nope')).toBeNull();
      expect(await store().findOidcSessionLinks({ memberSessionId: 'ms2' })).toEqual([link('u2', 'ms2', 'm1')]);
      expect(await store().findOidcSessionLinks({ memberId: 'm1' })).toEqual([link('u1', 'ms1', 'm1'), link('u2', 'ms2', 'm1')]);
      await store().linkOidcSession(link('u1', 'ms2', 'm1'));
      expect(await store().findOidcSessionLinks({ memberSessionId: 'ms2' })).toEqual([link('u1', 'ms2', 'm1'), link('u2', 'ms2', 'm1')]);
      await store().deleteOidcSessionLink('u1');
      expect(await store().findOidcSessionLink('u1')).toBeNull();
    });

    test('go with their member session, whether it is purged or its member removed', async () => {
      await store().linkOidcSession(link('u1', 'ms1', 'm1'));
      await store().linkOidcSession(link('u3', 'ms3', 'm2'));
      await store().revokeSession('ms1', T0);
      await store().purgeSessions(T0, T0 - 1);
      expect(await store().findOidcSessionLink('u1')).toBeNull();
      await store().deleteMember('m2');
      expect(await store().findOidcSessionLink('u3')).toBeNull();
    });
  });
}
