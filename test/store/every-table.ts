import type { EventRow, Store } from '../../src/store/store.js';

/** Epoch milliseconds past 2^31 (they need BIGINT), the same in every row. */
const AT = Date.UTC(2031, 4, 6, 7, 8, 9, 10);

/**
 * Writes rows into every table of the store through its methods, with the values a copy could get wrong: text
 * past ASCII, quotes and backslashes, flags both ways, NULLs, times that need 64 bits, JSON. The copy tests
 * check that every table of a migrated store holds a row once this ran: a table a migration adds fails them
 * until a row of it is written here.
 */
export async function fillEveryTable(store: Store): Promise<void> {
  await store.claimSetting('secret_key_fingerprint', 'fingerprint-of-the-key');
  const caller = await store.createCaller('partner "one" \\ ✓', AT);
  await store.createCaller('partner two', AT + 1);
  await store.setCallerEnabled(caller.id, false);
  await store.addCallerPassword(caller.id, 'caller-password-hash', AT);
  await store.addCallerOrigin({ callerId: caller.id, origin: 'https://partner.example.org', receivesToken: true, createdAt: AT });
  await store.createMember({
    id: 'm1',
    username: 'zoë',
    email: 'zoe@example.org',
    firstName: 'Zoë',
    lastName: "O'Brien",
    enabled: true,
    createdAt: AT,
    attributes: { isMember: true, roles: [{ id: 'r1', name: 'Board' }] },
    externalId: 'ext-1',
    passwordHash: 'member-password-hash',
  });
  await store.createMember({ id: 'm2', username: 'bob', email: 'bob@example.org', firstName: 'Bob', lastName: 'B', enabled: false, createdAt: AT + 1, attributes: {} });
  await store.createSession({
    id: 's1',
    memberId: 'm1',
    cookieDomain: '.example.org',
    cookieHash: 'cookie-hash',
    tokenHash: 'token-hash',
    tokenSealed: 'sealed-token',
    cookieSealed: 'sealed-cookie',
    createdAt: AT,
    lastSeenAt: AT + 5,
    expiresAt: AT + 3_600_000,
    revokedAt: null,
    clientAddress: '2001:db8::1',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
    through: { kind: 'partner', name: 'partner "one" \\ ✓' },
  });
  await store.recordFailure('signin:zoë', AT, 60_000);
  await store.replaceSecondFactor({ memberId: 'm1', secretSealed: 'sealed-secret', createdAt: AT, confirmedAt: null, lastStep: null });
  await store.confirmSecondFactor('m1', AT + 1, 2_000_000_000, ['code-hash-1', 'code-hash-2']);
  await store.createProvisioningClient('hr-system', 'provisioning-token-hash', AT);
  await store.issueRecoveryToken({ memberId: 'm1', tokenHash: 'recovery-hash', createdAt: AT, expiresAt: AT + 3_600_000 });
  await store.createOidcClient({
    id: 'client-1',
    name: 'portal',
    secretHash: null,
    firstParty: true,
    redirectUris: ['https://rp.example.org/callback'],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: null,
    createdAt: AT,
  });
  await store.addFirstOidcKey({ kid: 'kid-1', privateJwkSealed: 'sealed-jwk', createdAt: AT, retiredAt: null });
  await store.upsertOidcPayload({ model: 'Grant', id: 'grant-1', payload: '{"accountId":"m1","openid":{"scope":"openid"}}', grantId: 'grant-1', uid: null, expiresAt: AT + 1, consumedAt: null });
  await store.linkOidcSession({ uid: 'uid-1', memberSessionId: 's1', memberId: 'm1', tokenSealed: 'sealed-link' });
  await store.createSamlSp({ id: 'sp-1', name: 'wiki', entityId: 'https://wiki.example.org/sp', metadataXml: '<EntityDescriptor/>', settings: '{"signAssertions":true}', createdAt: AT });
  await store.addFirstSamlKey({ kid: 'saml-1', privateKeySealed: 'sealed-key', certificate: 'MIIC…', createdAt: AT, activatedAt: AT, retiredAt: null });
  await store.joinSamlSession({ memberSessionId: 's1', memberId: 'm1', spId: 'sp-1', nameId: 'zoë', nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified', sessionIndex: 'index-1', createdAt: AT });
  await store.openSamlRequest({ handle: 'handle-1', spId: 'sp-1', requestId: 'request-1', kind: 'authn', payloadSealed: 'sealed-request', createdAt: AT, expiresAt: AT + 300_000, consumedAt: null });
  await store.insertEvents([signInEvent('event-1', AT)]);
  await store.setStaffRole({ memberId: 'm1', role: 'admin', grantedAt: AT });
  await store.createPasskey({
    id: 'credential-1',
    memberId: 'm1',
    publicKey: 'cose-public-key',
    counter: 2_147_483_648,
    transports: ['internal', 'hybrid'],
    deviceType: 'multiDevice',
    backedUp: true,
    name: 'Zoë’s "phone"',
    createdAt: AT,
    lastUsedAt: null,
  });
  await store.createPasskeyChallenge({ id: 'challenge-1', purpose: 'register', memberId: 'm1', challenge: 'challenge', expiresAt: AT + 300_000 }, AT);
  await store.recordPasskeySession('s1', 'credential-1');
  await store.createRole({ id: 'r1', name: 'Board', externalId: null, createdAt: AT });
}

/** Member m1's sign-in on the page, as an event row. */
export function signInEvent(id: string, time: number): EventRow {
  return {
    id,
    time,
    type: 'signin-succeeded',
    actorKind: 'member',
    actorId: 'm1',
    memberId: 'm1',
    clientAddress: '192.0.2.1',
    device: null,
    via: 'page',
    requestId: 'request-id',
    outcome: 'password',
    reason: null,
  };
}
