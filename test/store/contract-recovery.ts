import type { NewMember, RecoveryTokenRow, Store } from '../../src/store/store.js';

/** Well past 2^31, as in the rest of the contract. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;
const TTL = 30 * MINUTE;

function aMember(id: string, overrides: Partial<NewMember> = {}): NewMember {
  return { id, username: `user-${id}`, email: `${id}@example.org`, firstName: 'Ada', lastName: 'Lovelace', enabled: true, createdAt: T0, attributes: {}, ...overrides };
}

function aToken(memberId: string, tokenHash: string, createdAt = T0): RecoveryTokenRow {
  return { memberId, tokenHash, createdAt, expiresAt: createdAt + TTL };
}

/**
 * Password recovery's part of the store contract (src/service/recovery.ts uses it): one token hash per member,
 * a newer one voiding the older, consumed once and atomically, none for a disabled or unknown member, purged
 * once expired. `store` is the test's fresh store.
 */
export function recoveryStoreContract(store: () => Store): void {
  describe('recovery tokens', () => {
    test('a token is stored for an enabled member and found by its hash', async () => {
      await store().createMember(aMember('m1'));
      expect(await store().issueRecoveryToken(aToken('m1', 'hash-1'))).toBe(true);
      expect(await store().findRecoveryToken('hash-1')).toStrictEqual(aToken('m1', 'hash-1'));
      expect(await store().findRecoveryToken('hash-2')).toBeNull();
    });

    test('none is stored for a disabled member, nor for an id no member has', async () => {
      await store().createMember(aMember('m1', { enabled: false }));
      expect(await store().issueRecoveryToken(aToken('m1', 'hash-1'))).toBe(false);
      expect(await store().issueRecoveryToken(aToken('nobody', 'hash-2'))).toBe(false);
      expect(await store().findRecoveryToken('hash-1')).toBeNull();
      expect(await store().findRecoveryToken('hash-2')).toBeNull();
    });

    test('a newer token takes the older one\'s place; another member\'s stays', async () => {
      await store().createMember(aMember('m1'));
      await store().createMember(aMember('m2'));
      await store().issueRecoveryToken(aToken('m1', 'old'));
      await store().issueRecoveryToken(aToken('m2', 'other'));
      expect(await store().issueRecoveryToken(aToken('m1', 'new', T0 + MINUTE))).toBe(true);
      expect(await store().findRecoveryToken('old')).toBeNull();
      expect(await store().consumeRecoveryToken('old', T0 + 2 * MINUTE)).toBeNull();
      expect(await store().findRecoveryToken('new')).toStrictEqual(aToken('m1', 'new', T0 + MINUTE));
      expect(await store().findRecoveryToken('other')).toStrictEqual(aToken('m2', 'other'));
    });

    test('consuming returns the member once, and only before the token expires', async () => {
      await store().createMember(aMember('m1'));
      await store().createMember(aMember('m2'));
      await store().issueRecoveryToken(aToken('m1', 'hash-1'));
      await store().issueRecoveryToken(aToken('m2', 'hash-2'));
      expect(await store().consumeRecoveryToken('hash-1', T0 + TTL - 1)).toBe('m1');
      expect(await store().consumeRecoveryToken('hash-1', T0 + TTL - 1)).toBeNull();
      expect(await store().findRecoveryToken('hash-1')).toBeNull();
      expect(await store().consumeRecoveryToken('hash-2', T0 + TTL)).toBeNull();
    });

    test('of concurrent consumptions of one token, exactly one gets the member', async () => {
      await store().createMember(aMember('m1'));
      await store().issueRecoveryToken(aToken('m1', 'hash-1'));
      const results = await Promise.all(Array.from({ length: 8 }, () => store().consumeRecoveryToken('hash-1', T0 + MINUTE)));
      expect(results.filter((id) => id === 'm1')).toHaveLength(1);
      expect(results.filter((id) => id === null)).toHaveLength(7);
    });

    test('a member\'s token goes with the member', async () => {
      await store().createMember(aMember('m1'));
      await store().issueRecoveryToken(aToken('m1', 'hash-1'));
      await store().deleteMember('m1');
      expect(await store().findRecoveryToken('hash-1')).toBeNull();
    });

    test('purgeRecoveryTokens() deletes the tokens expired at or before the time, and keeps the others', async () => {
      await store().createMember(aMember('m1'));
      await store().createMember(aMember('m2'));
      await store().createMember(aMember('m3'));
      await store().issueRecoveryToken(aToken('m1', 'expired'));
      await store().issueRecoveryToken(aToken('m2', 'at-edge', T0 + MINUTE));
      await store().issueRecoveryToken(aToken('m3', 'live', T0 + 2 * MINUTE));
      expect(await store().purgeRecoveryTokens(T0 + TTL + MINUTE)).toBe(2);
      expect(await store().findRecoveryToken('expired')).toBeNull();
      expect(await store().findRecoveryToken('at-edge')).toBeNull();
      expect(await store().findRecoveryToken('live')).not.toBeNull();
      expect(await store().purgeRecoveryTokens(T0 + TTL + MINUTE)).toBe(0);
    });
  });
}
