import type { NewMember, Store } from '../../src/store/store.js';

/** Well past 2^31, as in the rest of the contract. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

function aNewMember(id: string, overrides: Partial<NewMember> = {}): NewMember {
  return { id, username: `user-${id}`, email: `${id}@example.org`, firstName: 'Ada', lastName: 'Lovelace', enabled: true, createdAt: T0, attributes: {}, ...overrides };
}

/** The staff roles' part of the store contract (src/service/staff.ts uses it). `store` is the test's fresh store. */
export function staffStoreContract(store: () => Store): void {
  describe('the staff console: roles, and members found by name', () => {
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

    test('findMembers() finds members by name: the first, the last, or both with a space, ignoring case', async () => {
      await store().createMember(aNewMember('m1'));
      await store().createMember(aNewMember('m2', { firstName: 'Grace', lastName: 'Hopper', createdAt: T0 + MINUTE }));
      await store().createMember(aNewMember('m3', { firstName: 'Ada', lastName: 'Byron', createdAt: T0 + 2 * MINUTE }));
      const ids = async (name: string) => (await store().findMembers([{ field: 'name', value: name }], 0, 10)).members.map((member) => member.id);
      expect(await ids('ada')).toEqual(['m1', 'm3']);
      expect(await ids('HOPPER')).toEqual(['m2']);
      expect(await ids('Ada Lovelace')).toEqual(['m1']);
      expect(await ids('Ada Hopper')).toEqual([]);
      expect(await ids('Lovelace Ada')).toEqual([]);
      expect(await ids('Ad')).toEqual([]);
      expect((await store().findMembers([{ field: 'name', value: 'ada' }, { field: 'name', value: 'ADA' }], 0, 10)).total).toBe(2);
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
