import type { NewMember, PasskeyRow, SessionRow, Store } from '../../src/store/store.js';
import { StoreConflictError } from '../../src/store/store.js';

/** Well past 2^31, as in the rest of the contract. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

function aNewMember(id: string): NewMember {
  return { id, username: `user-${id}`, email: `${id}@example.org`, firstName: 'Ada', lastName: 'Lovelace', enabled: true, createdAt: T0, attributes: {} };
}

function aPasskey(id: string, memberId: string, overrides: Partial<PasskeyRow> = {}): PasskeyRow {
  return {
    id,
    memberId,
    publicKey: `pQECAyYgASFYI-${id}`,
    counter: 0,
    transports: ['hybrid', 'internal'],
    deviceType: 'multiDevice',
    backedUp: true,
    name: 'Phone',
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

/** The passkeys' part of the store contract (src/service/passkeys.ts uses it). `store` is the test's fresh store. */
export function passkeyStoreContract(store: () => Store, aSession: (id: string, memberId: string) => SessionRow): void {
  describe('passkeys', () => {
    beforeEach(async () => {
      await store().createMember(aNewMember('m1'));
      await store().createMember(aNewMember('m2'));
    });

    test('are stored exactly, found by credential id, listed per member oldest first, a credential id once', async () => {
      const laptop = aPasskey('c2', 'm1', { name: 'Laptop', transports: [], deviceType: 'singleDevice', backedUp: false, counter: 2 ** 32 - 1 });
      const phone = aPasskey('c1', 'm1', { createdAt: T0 + MINUTE, lastUsedAt: T0 + 2 * MINUTE });
      await store().createPasskey(laptop);
      await store().createPasskey(phone);
      await store().createPasskey(aPasskey('c3', 'm2'));
      expect(await store().findPasskey('c2')).toEqual(laptop);
      expect(await store().findPasskey('c1')).toEqual(phone);
      expect(await store().findPasskey('nope')).toBeNull();
      expect(await store().listPasskeys('m1')).toEqual([laptop, phone]);
      expect(await store().listPasskeys('nobody')).toEqual([]);
      await expect(store().createPasskey(aPasskey('c1', 'm2'))).rejects.toBeInstanceOf(StoreConflictError);
    });

    test('a use is written only at the counter its writer read: of two with one counter, one', async () => {
      await store().createPasskey(aPasskey('c1', 'm1', { counter: 5, backedUp: false }));
      const use = { previousCounter: 5, counter: 6, backedUp: true, usedAt: T0 + MINUTE };
      const raced = await Promise.all([store().usePasskey('c1', use), store().usePasskey('c1', use)]);
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await store().findPasskey('c1')).toMatchObject({ counter: 6, backedUp: true, lastUsedAt: T0 + MINUTE });
      expect(await store().usePasskey('nope', use)).toBe(false);
    });

    test('are renamed and removed by their own member only; a member\'s removal takes them', async () => {
      await store().createPasskey(aPasskey('c1', 'm1'));
      expect(await store().renamePasskey('m2', 'c1', 'Stolen')).toBe(false);
      expect(await store().renamePasskey('m1', 'c1', 'Work laptop')).toBe(true);
      expect((await store().findPasskey('c1'))?.name).toBe('Work laptop');
      expect(await store().deletePasskey('m2', 'c1')).toBe(false);
      expect(await store().deletePasskey('m1', 'c1')).toBe(true);
      expect(await store().deletePasskey('m1', 'c1')).toBe(false);
      expect(await store().findPasskey('c1')).toBeNull();
      await store().createPasskey(aPasskey('c2', 'm2'));
      await store().deleteMember('m2');
      expect(await store().findPasskey('c2')).toBeNull();
    });

    test('a challenge is taken once; storing one deletes the expired', async () => {
      const challenge = { id: 'h1', purpose: 'register' as const, memberId: 'm1', challenge: 'abc', expiresAt: T0 + MINUTE };
      await store().createPasskeyChallenge(challenge, T0);
      await store().createPasskeyChallenge({ id: 'h2', purpose: 'sign-in', memberId: null, challenge: 'def', expiresAt: T0 + 2 * MINUTE }, T0);
      const taken = await Promise.all([store().takePasskeyChallenge('h1'), store().takePasskeyChallenge('h1')]);
      expect(taken.filter((row) => row !== null)).toEqual([challenge]);
      await store().createPasskeyChallenge({ id: 'h3', purpose: 'sign-in', memberId: null, challenge: 'ghi', expiresAt: T0 + 4 * MINUTE }, T0 + 3 * MINUTE);
      expect(await store().takePasskeyChallenge('h2')).toBeNull();
      expect(await store().takePasskeyChallenge('h3')).toMatchObject({ challenge: 'ghi', memberId: null, purpose: 'sign-in' });
    });

    test('a session opened with a passkey is known as one, until it is purged', async () => {
      await store().createSession(aSession('s1', 'm1'));
      await store().createSession(aSession('s2', 'm1'));
      await store().recordPasskeySession('s1', 'c1');
      await store().recordPasskeySession('gone', 'c1');
      expect(await store().isPasskeySession('s1')).toBe(true);
      expect(await store().isPasskeySession('s2')).toBe(false);
      expect(await store().isPasskeySession('gone')).toBe(false);
      await store().deleteMember('m1');
      expect(await store().isPasskeySession('s1')).toBe(false);
    });
  });
}
