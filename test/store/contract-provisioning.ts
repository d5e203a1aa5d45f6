import type { MemberReplacement, MemberRow, NewMember, SessionRow, Store } from '../../src/store/store.js';
import { StoreConflictError } from '../../src/store/store.js';

/** Well past 2^31, as in the rest of the contract. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

function aNewMember(id: string, overrides: Partial<NewMember> = {}): NewMember {
  return { id, username: `user-${id}`, email: `${id}@example.org`, firstName: 'Ada', lastName: 'Lovelace', enabled: true, createdAt: T0, attributes: {}, ...overrides };
}

/** The member as the store reads it back, created from aNewMember with these overrides and never written since. */
function asCreated(id: string, overrides: Partial<NewMember> = {}): MemberRow {
  const { passwordHash: _passwordHash, ...member } = aNewMember(id, overrides);
  return { externalId: null, displayName: null, formattedName: null, ...member, version: 1, updatedAt: member.createdAt };
}

/** replaceMember's fields: every one different from aNewMember's. */
function aReplacement(overrides: Partial<MemberReplacement> = {}): MemberReplacement {
  return {
    username: 'countess',
    email: 'countess@example.net',
    firstName: 'Augusta',
    lastName: 'King',
    enabled: false,
    attributes: { organisationId: 'O-2', roles: [{ id: 'r1', name: 'Reader' }] },
    externalId: 'ext-2',
    displayName: 'The Countess',
    formattedName: 'Augusta Ada King, Countess of Lovelace',
    updatedAt: T0 + MINUTE,
    ...overrides,
  };
}

/**
 * SCIM provisioning's part of the store contract (src/service/provisioning*.ts uses it): the provisioning clients
 * and their token hashes; and the reads of the member import that keeps members in step too. `store` is the
 * test's fresh store.
 */
