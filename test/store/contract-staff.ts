import type { NewMember, Store } from '../../src/store/store.js';

/** Well past 2^31, as in the rest of the contract. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

function aNewMember(id: string): NewMember {
  return { id, username: `user-${id}`, email: `${id}@example.org`, firstName: 'Ada', lastName: 'Lovelace', enabled: true, createdAt: T0, attributes: {} };
}

/** The staff roles' part of the store contract (src/service/staff.ts uses it). `store` is the test's fresh store. */
export function staffStoreContract(store: () => Store): void {
  describe('staff roles', () => {
    test('a member gets one role, which a new grant replaces, listed by member id and removed', async () => {
      await store().createMember(aNewMember('m2'));
      await store().createMember(aNewMember('m1'));
      expect(await store().setStaffRole({ memberId: 'm2', role: 'support', grantedAt: T0 })).toBe(true);
      expect(await store().setStaffRole({ memberId: 'm1', role: 'support', grantedAt: T0 })).toBe(true);
      expect(await store().setStaffRole({ memberId: 'm1', role: 'admin', grantedAt: T0 + MINUTE })).toBe(true);
      expect(await store().getStaffRole('m1')).toEqual({ memberId: 'm1', role: 'admin', grantedAt: T0 + MINUTE });
      expect(await store().listStaffRoles()).toEqual([
        { memberId: 'm1', role: 'admin', grantedAt: T0 + MINUTE },
        { memberId: 'm2', role: 'support', grantedAt: T0 },
      ]);
      expect(await store().deleteStaffRole('m1')).toBe(true);
      expect(await store().deleteStaffRole('m1')).toBe(false);
      expect(await store().getStaffRole('m1')).toBeNull();
      expect(await store().listStaffRoles()).toEqual([{ memberId: 'm2', role: 'support', grantedAt: T0 }]);
    });

    test('only a stored member gets a role, and it goes with the member', async () => {
      expect(await store().setStaffRole({ memberId: 'nobody', role: 'admin', grantedAt: T0 })).toBe(false);
      expect(await store().listStaffRoles()).toEqual([]);
      await store().createMember(aNewMember('m1'));
      await store().setStaffRole({ memberId: 'm1', role: 'support', grantedAt: T0 });
      await store().deleteMember('m1');
      expect(await store().getStaffRole('m1')).toBeNull();
      expect(await store().listStaffRoles()).toEqual([]);
    });
  });
}