export function provisioningStoreContract(store: () => Store, aSession: (id: string, memberId: string) => SessionRow): void {
  describe('members as provisioning writes them', () => {
    test('a new member is at version 1, written when created, with its external id, display name and formatted name if given', async () => {
      expect(await store().createMember(aNewMember('m1'))).toStrictEqual(asCreated('m1'));
      const given = { externalId: 'ext-1', displayName: 'Zoë "Z"', formattedName: 'Zoë Ångström', createdAt: T0 + MINUTE };
      expect(await store().createMember(aNewMember('m2', given))).toStrictEqual(asCreated('m2', given));
      expect(await store().createMembers([aNewMember('m3', given), aNewMember('m4')])).toEqual(['created', 'created']);
      expect(await store().getMember('m3')).toStrictEqual(asCreated('m3', given));
      expect(await store().getMember('m4')).toStrictEqual(asCreated('m4'));
    });

    test('every write moves the version on and keeps its time', async () => {
      await store().createMember(aNewMember('m1'));
      await store().updateMember('m1', { lastName: 'King' }, 1, T0 + 1);
      expect(await store().getMember('m1')).toMatchObject({ version: 2, updatedAt: T0 + 1 });
      await store().setMemberEnabled('m1', false, T0 + 2);
      expect(await store().getMember('m1')).toMatchObject({ version: 3, updatedAt: T0 + 2 });
      await store().setMemberPassword('m1', 'argon2:hash', T0 + 3);
      expect(await store().getMember('m1')).toMatchObject({ version: 4, updatedAt: T0 + 3 });
      await store().replaceMember('m1', aReplacement({ updatedAt: T0 + 4 }), 4);
      // A session's member is read with the same fields.
      await store().createSession(aSession('s1', 'm1'));
      expect((await store().findSessionByTokenHash('token-hash-s1'))?.member).toStrictEqual(await store().getMember('m1'));
      expect(await store().getMember('m1')).toMatchObject({ version: 5, updatedAt: T0 + 4, externalId: 'ext-2', displayName: 'The Countess' });
    });

    test('replaceMember() writes every field at once, on the version read, with a password hash or without touching it', async () => {
      await store().createMember({ ...aNewMember('m1'), passwordHash: 'argon2:old' });
      const replaced = await store().replaceMember('m1', aReplacement(), 1);
      const expected: MemberRow = { ...asCreated('m1'), ...aReplacement(), version: 2 };
      expect(replaced).toStrictEqual({ ok: true, member: expected });
      expect(await store().getMemberCredentials('m1')).toStrictEqual({ member: expected, passwordHash: 'argon2:old' });
      await store().replaceMember('m1', aReplacement({ passwordHash: 'argon2:new' }), 2);
      expect((await store().getMemberCredentials('m1'))?.passwordHash).toBe('argon2:new');
      await store().replaceMember('m1', aReplacement({ passwordHash: null, externalId: null, displayName: null, formattedName: null }), 3);
      expect(await store().getMemberCredentials('m1')).toMatchObject({ member: { externalId: null, displayName: null, formattedName: null, version: 4 }, passwordHash: null });
    });

    test('replaceMember() refuses a stale version, an unknown member and a username another has, ignoring case, and writes nothing', async () => {
      await store().createMember(aNewMember('m1'));
      await store().createMember(aNewMember('m2', { username: 'Grace' }));
      expect(await store().replaceMember('m1', aReplacement(), 7)).toEqual({ ok: false, reason: 'stale' });
      expect(await store().replaceMember('m9', aReplacement(), 1)).toEqual({ ok: false, reason: 'notFound' });
      expect(await store().replaceMember('m1', aReplacement({ username: 'GRACE' }), 1)).toEqual({ ok: false, reason: 'usernameTaken' });
      expect(await store().replaceMember('m1', aReplacement({ username: 'Grace' }), 1)).toEqual({ ok: false, reason: 'usernameTaken' });
      expect(await store().getMember('m1')).toStrictEqual(asCreated('m1'));
      expect(await store().replaceMember('m1', aReplacement({ username: 'USER-M1' }), 1)).toMatchObject({ ok: true, member: { username: 'USER-M1' } });
    });

    test('deleteMember() on a version: removed with its sessions only while the member is at it', async () => {
      await store().createMember(aNewMember('m1'));
      await store().createSession(aSession('s1', 'm1'));
      expect(await store().deleteMember('m1', 2)).toBe('stale');
      expect(await store().deleteMember('m9', 1)).toBe('notFound');
      expect(await store().deleteMember('m9')).toBe('notFound');
      expect(await store().deleteMember('m1', 1)).toBe('removed');
      expect(await store().getMember('m1')).toBeNull();
      expect(await store().listSessions({ memberId: 'm1' })).toEqual([]);
    });
  });

  describe('findMembers()', () => {
    const ids = async (conditions: Parameters<Store['findMembers']>[0], offset = 0, limit = 10) => {
      const page = await store().findMembers(conditions, offset, limit);
      return { total: page.total, ids: page.members.map((member) => member.id) };
    };

    beforeEach(async () => {
      // Created out of id order, two at the same time: listed by creation, then id.
      await store().createMember(aNewMember('m3', { username: 'Ada', email: 'shared@example.org', externalId: 'E-1', createdAt: T0 }));
      await store().createMember(aNewMember('m2', { username: 'grace', email: 'Shared@Example.org', createdAt: T0 + MINUTE }));
      await store().createMember(aNewMember('m1', { username: 'hedy', externalId: 'e-1', createdAt: T0 + MINUTE }));
    });

    test('without conditions: every member, by creation then id, a page at a time, with the total', async () => {
      expect(await ids([])).toEqual({ total: 3, ids: ['m3', 'm1', 'm2'] });
      expect(await ids([], 1, 1)).toEqual({ total: 3, ids: ['m1'] });
      expect(await ids([], 3, 10)).toEqual({ total: 3, ids: [] });
      expect(await ids([], 0, 0)).toEqual({ total: 3, ids: [] });
    });

    test('username and email ignoring case, id and external id exactly', async () => {
      expect(await ids([{ field: 'username', value: 'ADA' }])).toEqual({ total: 1, ids: ['m3'] });
      expect(await ids([{ field: 'email', value: 'SHARED@example.ORG' }])).toEqual({ total: 2, ids: ['m3', 'm2'] });
      expect(await ids([{ field: 'email', value: 'SHARED@example.ORG' }], 1, 1)).toEqual({ total: 2, ids: ['m2'] });
      expect(await ids([{ field: 'externalId', value: 'E-1' }])).toEqual({ total: 1, ids: ['m3'] });
      expect(await ids([{ field: 'id', value: 'm2' }])).toEqual({ total: 1, ids: ['m2'] });
      expect(await ids([{ field: 'id', value: 'M2' }])).toEqual({ total: 0, ids: [] });
    });

    test('every condition must hold; the same field twice, with values the comparison tells apart, holds for none', async () => {
      expect(await ids([{ field: 'email', value: 'shared@example.org' }, { field: 'username', value: 'GRACE' }])).toEqual({ total: 1, ids: ['m2'] });
      expect(await ids([{ field: 'username', value: 'ada' }, { field: 'username', value: 'ADA' }])).toEqual({ total: 1, ids: ['m3'] });
      expect(await ids([{ field: 'username', value: 'ada' }, { field: 'username', value: 'grace' }])).toEqual({ total: 0, ids: [] });
      expect(await ids([{ field: 'externalId', value: 'E-1' }, { field: 'externalId', value: 'e-1' }])).toEqual({ total: 0, ids: [] });
      expect(await ids([{ field: 'id', value: 'm3' }, { field: 'externalId', value: 'E-1' }, { field: 'id', value: 'm3' }])).toEqual({ total: 1, ids: ['m3'] });
    });
  });

  describe('searchMembers()', () => {
    const ids = async (search: Omit<Parameters<Store['searchMembers']>[0], 'offset' | 'limit'>, offset = 0, limit = 10) => {
      const page = await store().searchMembers({ ...search, offset, limit });
      return { total: page.total, ids: page.members.map((member) => member.id) };
    };
    const text = (field: 'username' | 'email' | 'externalId' | 'shownName' | 'fullName' | 'organisationName', operator: 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'lt', value: string, caseExact = false) =>
      ({ filter: { kind: 'compare', field, operator, value, caseExact } }) as const;

    beforeEach(async () => {
      await store().createMember(aNewMember('m3', { username: 'Ada', email: 'a%_@example.org', externalId: 'E-1', createdAt: T0, attributes: { organisationName: 'Royal Society', roles: [{ id: 'r1', name: 'Board' }] } }));
      await store().createMember(aNewMember('m2', { username: 'grace', email: '', displayName: 'Amazing Grace', createdAt: T0 + MINUTE, attributes: { isMember: true } }));
      await store().createMember(aNewMember('m1', { username: 'hedy', firstName: '', formattedName: 'Hedy L.', createdAt: T0 + MINUTE, attributes: { roles: [{ id: 'R1', name: 'board' }, { id: 'r2', name: 'Fellows' }] } }));
    });

    test('without a filter: every member by creation then id, a page at a time, with the total', async () => {
      expect(await ids({})).toEqual({ total: 3, ids: ['m3', 'm1', 'm2'] });
      expect(await ids({}, 1, 1)).toEqual({ total: 3, ids: ['m1'] });
    });

    test('texts: each operator, ignoring ASCII case unless caseExact; LIKE\'s wildcards are plain characters; an absent text meets nothing but ne', async () => {
      expect(await ids(text('username', 'eq', 'ADA'))).toEqual({ total: 1, ids: ['m3'] });
      expect(await ids(text('username', 'eq', 'ADA', true))).toEqual({ total: 0, ids: [] });
      expect(await ids(text('email', 'co', '%_'))).toEqual({ total: 1, ids: ['m3'] });
      expect(await ids(text('email', 'co', '%'))).toEqual({ total: 1, ids: ['m3'] });
      expect(await ids(text('email', 'sw', '_'))).toEqual({ total: 0, ids: [] });
      expect(await ids(text('email', 'ew', '.ORG'))).toEqual({ total: 2, ids: ['m3', 'm1'] });
      expect(await ids(text('email', 'ne', 'a%_@example.org'))).toEqual({ total: 2, ids: ['m1', 'm2'] });
      expect(await ids(text('username', 'gt', 'b'))).toEqual({ total: 2, ids: ['m1', 'm2'] });
      expect(await ids(text('username', 'lt', 'b', true))).toEqual({ total: 1, ids: ['m3'] });
      expect(await ids(text('externalId', 'eq', 'e-1'))).toEqual({ total: 1, ids: ['m3'] });
      expect(await ids(text('organisationName', 'co', 'society'))).toEqual({ total: 1, ids: ['m3'] });
      // The name shown: the display name, else the full name as written, else the names joined.
      expect(await ids(text('shownName', 'sw', 'a'))).toEqual({ total: 2, ids: ['m3', 'm2'] });
      expect(await ids(text('fullName', 'eq', 'hedy l.'))).toEqual({ total: 1, ids: ['m1'] });
    });

    test('present, flags, times, and, or, not, and some role meeting a filter', async () => {
      expect(await ids({ filter: { kind: 'present', field: 'email' } })).toEqual({ total: 2, ids: ['m3', 'm1'] });
      expect(await ids({ filter: { kind: 'compare', field: 'isMember', operator: 'eq', value: true, caseExact: false } })).toEqual({ total: 1, ids: ['m2'] });
      expect(await ids({ filter: { kind: 'not', filter: { kind: 'compare', field: 'isMember', operator: 'eq', value: true, caseExact: false } } })).toEqual({ total: 2, ids: ['m3', 'm1'] });
      expect(await ids({ filter: { kind: 'compare', field: 'enabled', operator: 'eq', value: true, caseExact: false } })).toEqual({ total: 3, ids: ['m3', 'm1', 'm2'] });
      expect(await ids({ filter: { kind: 'compare', field: 'createdAt', operator: 'gt', value: T0, caseExact: true } })).toEqual({ total: 2, ids: ['m1', 'm2'] });
      const role = (id: string, caseExact: boolean) => ({ kind: 'anyValue', list: 'roles', filter: { kind: 'compare', field: 'element.id', operator: 'eq', value: id, caseExact } }) as const;
      expect(await ids({ filter: role('r1', true) })).toEqual({ total: 1, ids: ['m3'] });
      expect(await ids({ filter: role('r1', false) })).toEqual({ total: 2, ids: ['m3', 'm1'] });
      expect(await ids({ filter: { kind: 'or', filters: [role('r2', true), text('username', 'eq', 'grace').filter] } })).toEqual({ total: 2, ids: ['m1', 'm2'] });
      expect(await ids({ filter: { kind: 'and', filters: [role('r1', false), { kind: 'not', filter: role('r2', true) }] } })).toEqual({ total: 1, ids: ['m3'] });
    });

    test('sorted by a field, absent values last, then by creation and id; descending too', async () => {
      expect(await ids({ sort: { field: 'email', descending: false, caseExact: false } })).toEqual({ total: 3, ids: ['m3', 'm1', 'm2'] });
      expect(await ids({ sort: { field: 'username', descending: true, caseExact: false } })).toEqual({ total: 3, ids: ['m1', 'm2', 'm3'] });
      expect(await ids({ sort: { field: 'isMember', descending: false, caseExact: true } })).toEqual({ total: 3, ids: ['m2', 'm3', 'm1'] });
    });
  });

  describe('roles as Groups', () => {
    beforeEach(async () => {
      await store().createMember(aNewMember('m1', { attributes: { roles: [{ id: 'r1', name: 'Board' }, { id: 'r2', name: 'Fellows' }] } }));
      await store().createMember(aNewMember('m2', { attributes: { roles: [{ id: 'r1', name: 'board' }] } }));
    });

    test('roles only members hold are read at version 0, named by the least name; written ones are kept with their version', async () => {
      expect(await store().getRole('r1')).toEqual({ id: 'r1', name: 'Board', externalId: null, createdAt: 0, updatedAt: 0, version: 0 });
      expect(await store().getRole('nobody')).toBeNull();
      const created = await store().createRole({ id: 'g1', name: 'Committee', externalId: 'x-1', createdAt: T0 });
      expect(created).toEqual({ id: 'g1', name: 'Committee', externalId: 'x-1', createdAt: T0, updatedAt: T0, version: 1 });
      await expect(store().createRole({ id: 'g1', name: 'Again', externalId: null, createdAt: T0 })).rejects.toBeInstanceOf(StoreConflictError);
      const page = await store().searchRoles({ offset: 0, limit: 10 });
      expect(page).toEqual({ total: 3, roles: [expect.objectContaining({ id: 'r1' }), expect.objectContaining({ id: 'r2', name: 'Fellows' }), created] });
      const byName = await store().searchRoles({ filter: { kind: 'compare', field: 'name', operator: 'sw', value: 'COMM', caseExact: false }, offset: 0, limit: 10 });
      expect(byName).toEqual({ total: 1, roles: [created] });
    });

    test('replaceRole: a held role is written at version 1, then at the version read only; deleteRole forgets what was written', async () => {
      const written = await store().replaceRole('r1', { name: 'Trustees', externalId: null, updatedAt: T0 }, 0);
      expect(written).toEqual({ id: 'r1', name: 'Trustees', externalId: null, createdAt: T0, updatedAt: T0, version: 1 });
      expect(await store().replaceRole('r1', { name: 'Again', externalId: null, updatedAt: T0 }, 0)).toBe('stale');
      expect(await store().replaceRole('r1', { name: 'Again', externalId: 'e', updatedAt: T0 + 1 }, 1)).toMatchObject({ name: 'Again', externalId: 'e', version: 2 });
      expect(await store().replaceRole('r1', { name: 'Later', externalId: null, updatedAt: T0 + 2 }, 1)).toBe('stale');
      expect(await store().replaceRole('zz', { name: 'None', externalId: null, updatedAt: T0 }, 1)).toBe('notFound');
      expect(await store().deleteRole('r1')).toBe(true);
      expect(await store().deleteRole('r1')).toBe(false);
      // Its members still hold it: it is read from them again.
      expect(await store().getRole('r1')).toMatchObject({ version: 0 });
    });
  });

  describe('members read a batch or a page at a time (the import that keeps members in step)', () => {
    /** More than one statement's worth of ids (500), with repeats and ids nobody has. */
    const IDS = Array.from({ length: 1203 }, (_, index) => `m${index}`);

    test('getMembers() reads the stored members among the ids, each once, and leaves out the others', async () => {
      const stored = IDS.filter((_, index) => index % 3 !== 0);
      await store().createMembers(stored.map((id) => aNewMember(id)));
      const found = await store().getMembers([...IDS, ...IDS.slice(0, 40), 'nobody', 'M1']);
      expect(found.map((member) => member.id).sort()).toEqual(stored.sort());
      expect(found.find((member) => member.id === 'm1')).toStrictEqual(asCreated('m1'));
      expect(await store().getMembers(['m2'])).toStrictEqual([asCreated('m2')]);
      expect(await store().getMembers(['m0', 'nobody'])).toEqual([]);
      expect(await store().getMembers([])).toEqual([]);
    });

    test('listMembersAfter() pages through every member in id order; a page written meanwhile misses nobody', async () => {
      await store().createMembers(IDS.slice(0, 25).map((id) => aNewMember(id)));
      const ids: string[] = [];
      for (let page = await store().listMembersAfter('', 10); page.length > 0; page = await store().listMembersAfter(page.at(-1)?.id ?? '', 10)) {
        expect(page.length).toBeLessThanOrEqual(10);
        for (const member of page) await store().setMemberEnabled(member.id, false, T0 + 1);
        ids.push(...page.map((member) => member.id));
      }
      expect(ids).toEqual((await store().listMembers()).map((member) => member.id));
      expect(new Set(ids).size).toBe(25);
      expect((await store().listMembersAfter('', 100)).every((member) => !member.enabled)).toBe(true);
      expect(await store().listMembersAfter('m9', 10)).toEqual([]);
    });
  });

  describe('provisioning clients', () => {
    test('are stored with their token hash, found by it, listed by name, never with it', async () => {
      const okta = await store().createProvisioningClient('okta', 'hash-okta', T0);
      const entra = await store().createProvisioningClient('entra', 'hash-entra', T0 + 1);
      expect(okta).toEqual({ id: expect.any(Number), name: 'okta', createdAt: T0 });
      expect(await store().listProvisioningClients()).toEqual([entra, okta]);
      expect(await store().findProvisioningClientByTokenHash('hash-okta')).toEqual(okta);
      expect(await store().findProvisioningClientByTokenHash('HASH-OKTA')).toBeNull();
    });

    test('refuse a name or a token hash taken, with StoreConflictError', async () => {
      await store().createProvisioningClient('entra', 'hash-1', T0);
      await expect(store().createProvisioningClient('entra', 'hash-2', T0)).rejects.toBeInstanceOf(StoreConflictError);
      await expect(store().createProvisioningClient('okta', 'hash-1', T0)).rejects.toBeInstanceOf(StoreConflictError);
      await store().createProvisioningClient('okta', 'hash-2', T0);
      await expect(store().setProvisioningClientToken('okta', 'hash-1')).rejects.toBeInstanceOf(StoreConflictError);
    });

    test('say whether any exists, take a new token hash in place of the old one, and are removed', async () => {
      expect(await store().hasProvisioningClients()).toBe(false);
      await store().createProvisioningClient('entra', 'old', T0);
      expect(await store().hasProvisioningClients()).toBe(true);
      expect(await store().setProvisioningClientToken('entra', 'new')).toBe(true);
      expect(await store().setProvisioningClientToken('okta', 'new')).toBe(false);
      expect(await store().findProvisioningClientByTokenHash('old')).toBeNull();
      expect(await store().findProvisioningClientByTokenHash('new')).toMatchObject({ name: 'entra' });
      expect(await store().deleteProvisioningClient('entra')).toBe(true);
      expect(await store().deleteProvisioningClient('entra')).toBe(false);
      expect(await store().findProvisioningClientByTokenHash('new')).toBeNull();
      expect(await store().hasProvisioningClients()).toBe(false);
    });
  });
}
