import type { CallerOriginRow, MemberAttributes, MemberRow, SecondFactorRow, SessionRow, SessionThrough, Store } from '../../src/store/store.js';
import { StoreConflictError, StoreVersionConflictError } from '../../src/store/store.js';
import { eventStoreContract } from './contract-events.js';
import { oidcStoreContract } from './contract-oidc.js';
import { passkeyStoreContract } from './contract-passkeys.js';
import { provisioningStoreContract } from './contract-provisioning.js';
import { recoveryStoreContract } from './contract-recovery.js';
import { samlStoreContract } from './contract-saml.js';
import { staffStoreContract } from './contract-staff.js';

/** Well past 2^31, so a store that kept epoch milliseconds in 32 bits would fail. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function aMember(id: string, overrides: Partial<MemberRow> = {}): MemberRow {
  return {
    id,
    username: `user-${id}`,
    email: `${id}@example.org`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    enabled: true,
    createdAt: T0,
    attributes: {},
    version: 1,
    updatedAt: T0,
    externalId: null,
    displayName: null,
    formattedName: null,
    ...overrides,
  };
}

/** Every kind of attribute, with text beyond ASCII and characters that JSON escapes. */
const ATTRIBUTES: MemberAttributes = {
  isMember: false,
  contactNumber: '+44 20 7946 0958',
  labelName: 'Zoë "Z" Łukasz',
  organisationId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  organisationName: '日本 Society \\ Ünïon\n',
  priceLevelId: 'pl-1',
  priceLevelName: 'Members 🎓',
  roles: [
    { id: 'r2', name: 'Editor' },
    { id: 'r1', name: 'Rédacteur en chef' },
  ],
  extra: { tier: 'gold', 'région.code': 'ÎDF', empty_looking: ' ' },
};

function aSession(id: string, memberId: string, overrides: Partial<SessionRow> = {}): SessionRow {
  return {
    id,
    memberId,
    cookieDomain: 'example.org',
    cookieHash: `cookie-hash-${id}`,
    tokenHash: `token-hash-${id}`,
    tokenSealed: `sealed-token-${id}`,
    cookieSealed: `sealed-cookie-${id}`,
    createdAt: T0,
    lastSeenAt: T0,
    expiresAt: T0 + HOUR,
    revokedAt: null,
    clientAddress: '192.0.2.10',
    userAgent: `Mozilla/5.0 (session ${id})`,
    ...overrides,
  };
}

/** A TOTP time step (30 s) around T0. */
const STEP = Math.floor(T0 / 30_000);

function aSecondFactor(memberId: string, overrides: Partial<SecondFactorRow> = {}): SecondFactorRow {
  return {
    memberId,
    secretSealed: `sealed-secret-${memberId}`,
    createdAt: T0,
    confirmedAt: null,
    lastStep: null,
    ...overrides,
  };
}

/**
 * The behaviour every Store implementation must show. `makeStore` returns a fresh, migrated, empty store;
 * each test gets its own and closes it afterwards.
 */
export function storeContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      await store.close();
    });

    async function sessionById(id: string): Promise<SessionRow | undefined> {
      return (await store.listSessions()).find((s) => s.id === id);
    }

    describe('schema', () => {
      test('a new store is empty', async () => {
        expect(await store.listCallers()).toEqual([]);
        expect(await store.listMembers()).toEqual([]);
        expect(await store.listSessions()).toEqual([]);
        expect(await store.listCallerOrigins()).toEqual([]);
      });

      test('migrate() twice is harmless and keeps the data', async () => {
        await store.createMember(aMember('m1'));
        await store.migrate();
        await store.migrate();
        expect(await store.getMember('m1')).toEqual(aMember('m1'));
        await store.createMember(aMember('m2'));
        expect(await store.listMembers()).toHaveLength(2);
      });
    });

    describe('deployment settings', () => {
      test('claimSetting() records the first value and returns it; a later claim returns the recorded one', async () => {
        expect(await store.claimSetting('fingerprint', 'a')).toBe('a');
        expect(await store.claimSetting('fingerprint', 'b')).toBe('a');
        expect(await store.claimSetting('other', 'b')).toBe('b');
      });

      test('claimSetting() by several callers at once: one value wins, and all of them get it', async () => {
        const claims = await Promise.all(['a', 'b', 'c', 'd'].map((value) => store.claimSetting('race', value)));
        expect(new Set(claims).size).toBe(1);
        expect(['a', 'b', 'c', 'd']).toContain(claims[0]);
      });

      test('setting() reads a recorded setting without writing one: null until it is claimed', async () => {
        expect(await store.setting('read-first')).toBeNull();
        expect(await store.setting('read-first')).toBeNull();
        await store.claimSetting('read-first', 'a');
        expect(await store.setting('read-first')).toBe('a');
      });

      test('a recorded setting survives migrate()', async () => {
        await store.claimSetting('kept', 'v');
        await store.migrate();
        expect(await store.claimSetting('kept', 'w')).toBe('v');
      });
    });

    describe('callers', () => {
      test('createCaller() returns the new caller, enabled, with the given createdAt', async () => {
        const caller = await store.createCaller('partner', T0);
        expect(caller).toEqual({ id: expect.any(Number), name: 'partner', enabled: true, createdAt: T0 });
      });

      test('createCaller() gives each caller its own id', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        expect(a.id).not.toBe(b.id);
      });

      test('createCaller() rejects a duplicate name with StoreConflictError', async () => {
        await store.createCaller('partner', T0);
        await expect(store.createCaller('partner', T0 + 1)).rejects.toThrow(StoreConflictError);
        expect(await store.listCallers()).toHaveLength(1);
      });

      test('getCallerByName() returns the caller as created', async () => {
        const caller = await store.createCaller('partner', T0);
        expect(await store.getCallerByName('partner')).toEqual(caller);
      });

      test('getCallerByName() returns null for an unknown name', async () => {
        await store.createCaller('partner', T0);
        expect(await store.getCallerByName('other')).toBeNull();
      });

      test('listCallers() returns every caller ordered by name', async () => {
        await store.createCaller('charlie', T0);
        await store.createCaller('alpha', T0 + 1);
        await store.createCaller('bravo', T0 + 2);
        expect((await store.listCallers()).map((c) => c.name)).toEqual(['alpha', 'bravo', 'charlie']);
      });

      test('setCallerEnabled() disables and re-enables a caller', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.setCallerEnabled(caller.id, false);
        expect(await store.getCallerByName('partner')).toEqual({ ...caller, enabled: false });
        await store.setCallerEnabled(caller.id, true);
        expect(await store.getCallerByName('partner')).toEqual(caller);
      });

      test('setCallerEnabled() changes only that caller', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        await store.setCallerEnabled(a.id, false);
        expect(await store.getCallerByName('b')).toEqual(b);
      });

      test('setCallerEnabled() of an unknown id changes nothing', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.setCallerEnabled(caller.id + 1000, false);
        expect(await store.listCallers()).toEqual([caller]);
      });

      test('deleteCaller() removes the caller and frees its name', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.deleteCaller(caller.id);
        expect(await store.getCallerByName('partner')).toBeNull();
        expect(await store.listCallers()).toEqual([]);
        await expect(store.createCaller('partner', T0)).resolves.toMatchObject({ name: 'partner' });
      });

      test('deleteCaller() removes its passwords', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.addCallerPassword(caller.id, 'hash-1', T0);
        await store.addCallerPassword(caller.id, 'hash-2', T0);
        await store.deleteCaller(caller.id);
        expect(await store.listCallerPasswords(caller.id)).toEqual([]);
        expect(await store.findCallerByPasswordHash('hash-1')).toBeNull();
        expect(await store.findCallerByPasswordHash('hash-2')).toBeNull();
      });

      test('deleteCaller() leaves other callers and their passwords alone', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        await store.addCallerPassword(a.id, 'hash-a', T0);
        const kept = await store.addCallerPassword(b.id, 'hash-b', T0);
        await store.deleteCaller(a.id);
        expect(await store.listCallers()).toEqual([b]);
        expect(await store.listCallerPasswords(b.id)).toEqual([kept]);
        expect(await store.findCallerByPasswordHash('hash-b')).toEqual(b);
      });

      test('deleteCaller() of an unknown id changes nothing', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.deleteCaller(caller.id + 1000);
        expect(await store.listCallers()).toEqual([caller]);
      });
    });

    describe('caller passwords', () => {
      test('addCallerPassword() returns the password row without its hash', async () => {
        const caller = await store.createCaller('partner', T0);
        const password = await store.addCallerPassword(caller.id, 'hash-1', T0 + MINUTE);
        expect(password).toEqual({ id: expect.any(Number), callerId: caller.id, createdAt: T0 + MINUTE });
      });

      test('addCallerPassword() gives later passwords higher ids', async () => {
        const caller = await store.createCaller('partner', T0);
        const first = await store.addCallerPassword(caller.id, 'hash-1', T0);
        const second = await store.addCallerPassword(caller.id, 'hash-2', T0);
        expect(second.id).toBeGreaterThan(first.id);
      });

      test('addCallerPassword() rejects a hash already in use with StoreConflictError', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        await store.addCallerPassword(a.id, 'hash-1', T0);
        await expect(store.addCallerPassword(b.id, 'hash-1', T0)).rejects.toThrow(StoreConflictError);
        await expect(store.addCallerPassword(a.id, 'hash-1', T0)).rejects.toThrow(StoreConflictError);
        expect(await store.findCallerByPasswordHash('hash-1')).toEqual(a);
      });

      test('addCallerPassword() rejects an unknown caller', async () => {
        // toBeDefined, not toThrow: a driver's error class may come from another jest realm than this file's Error.
        await expect(store.addCallerPassword(1000, 'hash-1', T0)).rejects.toBeDefined();
        expect(await store.findCallerByPasswordHash('hash-1')).toBeNull();
      });

      test('listCallerPasswords() returns only that caller\'s passwords, oldest first', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        const first = await store.addCallerPassword(a.id, 'hash-a1', T0);
        await store.addCallerPassword(b.id, 'hash-b1', T0);
        const second = await store.addCallerPassword(a.id, 'hash-a2', T0 + MINUTE);
        expect(await store.listCallerPasswords(a.id)).toEqual([first, second]);
      });

      test('listCallerPasswords() returns [] for a caller without passwords or an unknown caller', async () => {
        const caller = await store.createCaller('partner', T0);
        expect(await store.listCallerPasswords(caller.id)).toEqual([]);
        expect(await store.listCallerPasswords(caller.id + 1000)).toEqual([]);
      });

      test('deleteCallerPasswords() removes every password of the caller and returns how many', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.addCallerPassword(caller.id, 'hash-1', T0);
        await store.addCallerPassword(caller.id, 'hash-2', T0);
        expect(await store.deleteCallerPasswords(caller.id)).toBe(2);
        expect(await store.listCallerPasswords(caller.id)).toEqual([]);
        expect(await store.getCallerByName('partner')).toEqual(caller);
      });

      test('deleteCallerPasswords(callerId, keepId) keeps the password with keepId', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.addCallerPassword(caller.id, 'hash-1', T0);
        const kept = await store.addCallerPassword(caller.id, 'hash-2', T0);
        await store.addCallerPassword(caller.id, 'hash-3', T0);
        expect(await store.deleteCallerPasswords(caller.id, kept.id)).toBe(2);
        expect(await store.listCallerPasswords(caller.id)).toEqual([kept]);
        expect(await store.findCallerByPasswordHash('hash-2')).toEqual(caller);
        expect(await store.findCallerByPasswordHash('hash-1')).toBeNull();
      });

      test('deleteCallerPasswords() leaves other callers\' passwords alone, even when keepId is theirs', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        await store.addCallerPassword(a.id, 'hash-a', T0);
        const other = await store.addCallerPassword(b.id, 'hash-b', T0);
        expect(await store.deleteCallerPasswords(a.id, other.id)).toBe(1);
        expect(await store.listCallerPasswords(a.id)).toEqual([]);
        expect(await store.listCallerPasswords(b.id)).toEqual([other]);
      });

      test('deleteCallerPasswords() returns 0 when there is nothing to delete', async () => {
        const caller = await store.createCaller('partner', T0);
        expect(await store.deleteCallerPasswords(caller.id)).toBe(0);
        expect(await store.deleteCallerPasswords(caller.id + 1000)).toBe(0);
      });

      test('findCallerByPasswordHash() returns the owning caller', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        await store.addCallerPassword(a.id, 'hash-a', T0);
        await store.addCallerPassword(b.id, 'hash-b', T0);
        expect(await store.findCallerByPasswordHash('hash-a')).toEqual(a);
        expect(await store.findCallerByPasswordHash('hash-b')).toEqual(b);
      });

      test('findCallerByPasswordHash() returns a disabled caller too', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.addCallerPassword(caller.id, 'hash-1', T0);
        await store.setCallerEnabled(caller.id, false);
        expect(await store.findCallerByPasswordHash('hash-1')).toEqual({ ...caller, enabled: false });
      });

      test('findCallerByPasswordHash() returns null for an unknown hash', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.addCallerPassword(caller.id, 'hash-1', T0);
        expect(await store.findCallerByPasswordHash('hash-2')).toBeNull();
      });
    });

    describe('members', () => {
      test('createMember() returns the member, and getMember() reads back every field', async () => {
        const member = aMember('m1', { enabled: false, createdAt: T0 + 5, updatedAt: T0 + 5 });
        expect(await store.createMember(member)).toEqual(member);
        expect(await store.getMember('m1')).toEqual(member);
      });

      test('createMember() keeps empty strings and non-ASCII text as given', async () => {
        const member = aMember('Ünïcode-1', { username: 'zoë', email: '', firstName: 'Łukasz', lastName: '日本' });
        await store.createMember(member);
        expect(await store.getMember('Ünïcode-1')).toEqual(member);
      });

      test('createMember() rejects a duplicate id with StoreConflictError', async () => {
        await store.createMember(aMember('m1'));
        await expect(store.createMember(aMember('m1', { username: 'someone-else' }))).rejects.toThrow(StoreConflictError);
        expect(await store.listMembers()).toEqual([aMember('m1')]);
      });

      test('createMember() rejects a duplicate username with StoreConflictError', async () => {
        await store.createMember(aMember('m1', { username: 'ada' }));
        await expect(store.createMember(aMember('m2', { username: 'ada' }))).rejects.toThrow(StoreConflictError);
        expect(await store.getMember('m2')).toBeNull();
      });

      test('getMember() returns null for an unknown id', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.getMember('m2')).toBeNull();
      });

      test('listMembers() returns every member ordered by id', async () => {
        await store.createMember(aMember('c'));
        await store.createMember(aMember('a'));
        await store.createMember(aMember('b'));
        expect(await store.listMembers()).toEqual([aMember('a'), aMember('b'), aMember('c')]);
      });

      test('setMemberEnabled() disables and re-enables a member and returns true', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.setMemberEnabled('m1', false, T0)).toBe(true);
        expect(await store.getMember('m1')).toEqual(aMember('m1', { enabled: false, version: 2 }));
        expect(await store.setMemberEnabled('m1', true, T0)).toBe(true);
        expect(await store.getMember('m1')).toEqual(aMember('m1', { version: 3 }));
      });

      test('setMemberEnabled() returns true when the member already had that state', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.setMemberEnabled('m1', true, T0)).toBe(true);
      });

      test('setMemberEnabled() returns false for an unknown id', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.setMemberEnabled('m2', false, T0)).toBe(false);
        expect(await store.getMember('m1')).toEqual(aMember('m1'));
      });

      test('deleteMember() removes the member and says so', async () => {
        await store.createMember(aMember('m1'));
        await store.createMember(aMember('m2'));
        expect(await store.deleteMember('m1')).toBe('removed');
        expect(await store.getMember('m1')).toBeNull();
        expect(await store.listMembers()).toEqual([aMember('m2')]);
      });

      test('deleteMember() says notFound for an unknown id', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.deleteMember('m2')).toBe('notFound');
        expect(await store.listMembers()).toEqual([aMember('m1')]);
      });

      test('deleteMember() removes its sessions', async () => {
        await store.createMember(aMember('m1'));
        await store.createMember(aMember('m2'));
        await store.createSession(aSession('s1', 'm1'));
        await store.createSession(aSession('s2', 'm1'));
        const kept = aSession('s3', 'm2');
        await store.createSession(kept);
        await store.deleteMember('m1');
        expect(await store.listSessions()).toEqual([kept]);
        expect(await store.findSessionByTokenHash(aSession('s1', 'm1').tokenHash)).toBeNull();
        expect(await store.findSessionByCookieHash(aSession('s2', 'm1').cookieHash)).toBeNull();
      });
    });

    describe('createMembers', () => {
      test('inserts every member of the list, with every field, and says so for each', async () => {
        const members = [
          { ...aMember('m1', { attributes: ATTRIBUTES, enabled: false }), passwordHash: 'argon2:hash-1' },
          aMember('m2', { username: 'zoë', email: '', firstName: 'Łukasz', lastName: '日本' }),
          { ...aMember('m3'), passwordHash: null },
        ];
        expect(await store.createMembers(members)).toEqual(['created', 'created', 'created']);
        expect(await store.getMember('m1')).toStrictEqual(aMember('m1', { attributes: ATTRIBUTES, enabled: false }));
        expect(await store.getMember('m2')).toEqual(members[1]);
        expect(await store.getMemberCredentials('m1')).toMatchObject({ passwordHash: 'argon2:hash-1' });
        expect(await store.getMemberCredentials('m3')).toMatchObject({ passwordHash: null });
      });

      test('returns an empty list for an empty list', async () => {
        expect(await store.createMembers([])).toEqual([]);
      });

      test('skips the members whose id or username is stored, ignoring the username case, and leaves the stored ones as they were', async () => {
        const ada = aMember('m1', { username: 'ada', firstName: 'Ada' });
        const grace = aMember('m2', { username: 'Grace' });
        await store.createMember({ ...ada, passwordHash: 'argon2:kept' });
        await store.createMember(grace);
        const outcomes = await store.createMembers([
          aMember('m1', { username: 'ada', firstName: 'Changed' }),
          aMember('m1', { username: 'someone-else' }),
          aMember('m1', { username: 'ADA' }),
          aMember('m3', { username: 'grace' }),
          aMember('m4', { username: 'Grace' }),
          aMember('m5', { username: 'new' }),
        ]);
        expect(outcomes).toEqual(['existing', 'idTaken', 'idTaken', 'usernameTaken', 'usernameTaken', 'created']);
        expect(await store.listMembers()).toEqual([ada, grace, aMember('m5', { username: 'new' })]);
        expect(await store.getMemberCredentials('m1')).toMatchObject({ passwordHash: 'argon2:kept' });
      });

      test('inserts nothing the second time: every member of the list is then existing', async () => {
        const members = ['a', 'b', 'c'].map((id) => aMember(id));
        await store.createMembers(members);
        expect(await store.createMembers(members)).toEqual(['existing', 'existing', 'existing']);
        expect(await store.listMembers()).toEqual(members);
      });

      test('inserts the missing members of a list partly stored, as a resumed import does', async () => {
        const members = Array.from({ length: 2500 }, (_, index) => aMember(`m${String(index).padStart(4, '0')}`));
        expect(await store.createMembers(members.slice(0, 1000))).toEqual(Array(1000).fill('created'));
        const outcomes = await store.createMembers(members);
        expect(outcomes.slice(0, 1000)).toEqual(Array(1000).fill('existing'));
        expect(outcomes.slice(1000)).toEqual(Array(1500).fill('created'));
        expect(await store.listMembers()).toEqual(members);
      });

      test('never inserts a member repeating the id or the username (ignoring case) of an earlier one of the list', async () => {
        const outcomes = await store.createMembers([
          aMember('m1', { username: 'ada' }),
          aMember('m1', { username: 'ada' }),
          aMember('m1', { username: 'bob' }),
          aMember('m2', { username: 'ADA' }),
          aMember('m3', { username: 'cy' }),
        ]);
        expect(outcomes).toEqual(['created', 'existing', 'idTaken', 'usernameTaken', 'created']);
        expect(await store.listMembers()).toEqual([aMember('m1', { username: 'ada' }), aMember('m3', { username: 'cy' })]);
      });

      test('never inserts a member repeating an earlier one of the list that was skipped', async () => {
        await store.createMember(aMember('m1', { username: 'ada' }));
        const outcomes = await store.createMembers([aMember('m1', { username: 'bob' }), aMember('m2', { username: 'bob' })]);
        expect(outcomes).toEqual(['idTaken', 'usernameTaken']);
        expect(await store.getMember('m2')).toBeNull();
      });

      test('inserts the list in one transaction: a member that cannot be stored rolls the others back', async () => {
        await store.createMember(aMember('m0'));
        const broken = { ...aMember('m2'), email: null } as unknown as MemberRow;
        // Not rejects.toThrow(): better-sqlite3's errors come from the realm that first loaded it, not always this test's.
        const failure = await store.createMembers([aMember('m1'), broken, aMember('m3')]).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect((failure as { message?: unknown } | undefined)?.message).toMatch(/null/i);
        expect(await store.listMembers()).toEqual([aMember('m0')]);
      });
    });

    describe('member credentials', () => {
      test('createMember() with a passwordHash stores it, and getMemberCredentials() reads it back with the member', async () => {
        const member = aMember('m1');
        await store.createMember({ ...member, passwordHash: 'argon2:hash-1' });
        expect(await store.getMemberCredentials('m1')).toEqual({ member, passwordHash: 'argon2:hash-1' });
      });

      test('createMember() without a passwordHash stores none', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.getMemberCredentials('m1')).toEqual({ member: aMember('m1'), passwordHash: null });
      });

      test('createMember() with passwordHash null stores none', async () => {
        await store.createMember({ ...aMember('m1'), passwordHash: null });
        expect(await store.getMemberCredentials('m1')).toEqual({ member: aMember('m1'), passwordHash: null });
      });

      test('createMember(), getMember() and listMembers() never return the password hash', async () => {
        const member = aMember('m1');
        expect(await store.createMember({ ...member, passwordHash: 'argon2:hash-1' })).toStrictEqual(member);
        expect(await store.getMember('m1')).toStrictEqual(member);
        expect(await store.listMembers()).toStrictEqual([member]);
      });

      test('getMemberCredentials() returns null for an unknown id', async () => {
        await store.createMember({ ...aMember('m1'), passwordHash: 'argon2:hash-1' });
        expect(await store.getMemberCredentials('m2')).toBeNull();
      });

      test('getMemberCredentials() returns the member as it is now, disabled included', async () => {
        await store.createMember({ ...aMember('m1'), passwordHash: 'argon2:hash-1' });
        await store.setMemberEnabled('m1', false, T0);
        expect(await store.getMemberCredentials('m1')).toEqual({
          member: aMember('m1', { enabled: false, version: 2 }),
          passwordHash: 'argon2:hash-1',
        });
      });

      test('setMemberPassword() sets, replaces and clears the hash and returns true', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.setMemberPassword('m1', 'argon2:hash-1', T0)).toBe(true);
        expect((await store.getMemberCredentials('m1'))?.passwordHash).toBe('argon2:hash-1');
        expect(await store.setMemberPassword('m1', 'argon2:hash-2', T0)).toBe(true);
        expect((await store.getMemberCredentials('m1'))?.passwordHash).toBe('argon2:hash-2');
        expect(await store.setMemberPassword('m1', null, T0)).toBe(true);
        expect((await store.getMemberCredentials('m1'))?.passwordHash).toBeNull();
      });

      test('setMemberPassword() changes only that member and nothing else about it', async () => {
        const member = aMember('m1', { enabled: false });
        await store.createMember({ ...member, passwordHash: 'argon2:hash-1' });
        await store.createMember({ ...aMember('m2'), passwordHash: 'argon2:hash-2' });
        await store.setMemberPassword('m1', 'argon2:hash-3', T0);
        expect(await store.getMemberCredentials('m1')).toEqual({ member: { ...member, version: 2 }, passwordHash: 'argon2:hash-3' });
        expect(await store.getMemberCredentials('m2')).toEqual({ member: aMember('m2'), passwordHash: 'argon2:hash-2' });
      });

      test('setMemberPassword() returns false for an unknown id', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.setMemberPassword('m2', 'argon2:hash-1', T0)).toBe(false);
        expect(await store.getMemberCredentials('m2')).toBeNull();
        expect((await store.getMemberCredentials('m1'))?.passwordHash).toBeNull();
      });

      test('findMembersByLogin() finds a member by username with its password hash', async () => {
        await store.createMember({ ...aMember('m1', { username: 'ada' }), passwordHash: 'argon2:hash-1' });
        await store.createMember(aMember('m2', { username: 'grace' }));
        expect(await store.findMembersByLogin('ada')).toEqual([
          { member: aMember('m1', { username: 'ada' }), passwordHash: 'argon2:hash-1' },
        ]);
      });

      test('findMembersByLogin() finds a member by email', async () => {
        await store.createMember(aMember('m1', { email: 'ada@example.org' }));
        await store.createMember(aMember('m2', { email: 'grace@example.org' }));
        expect(await store.findMembersByLogin('ada@example.org')).toEqual([
          { member: aMember('m1', { email: 'ada@example.org' }), passwordHash: null },
        ]);
      });

      test('findMembersByLogin() ignores the case of the username, whichever side has it', async () => {
        const member = aMember('m1', { username: 'Ada.Lovelace' });
        await store.createMember(member);
        for (const login of ['ada.lovelace', 'ADA.LOVELACE', 'Ada.Lovelace', 'aDA.lOVELACE']) {
          expect(await store.findMembersByLogin(login)).toEqual([{ member, passwordHash: null }]);
        }
      });

      test('findMembersByLogin() ignores the case of the email, whichever side has it', async () => {
        const member = aMember('m1', { email: 'Ada@Example.ORG' });
        await store.createMember(member);
        for (const login of ['ada@example.org', 'ADA@EXAMPLE.ORG', 'Ada@Example.ORG']) {
          expect(await store.findMembersByLogin(login)).toEqual([{ member, passwordHash: null }]);
        }
      });

      test('findMembersByLogin() matches whole values only', async () => {
        await store.createMember(aMember('m1', { username: 'ada', email: 'ada@example.org' }));
        for (const login of ['ad', 'ada ', 'ada@example', 'example.org', '%', 'ada%', '_da']) {
          expect(await store.findMembersByLogin(login)).toEqual([]);
        }
      });

      test('findMembersByLogin() returns [] when nobody matches', async () => {
        expect(await store.findMembersByLogin('ada')).toEqual([]);
        await store.createMember(aMember('m1', { username: 'grace', email: 'grace@example.org' }));
        expect(await store.findMembersByLogin('ada')).toEqual([]);
      });

      test('findMembersByLogin() lists a username match before an email match', async () => {
        // m1 sorts first by id, but matches by email only; m2 matches by username.
        const byEmail = aMember('m1', { username: 'someone', email: 'ada' });
        const byUsername = aMember('m2', { username: 'ADA', email: 'other@example.org' });
        await store.createMember(byEmail);
        await store.createMember(byUsername);
        expect(await store.findMembersByLogin('Ada')).toEqual([
          { member: byUsername, passwordHash: null },
          { member: byEmail, passwordHash: null },
        ]);
      });

      test('findMembersByLogin() lists a member matching by both username and email once', async () => {
        const member = aMember('m1', { username: 'ada@example.org', email: 'ADA@example.org' });
        await store.createMember(member);
        expect(await store.findMembersByLogin('ada@example.org')).toEqual([{ member, passwordHash: null }]);
      });

      test('findMembersByLogin() returns at most two rows', async () => {
        for (const id of ['m1', 'm2', 'm3', 'm4']) await store.createMember(aMember(id, { email: 'shared@example.org' }));
        const found = await store.findMembersByLogin('shared@example.org');
        expect(found).toHaveLength(2);
        for (const row of found) expect(row.member.email).toBe('shared@example.org');
      });

      test('findMembersByLogin() returns two username matches that differ only in case, so the login is ambiguous', async () => {
        await store.createMember(aMember('m1', { username: 'ada' }));
        await store.createMember(aMember('m2', { username: 'ADA' }));
        await store.createMember(aMember('m3', { email: 'ada' }));
        const found = await store.findMembersByLogin('Ada');
        expect(found.map((row) => row.member.id).sort()).toEqual(['m1', 'm2']);
      });

      test('findMembersByLogin() returns disabled members too, so the caller can tell why', async () => {
        await store.createMember({ ...aMember('m1', { username: 'ada', enabled: false }), passwordHash: 'argon2:hash-1' });
        expect(await store.findMembersByLogin('ada')).toEqual([
          { member: aMember('m1', { username: 'ada', enabled: false }), passwordHash: 'argon2:hash-1' },
        ]);
      });

      test('findMembersByLogin() sees a password set later and no longer finds a deleted member', async () => {
        await store.createMember(aMember('m1', { username: 'ada' }));
        await store.setMemberPassword('m1', 'argon2:hash-1', T0);
        expect((await store.findMembersByLogin('ada'))[0]?.passwordHash).toBe('argon2:hash-1');
        await store.deleteMember('m1');
        expect(await store.findMembersByLogin('ada')).toEqual([]);
      });
    });

    describe('member attributes', () => {
      test('a member created without any has {}, everywhere it is read', async () => {
        const member = aMember('m1');
        expect(await store.createMember(member)).toStrictEqual(member);
        expect((await store.getMember('m1'))?.attributes).toStrictEqual({});
        await store.createSession(aSession('s1', 'm1'));
        expect((await store.findSessionByTokenHash(aSession('s1', 'm1').tokenHash))?.member.attributes).toStrictEqual({});
      });

      test('every read returns them as created: getMember, listMembers, findMembersByLogin, getMemberCredentials, the session lookups', async () => {
        const member = aMember('m1', { username: 'ada', attributes: ATTRIBUTES });
        expect(await store.createMember({ ...member, passwordHash: 'argon2:hash-1' })).toStrictEqual(member);
        await store.createMember(aMember('m2', { attributes: { isMember: true } }));
        const session = aSession('s1', 'm1');
        await store.createSession(session);

        expect(await store.getMember('m1')).toStrictEqual(member);
        expect(await store.listMembers()).toStrictEqual([member, aMember('m2', { attributes: { isMember: true } })]);
        expect(await store.findMembersByLogin('ada')).toStrictEqual([{ member, passwordHash: 'argon2:hash-1' }]);
        expect(await store.getMemberCredentials('m1')).toStrictEqual({ member, passwordHash: 'argon2:hash-1' });
        expect(await store.findSessionByTokenHash(session.tokenHash)).toStrictEqual({ session, member });
        expect(await store.findSessionByCookieHash(session.cookieHash)).toStrictEqual({ session, member });
      });

      test('updateMember() changes only the fields given and returns the member as it is then', async () => {
        const member = aMember('m1', { enabled: false, attributes: ATTRIBUTES });
        await store.createMember({ ...member, passwordHash: 'argon2:hash-1' });
        await store.createMember(aMember('m2'));

        const emailOnly = { ...member, email: 'ada@example.net', version: 2 };
        expect(await store.updateMember('m1', { email: 'ada@example.net' }, 1, T0)).toStrictEqual(emailOnly);
        expect(await store.getMember('m1')).toStrictEqual(emailOnly);

        const names = { ...emailOnly, firstName: 'Augusta', lastName: 'King', version: 3 };
        expect(await store.updateMember('m1', { firstName: 'Augusta', lastName: 'King' }, 2, T0)).toStrictEqual(names);

        const attributes: MemberAttributes = { roles: [{ id: 'r3', name: 'Reader' }] };
        expect(await store.updateMember('m1', { attributes }, 3, T0)).toStrictEqual({ ...names, attributes, version: 4 });
        expect(await store.updateMember('m1', {}, 4, T0)).toStrictEqual({ ...names, attributes, version: 5 });

        expect(await store.getMemberCredentials('m1')).toStrictEqual({ member: { ...names, attributes, version: 5 }, passwordHash: 'argon2:hash-1' });
        expect(await store.getMember('m2')).toStrictEqual(aMember('m2'));
      });

      test('updateMember() to {} and to empty strings keeps them so', async () => {
        await store.createMember(aMember('m1', { attributes: ATTRIBUTES }));
        const cleared = aMember('m1', { email: '', firstName: '', lastName: '', version: 2 });
        expect(await store.updateMember('m1', { email: '', firstName: '', lastName: '', attributes: {} }, 1, T0)).toStrictEqual(cleared);
        expect(await store.getMember('m1')).toStrictEqual(cleared);
      });

      test('a session lookup returns the attributes as they are now', async () => {
        await store.createMember(aMember('m1'));
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        await store.updateMember('m1', { attributes: ATTRIBUTES }, 1, T0);
        expect(await store.findSessionByCookieHash(session.cookieHash)).toStrictEqual({
          session,
          member: aMember('m1', { attributes: ATTRIBUTES, version: 2 }),
        });
      });

      test('updateMember() returns null for an unknown id and changes nothing', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.updateMember('m2', { email: 'x@example.org', attributes: ATTRIBUTES }, 1, T0)).toBeNull();
        expect(await store.listMembers()).toStrictEqual([aMember('m1')]);
      });
    });

    describe('member versions', () => {
      test('a member starts at version 1, and every write of it moves the version on by one, as every read shows', async () => {
        expect(await store.createMember({ ...aMember('m1', { username: 'ada' }), passwordHash: null })).toStrictEqual(aMember('m1', { username: 'ada' }));
        expect(await store.createMembers([aMember('m2')])).toEqual(['created']);
        expect((await store.getMember('m2'))?.version).toBe(1);
        await store.setMemberEnabled('m1', false, T0);
        await store.setMemberPassword('m1', 'argon2:hash-1', T0);
        expect((await store.updateMember('m1', { lastName: 'King' }, 3, T0))?.version).toBe(4);
        await store.createSession(aSession('s1', 'm1'));
        const member = aMember('m1', { username: 'ada', enabled: false, lastName: 'King', version: 4 });
        expect(await store.getMember('m1')).toStrictEqual(member);
        expect(await store.findMembersByLogin('ada')).toStrictEqual([{ member, passwordHash: 'argon2:hash-1' }]);
        expect((await store.findSessionByTokenHash(aSession('s1', 'm1').tokenHash))?.member).toStrictEqual(member);
        expect((await store.getMember('m2'))?.version).toBe(1);
      });

      test('updateMember() at another version than the member is at throws StoreVersionConflictError and changes nothing', async () => {
        await store.createMember(aMember('m1', { attributes: ATTRIBUTES }));
        await store.updateMember('m1', { firstName: 'Augusta' }, 1, T0);
        for (const stale of [1, 3]) {
          const error = await store.updateMember('m1', { lastName: 'King', attributes: {} }, stale, T0).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StoreVersionConflictError);
          expect(error).toBeInstanceOf(StoreConflictError);
          expect(error).toMatchObject({ memberId: 'm1', expectedVersion: stale });
        }
        expect(await store.getMember('m1')).toStrictEqual(aMember('m1', { attributes: ATTRIBUTES, firstName: 'Augusta', version: 2 }));
      });

      test('of two updates made at the version both read, one is written and the other conflicts', async () => {
        await store.createMember(aMember('m1'));
        const results = await Promise.allSettled([
          store.updateMember('m1', { attributes: { labelName: 'Gold' } }, 1, T0),
          store.updateMember('m1', { attributes: { contactNumber: 'C-7' } }, 1, T0),
        ]);
        const written = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
        const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
        expect(written).toHaveLength(1);
        expect(refused).toEqual([expect.any(StoreVersionConflictError)]);
        expect(await store.getMember('m1')).toStrictEqual(written[0]);
        expect(written[0]?.version).toBe(2);
      });
    });

    describe('caller origins', () => {
      function anOrigin(callerId: number, origin: string, overrides: Partial<CallerOriginRow> = {}): CallerOriginRow {
        return { callerId, origin, receivesToken: false, createdAt: T0, ...overrides };
      }

      test('addCallerOrigin() stores every field, and listCallerOrigins() reads them back', async () => {
        const caller = await store.createCaller('partner', T0);
        const withToken = anOrigin(caller.id, 'https://a.example.org', { receivesToken: true, createdAt: T0 + 1 });
        const withoutToken = anOrigin(caller.id, 'https://b.example.org', { receivesToken: false, createdAt: T0 + 2 });
        await store.addCallerOrigin(withToken);
        await store.addCallerOrigin(withoutToken);
        expect(await store.listCallerOrigins(caller.id)).toEqual([withToken, withoutToken]);
      });

      test('addCallerOrigin() rejects an origin the caller already registered with StoreConflictError', async () => {
        const caller = await store.createCaller('partner', T0);
        const first = anOrigin(caller.id, 'https://a.example.org', { receivesToken: true });
        await store.addCallerOrigin(first);
        await expect(store.addCallerOrigin(anOrigin(caller.id, 'https://a.example.org', { createdAt: T0 + 1 }))).rejects.toThrow(
          StoreConflictError,
        );
        expect(await store.listCallerOrigins()).toEqual([first]);
      });

      test('addCallerOrigin() lets two callers register the same origin', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        await store.addCallerOrigin(anOrigin(a.id, 'https://shared.example.org'));
        await expect(store.addCallerOrigin(anOrigin(b.id, 'https://shared.example.org'))).resolves.toBeUndefined();
        expect(await store.listCallerOrigins()).toHaveLength(2);
      });

      test('addCallerOrigin() keeps origins that differ only in case apart', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.addCallerOrigin(anOrigin(caller.id, 'https://a.example.org'));
        await expect(store.addCallerOrigin(anOrigin(caller.id, 'https://A.example.org'))).resolves.toBeUndefined();
        expect(await store.listCallerOrigins(caller.id)).toHaveLength(2);
      });

      test('addCallerOrigin() rejects an unknown caller', async () => {
        await expect(store.addCallerOrigin(anOrigin(1000, 'https://a.example.org'))).rejects.toBeDefined();
        expect(await store.listCallerOrigins()).toEqual([]);
      });

      test('removeCallerOrigin() removes the registration and returns true', async () => {
        const caller = await store.createCaller('partner', T0);
        const kept = anOrigin(caller.id, 'https://b.example.org');
        await store.addCallerOrigin(anOrigin(caller.id, 'https://a.example.org'));
        await store.addCallerOrigin(kept);
        expect(await store.removeCallerOrigin(caller.id, 'https://a.example.org')).toBe(true);
        expect(await store.listCallerOrigins(caller.id)).toEqual([kept]);
      });

      test('removeCallerOrigin() leaves the same origin of another caller alone', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        const kept = anOrigin(b.id, 'https://shared.example.org');
        await store.addCallerOrigin(anOrigin(a.id, 'https://shared.example.org'));
        await store.addCallerOrigin(kept);
        await store.removeCallerOrigin(a.id, 'https://shared.example.org');
        expect(await store.listCallerOrigins()).toEqual([kept]);
      });

      test('removeCallerOrigin() returns false when there is no such registration', async () => {
        const caller = await store.createCaller('partner', T0);
        const kept = anOrigin(caller.id, 'https://a.example.org');
        await store.addCallerOrigin(kept);
        expect(await store.removeCallerOrigin(caller.id, 'https://b.example.org')).toBe(false);
        expect(await store.removeCallerOrigin(caller.id + 1000, 'https://a.example.org')).toBe(false);
        expect(await store.listCallerOrigins()).toEqual([kept]);
      });

      test('removeCallerOrigin() frees the origin for registering again', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.addCallerOrigin(anOrigin(caller.id, 'https://a.example.org'));
        await store.removeCallerOrigin(caller.id, 'https://a.example.org');
        const again = anOrigin(caller.id, 'https://a.example.org', { receivesToken: true, createdAt: T0 + 1 });
        await store.addCallerOrigin(again);
        expect(await store.listCallerOrigins()).toEqual([again]);
      });

      test('listCallerOrigins() returns every registration ordered by caller id, then origin', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        const [lower, higher] = a.id < b.id ? [a, b] : [b, a];
        const rows = [
          anOrigin(higher.id, 'https://a.example.org'),
          anOrigin(lower.id, 'https://c.example.org'),
          anOrigin(higher.id, 'https://b.example.org'),
          anOrigin(lower.id, 'https://a.example.org'),
        ];
        for (const row of rows) await store.addCallerOrigin(row);
        expect(await store.listCallerOrigins()).toEqual([rows[3], rows[1], rows[0], rows[2]]);
      });

      test("listCallerOrigins(callerId) returns only that caller's registrations, ordered by origin", async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        const second = anOrigin(a.id, 'https://b.example.org');
        const first = anOrigin(a.id, 'https://a.example.org');
        await store.addCallerOrigin(second);
        await store.addCallerOrigin(anOrigin(b.id, 'https://a.example.org'));
        await store.addCallerOrigin(first);
        expect(await store.listCallerOrigins(a.id)).toEqual([first, second]);
      });

      test('listCallerOrigins() returns [] without registrations or for an unknown caller', async () => {
        const caller = await store.createCaller('partner', T0);
        expect(await store.listCallerOrigins()).toEqual([]);
        expect(await store.listCallerOrigins(caller.id)).toEqual([]);
        await store.addCallerOrigin(anOrigin(caller.id, 'https://a.example.org'));
        expect(await store.listCallerOrigins(caller.id + 1000)).toEqual([]);
      });

      test('findOriginGrants() returns the registrations of that origin by every enabled caller', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        const grantA = anOrigin(a.id, 'https://shared.example.org', { receivesToken: true });
        const grantB = anOrigin(b.id, 'https://shared.example.org', { createdAt: T0 + 1 });
        await store.addCallerOrigin(grantA);
        await store.addCallerOrigin(grantB);
        const grants = await store.findOriginGrants('https://shared.example.org');
        expect([...grants].sort((x, y) => x.callerId - y.callerId)).toEqual([grantA, grantB].sort((x, y) => x.callerId - y.callerId));
      });

      test('findOriginGrants() leaves out registrations of other origins', async () => {
        const caller = await store.createCaller('partner', T0);
        const wanted = anOrigin(caller.id, 'https://a.example.org');
        await store.addCallerOrigin(wanted);
        await store.addCallerOrigin(anOrigin(caller.id, 'https://b.example.org'));
        expect(await store.findOriginGrants('https://a.example.org')).toEqual([wanted]);
      });

      test('findOriginGrants() matches the exact origin string only', async () => {
        const caller = await store.createCaller('partner', T0);
        await store.addCallerOrigin(anOrigin(caller.id, 'https://a.example.org'));
        for (const origin of ['https://A.example.org', 'https://a.example.org/', 'https://a.example.org:443', 'http://a.example.org', '%']) {
          expect(await store.findOriginGrants(origin)).toEqual([]);
        }
      });

      test('findOriginGrants() ignores disabled callers, and sees them again once re-enabled', async () => {
        const enabled = await store.createCaller('enabled', T0);
        const disabled = await store.createCaller('disabled', T0);
        const grant = anOrigin(enabled.id, 'https://shared.example.org');
        const hidden = anOrigin(disabled.id, 'https://shared.example.org');
        await store.addCallerOrigin(grant);
        await store.addCallerOrigin(hidden);
        await store.setCallerEnabled(disabled.id, false);
        expect(await store.findOriginGrants('https://shared.example.org')).toEqual([grant]);
        await store.setCallerEnabled(disabled.id, true);
        expect(await store.findOriginGrants('https://shared.example.org')).toHaveLength(2);
      });

      test('findOriginGrants() returns [] for an origin nobody registered', async () => {
        expect(await store.findOriginGrants('https://a.example.org')).toEqual([]);
      });

      test('listCallerOrigins() still lists the registrations of a disabled caller', async () => {
        const caller = await store.createCaller('partner', T0);
        const row = anOrigin(caller.id, 'https://a.example.org');
        await store.addCallerOrigin(row);
        await store.setCallerEnabled(caller.id, false);
        expect(await store.listCallerOrigins(caller.id)).toEqual([row]);
      });

      test('deleteCaller() removes its origins and leaves other callers\' origins alone', async () => {
        const a = await store.createCaller('a', T0);
        const b = await store.createCaller('b', T0);
        await store.addCallerOrigin(anOrigin(a.id, 'https://shared.example.org'));
        await store.addCallerOrigin(anOrigin(a.id, 'https://a.example.org'));
        const kept = anOrigin(b.id, 'https://shared.example.org');
        await store.addCallerOrigin(kept);
        await store.deleteCaller(a.id);
        expect(await store.listCallerOrigins(a.id)).toEqual([]);
        expect(await store.listCallerOrigins()).toEqual([kept]);
        expect(await store.findOriginGrants('https://a.example.org')).toEqual([]);
        expect(await store.findOriginGrants('https://shared.example.org')).toEqual([kept]);
      });
    });

    describe('readCall()', () => {
      const WINDOW = 15 * MINUTE;

      /** A caller with a password, a member with two sessions (one renewed once), a locked throttle and one that is not. */
      async function seedCall() {
        const caller = await store.createCaller('shop', T0);
        await store.addCallerPassword(caller.id, 'caller-hash-1', T0);
        const member = aMember('m1', { attributes: ATTRIBUTES });
        await store.createMember(member);
        const session = aSession('s1', 'm1');
        const renewed = aSession('s2', 'm1');
        await store.createSessions([session, renewed]);
        await store.renewSessionCookie('s2', { currentCookieHash: renewed.cookieHash, cookieHash: 'cookie-hash-s2-new', cookieSealed: 'sealed-new', now: T0 });
        const throttle = await store.recordFailure('caller-address:192.0.2.1', T0, WINDOW);
        await store.lockThrottle('caller-address:192.0.2.2', T0 + HOUR);
        return { caller, member, session, throttle };
      }

      test('reads each part as its own method does, in one call', async () => {
        const { caller, member, session, throttle } = await seedCall();
        const byToken = await store.readCall({ throttleKey: 'caller-address:192.0.2.1', callerPasswordHash: 'caller-hash-1', session: { tokenHash: session.tokenHash } });
        expect(byToken).toStrictEqual({ throttle, caller, session: { session, member } });
        expect(byToken.throttle).toStrictEqual(await store.getThrottle('caller-address:192.0.2.1'));
        expect(byToken.caller).toStrictEqual(await store.findCallerByPasswordHash('caller-hash-1'));
        expect(byToken.session).toStrictEqual(await store.findSessionByTokenHash(session.tokenHash));
        const byCookie = await store.readCall({ throttleKey: 'caller-address:192.0.2.2', callerPasswordHash: 'caller-hash-1', session: { cookieHash: session.cookieHash } });
        expect(byCookie).toStrictEqual({ throttle: await store.getThrottle('caller-address:192.0.2.2'), caller, session: { session, member } });
        expect(byCookie.throttle?.lockedUntil).toBe(T0 + HOUR);
      });

      test('finds a renewed session by its new cookie and by the one it replaced, as findSessionByCookieHash does', async () => {
        await seedCall();
        const renewed = await store.findSessionByCookieHash('cookie-hash-s2-new');
        expect(renewed?.session.id).toBe('s2');
        const ask = (cookieHash: string) => store.readCall({ throttleKey: null, callerPasswordHash: null, session: { cookieHash } });
        expect((await ask('cookie-hash-s2-new')).session).toStrictEqual(renewed);
        expect((await ask(aSession('s2', 'm1').cookieHash)).session).toStrictEqual(renewed);
      });

      test('a part not asked for, or not found, is null and the others still come', async () => {
        const { caller, member, session } = await seedCall();
        expect(await store.readCall({ throttleKey: null, callerPasswordHash: null, session: null })).toStrictEqual({ throttle: null, caller: null, session: null });
        expect(await store.readCall({ throttleKey: 'caller-address:198.51.100.9', callerPasswordHash: 'caller-hash-1', session: { tokenHash: 'no-such-token' } })).toStrictEqual({
          throttle: null,
          caller,
          session: null,
        });
        expect(await store.readCall({ throttleKey: null, callerPasswordHash: 'no-such-hash', session: { tokenHash: session.tokenHash } })).toStrictEqual({
          throttle: null,
          caller: null,
          session: { session, member },
        });
        expect((await store.readCall({ throttleKey: null, callerPasswordHash: null, session: { cookieHash: 'no-such-cookie' } })).session).toBeNull();
      });

      test('a disabled caller and a revoked session are read as they are: deciding is the service\'s', async () => {
        const { caller, session } = await seedCall();
        await store.setCallerEnabled(caller.id, false);
        await store.revokeSession('s1', T0 + MINUTE);
        const read = await store.readCall({ throttleKey: null, callerPasswordHash: 'caller-hash-1', session: { tokenHash: session.tokenHash } });
        expect(read.caller).toStrictEqual({ ...caller, enabled: false });
        expect(read.session?.session.revokedAt).toBe(T0 + MINUTE);
      });
    });

    describe('throttles', () => {
      const WINDOW = 15 * MINUTE;

      test('getThrottle() returns null for an unknown key', async () => {
        expect(await store.getThrottle('login:ada')).toBeNull();
      });

      test('recordFailure() on a new key starts at 1 with the window starting now, unlocked', async () => {
        const expected = { key: 'login:ada', failures: 1, windowStartedAt: T0, lockedUntil: null };
        expect(await store.recordFailure('login:ada', T0, WINDOW)).toEqual(expected);
        expect(await store.getThrottle('login:ada')).toEqual(expected);
      });

      test('recordFailure() counts failures within the window and keeps the window start', async () => {
        await store.recordFailure('login:ada', T0, WINDOW);
        expect(await store.recordFailure('login:ada', T0 + MINUTE, WINDOW)).toEqual({
          key: 'login:ada',
          failures: 2,
          windowStartedAt: T0,
          lockedUntil: null,
        });
        expect((await store.recordFailure('login:ada', T0 + WINDOW - 1, WINDOW)).failures).toBe(3);
        expect(await store.getThrottle('login:ada')).toEqual({ key: 'login:ada', failures: 3, windowStartedAt: T0, lockedUntil: null });
      });

      test('recordFailure() after the window ended starts again at 1 with the window starting now', async () => {
        await store.recordFailure('login:ada', T0, WINDOW);
        await store.recordFailure('login:ada', T0 + 1, WINDOW);
        const later = T0 + WINDOW + HOUR;
        const expected = { key: 'login:ada', failures: 1, windowStartedAt: later, lockedUntil: null };
        expect(await store.recordFailure('login:ada', later, WINDOW)).toEqual(expected);
        expect(await store.getThrottle('login:ada')).toEqual(expected);
      });

      test('recordFailure() treats the window as ended at exactly windowStartedAt + windowMs', async () => {
        await store.recordFailure('login:ada', T0, WINDOW);
        expect((await store.recordFailure('login:ada', T0 + WINDOW - 1, WINDOW)).failures).toBe(2);
        expect(await store.recordFailure('login:ada', T0 + WINDOW, WINDOW)).toEqual({
          key: 'login:ada',
          failures: 1,
          windowStartedAt: T0 + WINDOW,
          lockedUntil: null,
        });
      });

      test('recordFailure() measures the window with the windowMs of each call', async () => {
        await store.recordFailure('login:ada', T0, WINDOW);
        expect((await store.recordFailure('login:ada', T0 + MINUTE, 2 * MINUTE)).failures).toBe(2);
        expect((await store.recordFailure('login:ada', T0 + MINUTE, MINUTE)).failures).toBe(1);
      });

      test('recordFailure() leaves a lock as it is', async () => {
        await store.lockThrottle('login:ada', T0 + HOUR);
        const during = await store.recordFailure('login:ada', T0, WINDOW);
        expect(during.lockedUntil).toBe(T0 + HOUR);
        const after = await store.recordFailure('login:ada', T0 + 2 * HOUR + WINDOW, WINDOW);
        expect(after).toEqual({ key: 'login:ada', failures: 1, windowStartedAt: T0 + 2 * HOUR + WINDOW, lockedUntil: T0 + HOUR });
        expect((await store.getThrottle('login:ada'))?.lockedUntil).toBe(T0 + HOUR);
      });

      test('recordFailure() counts each key on its own', async () => {
        await store.recordFailure('login:ada', T0, WINDOW);
        await store.recordFailure('login:ada', T0 + 1, WINDOW);
        expect(await store.recordFailure('address:192.0.2.1', T0 + 2, WINDOW)).toEqual({
          key: 'address:192.0.2.1',
          failures: 1,
          windowStartedAt: T0 + 2,
          lockedUntil: null,
        });
        expect((await store.getThrottle('login:ada'))?.failures).toBe(2);
      });

      test('recordFailure() loses no count when called many times at once', async () => {
        await Promise.all(Array.from({ length: 20 }, (_, i) => store.recordFailure('login:ada', T0 + i, WINDOW)));
        expect((await store.getThrottle('login:ada'))?.failures).toBe(20);
      });

      test('lockThrottle() on a new key creates it locked with a count of 0', async () => {
        await store.lockThrottle('login:ada', T0 + HOUR);
        expect(await store.getThrottle('login:ada')).toMatchObject({ key: 'login:ada', failures: 0, lockedUntil: T0 + HOUR });
      });

      test('lockThrottle() on an existing key sets the lock and starts the count again', async () => {
        for (let i = 0; i < 5; i += 1) await store.recordFailure('login:ada', T0 + i, WINDOW);
        await store.lockThrottle('login:ada', T0 + HOUR);
        expect(await store.getThrottle('login:ada')).toMatchObject({ key: 'login:ada', failures: 0, lockedUntil: T0 + HOUR });
      });

      test('lockThrottle() again moves the lock to the new time, earlier or later', async () => {
        await store.lockThrottle('login:ada', T0 + HOUR);
        await store.lockThrottle('login:ada', T0 + 2 * HOUR);
        expect((await store.getThrottle('login:ada'))?.lockedUntil).toBe(T0 + 2 * HOUR);
        await store.lockThrottle('login:ada', T0 + MINUTE);
        expect((await store.getThrottle('login:ada'))?.lockedUntil).toBe(T0 + MINUTE);
      });

      test('recordFailure() after the lock ended counts 1 again', async () => {
        for (let i = 0; i < 5; i += 1) await store.recordFailure('login:ada', T0 + i, WINDOW);
        await store.lockThrottle('login:ada', T0 + MINUTE);
        const after = await store.recordFailure('login:ada', T0 + 2 * MINUTE, WINDOW);
        expect(after).toMatchObject({ key: 'login:ada', failures: 1, lockedUntil: T0 + MINUTE });
      });

      test('lockThrottle() changes only that key', async () => {
        const other = await store.recordFailure('login:grace', T0, WINDOW);
        await store.recordFailure('login:ada', T0, WINDOW);
        await store.lockThrottle('login:ada', T0 + HOUR);
        expect(await store.getThrottle('login:grace')).toEqual(other);
      });

      test('clearThrottle() removes the key, lock included', async () => {
        await store.recordFailure('login:ada', T0, WINDOW);
        await store.lockThrottle('login:ada', T0 + HOUR);
        await store.clearThrottle('login:ada');
        expect(await store.getThrottle('login:ada')).toBeNull();
        expect(await store.recordFailure('login:ada', T0 + 1, WINDOW)).toEqual({
          key: 'login:ada',
          failures: 1,
          windowStartedAt: T0 + 1,
          lockedUntil: null,
        });
      });

      test('clearThrottle() leaves other keys alone, and of an unknown key changes nothing', async () => {
        const other = await store.recordFailure('login:grace', T0, WINDOW);
        await store.recordFailure('login:ada', T0, WINDOW);
        await store.clearThrottle('login:ada');
        await store.clearThrottle('login:nobody');
        expect(await store.getThrottle('login:grace')).toEqual(other);
      });
    });

    describe('sessions', () => {
      beforeEach(async () => {
        await store.createMember(aMember('m1'));
        await store.createMember(aMember('m2'));
      });

      test('createSession() stores every field', async () => {
        const session = aSession('s1', 'm1', {
          cookieDomain: 'members.example.org',
          createdAt: T0 + 1,
          lastSeenAt: T0 + 2,
          expiresAt: T0 + 3,
        });
        await store.createSession(session);
        expect(await store.listSessions()).toEqual([session]);
      });

      test('createSession() keeps a null cookieSealed (a session from before the store kept it)', async () => {
        const session = aSession('s1', 'm1', { cookieSealed: null });
        await store.createSession(session);
        expect(await sessionById('s1')).toEqual(session);
        expect((await store.findSessionByTokenHash(session.tokenHash))?.session).toEqual(session);
      });

      test('createSession() keeps clientAddress and userAgent, and every read returns them', async () => {
        const session = aSession('s1', 'm1', {
          clientAddress: '2001:db8::1',
          userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0 «Zoë» 日本',
        });
        await store.createSession(session);
        expect(await sessionById('s1')).toStrictEqual(session);
        expect(await store.listSessions({ memberId: 'm1', liveAt: T0 })).toStrictEqual([session]);
        expect((await store.findSessionByTokenHash(session.tokenHash))?.session).toStrictEqual(session);
        expect((await store.findSessionByCookieHash(session.cookieHash))?.session).toStrictEqual(session);
      });

      test.each<[string, SessionThrough]>([
        ['a partner', { kind: 'partner', name: 'Events «Portal»' }],
        ['the sign-in page', { kind: 'signin-page' }],
        ['an OpenID client', { kind: 'oidc-client', name: 'Learning' }],
        ['a SAML SP', { kind: 'saml-sp', name: 'Journal' }],
      ])('createSession() and createSessions() keep how the session was opened (through %s): listed, not read by the lookups by hash', async (_, through) => {
        const session = aSession('s1', 'm1', { through });
        const { through: _left, ...looked } = session;
        await store.createSession(session);
        await store.createSessions([aSession('s2', 'm2', { through })]);
        expect(await store.listSessions()).toStrictEqual([session, aSession('s2', 'm2', { through })]);
        expect((await store.findSessionByTokenHash(session.tokenHash))?.session).toStrictEqual(looked);
        expect((await store.findSessionByCookieHash(session.cookieHash))?.session).toStrictEqual(looked);
      });

      test('a session opened without saying how is listed without it', async () => {
        await store.createSession(aSession('s1', 'm1'));
        expect(await sessionById('s1')).not.toHaveProperty('through');
      });

      test('createSession() keeps a null clientAddress and userAgent (not known)', async () => {
        const session = aSession('s1', 'm1', { clientAddress: null, userAgent: null });
        await store.createSession(session);
        expect(await sessionById('s1')).toStrictEqual(session);
        expect((await store.findSessionByTokenHash(session.tokenHash))?.session).toStrictEqual(session);
        expect((await store.findSessionByCookieHash(session.cookieHash))?.session).toStrictEqual(session);
      });

      test('createSession() keeps revokedAt when given', async () => {
        const session = aSession('s1', 'm1', { revokedAt: T0 + MINUTE });
        await store.createSession(session);
        expect(await sessionById('s1')).toEqual(session);
      });

      test('createSession() rejects an unknown member', async () => {
        await expect(store.createSession(aSession('s1', 'nobody'))).rejects.toBeDefined();
        expect(await store.listSessions()).toEqual([]);
      });

      test('createSession() rejects a duplicate id with StoreConflictError', async () => {
        await store.createSession(aSession('s1', 'm1'));
        const duplicate = aSession('s1', 'm1', { tokenHash: 'other-token', cookieHash: 'other-cookie' });
        await expect(store.createSession(duplicate)).rejects.toThrow(StoreConflictError);
      });

      test('createSession() rejects a token hash already in use with StoreConflictError', async () => {
        await store.createSession(aSession('s1', 'm1'));
        const duplicate = aSession('s2', 'm2', { tokenHash: aSession('s1', 'm1').tokenHash });
        await expect(store.createSession(duplicate)).rejects.toThrow(StoreConflictError);
        expect(await store.listSessions()).toHaveLength(1);
      });

      test('createSession() rejects a cookie hash already in use with StoreConflictError', async () => {
        await store.createSession(aSession('s1', 'm1'));
        const duplicate = aSession('s2', 'm2', { cookieHash: aSession('s1', 'm1').cookieHash });
        await expect(store.createSession(duplicate)).rejects.toThrow(StoreConflictError);
        expect(await store.listSessions()).toHaveLength(1);
      });

      test('createSessions() stores every session of the list, each found by its token hash and by its cookie hash', async () => {
        const sessions = [
          aSession('s1', 'm1'),
          aSession('s2', 'm2', { cookieSealed: null, clientAddress: null, userAgent: null, createdAt: T0 + 1 }),
          aSession('s3', 'm1', { revokedAt: T0 + MINUTE, createdAt: T0 + 2, lastSeenAt: T0 + 3, expiresAt: T0 + 4 }),
        ];
        await store.createSessions(sessions);
        for (const session of sessions) {
          const member = aMember(session.memberId);
          expect(await store.findSessionByTokenHash(session.tokenHash)).toStrictEqual({ session, member });
          expect(await store.findSessionByCookieHash(session.cookieHash)).toStrictEqual({ session, member });
        }
        expect(await store.listSessions()).toStrictEqual(sessions);
      });

      test('createSessions() of an empty list stores nothing', async () => {
        await store.createSessions([]);
        expect(await store.listSessions()).toEqual([]);
      });

      test.each([
        ['an id', { id: 's1' }],
        ['a token hash', { tokenHash: aSession('s1', 'm1').tokenHash }],
        ['a cookie hash', { cookieHash: aSession('s1', 'm1').cookieHash }],
      ])('createSessions() with a session taking %s already stored rejects with StoreConflictError and stores none of the list', async (_, taken) => {
        await store.createSession(aSession('s1', 'm1'));
        const list = [aSession('s2', 'm1'), aSession('s3', 'm2', taken), aSession('s4', 'm2')];
        await expect(store.createSessions(list)).rejects.toThrow(StoreConflictError);
        expect((await store.listSessions()).map((s) => s.id)).toEqual(['s1']);
      });

      test.each([
        ['id', { id: 's2' }],
        ['token hash', { tokenHash: aSession('s2', 'm1').tokenHash }],
        ['cookie hash', { cookieHash: aSession('s2', 'm1').cookieHash }],
      ])('createSessions() with a session repeating the %s of an earlier one of the list rejects with StoreConflictError and stores none', async (_, repeated) => {
        const list = [aSession('s1', 'm1'), aSession('s2', 'm1'), aSession('s3', 'm2', repeated)];
        await expect(store.createSessions(list)).rejects.toThrow(StoreConflictError);
        expect(await store.listSessions()).toEqual([]);
      });

      test('createSessions() rejects a session of an unknown member, and stores none of the list', async () => {
        await expect(store.createSessions([aSession('s1', 'm1'), aSession('s2', 'nobody')])).rejects.toBeDefined();
        expect(await store.listSessions()).toEqual([]);
      });

      test('createSessions() stores more sessions than one statement takes, and a conflict in the last of them stores none', async () => {
        // PostgreSQL takes at most 65,535 parameters per statement, 5,041 sessions of 13 columns.
        const sessions = Array.from({ length: 12_000 }, (_, index) => aSession(`s${String(index).padStart(5, '0')}`, index % 2 ? 'm2' : 'm1'));
        const conflicting = [...sessions, aSession('late', 'm1', { tokenHash: aSession('s00000', 'm1').tokenHash })];
        await expect(store.createSessions(conflicting)).rejects.toThrow(StoreConflictError);
        expect(await store.listSessions()).toEqual([]);

        await store.createSessions(sessions);
        expect(await store.listSessions()).toHaveLength(sessions.length);
        const last = aSession('s11999', 'm2');
        expect((await store.findSessionByCookieHash(last.cookieHash))?.session).toStrictEqual(last);
      });

      test('findSessionByTokenHash() returns the session with its member', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        await store.createSession(aSession('s2', 'm2'));
        expect(await store.findSessionByTokenHash(session.tokenHash)).toEqual({ session, member: aMember('m1') });
      });

      test('findSessionByTokenHash() returns null for an unknown hash', async () => {
        await store.createSession(aSession('s1', 'm1'));
        expect(await store.findSessionByTokenHash('unknown')).toBeNull();
      });

      test('findSessionByTokenHash() does not match a cookie hash', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        expect(await store.findSessionByTokenHash(session.cookieHash)).toBeNull();
      });

      test('findSessionByTokenHash() also returns revoked and expired sessions, so the caller can tell why', async () => {
        const revoked = aSession('s1', 'm1', { revokedAt: T0 + 1 });
        const expired = aSession('s2', 'm1', { expiresAt: T0 - HOUR, createdAt: T0 - 2 * HOUR, lastSeenAt: T0 - 2 * HOUR });
        await store.createSession(revoked);
        await store.createSession(expired);
        expect(await store.findSessionByTokenHash(revoked.tokenHash)).toEqual({ session: revoked, member: aMember('m1') });
        expect(await store.findSessionByTokenHash(expired.tokenHash)).toEqual({ session: expired, member: aMember('m1') });
      });

      test('findSessionByTokenHash() returns the member as it is now', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        await store.setMemberEnabled('m1', false, T0);
        expect(await store.findSessionByTokenHash(session.tokenHash)).toEqual({
          session,
          member: aMember('m1', { enabled: false, version: 2 }),
        });
      });

      test('findSessionByCookieHash() returns the session with its member', async () => {
        const session = aSession('s2', 'm2');
        await store.createSession(aSession('s1', 'm1'));
        await store.createSession(session);
        expect(await store.findSessionByCookieHash(session.cookieHash)).toEqual({ session, member: aMember('m2') });
      });

      test('findSessionByCookieHash() returns null for an unknown hash', async () => {
        await store.createSession(aSession('s1', 'm1'));
        expect(await store.findSessionByCookieHash('unknown')).toBeNull();
      });

      test('findSessionByCookieHash() does not match a token hash', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        expect(await store.findSessionByCookieHash(session.tokenHash)).toBeNull();
      });

      test('findSessionByCookieHash() also returns a revoked session', async () => {
        const session = aSession('s1', 'm1', { revokedAt: T0 + 1 });
        await store.createSession(session);
        expect(await store.findSessionByCookieHash(session.cookieHash)).toEqual({ session, member: aMember('m1') });
      });

      describe('renewSessionCookie()', () => {
        const renewal = (session: SessionRow, next: string, now = T0 + MINUTE) => ({
          currentCookieHash: session.cookieHash,
          cookieHash: `cookie-hash-${next}`,
          cookieSealed: `sealed-cookie-${next}`,
          now,
        });

        test('replaces the cookie hash and sealed cookie, and keeps everything else', async () => {
          const session = aSession('s1', 'm1');
          await store.createSession(session);
          expect(await store.renewSessionCookie('s1', renewal(session, 'r1'))).toBe(true);
          const renewed = { ...session, cookieHash: 'cookie-hash-r1', cookieSealed: 'sealed-cookie-r1' };
          expect(await sessionById('s1')).toEqual(renewed);
          expect(await store.findSessionByCookieHash('cookie-hash-r1')).toEqual({ session: renewed, member: aMember('m1') });
          expect(await store.findSessionByTokenHash(session.tokenHash)).toEqual({ session: renewed, member: aMember('m1') });
        });

        test('the replaced cookie still finds the session; the one before it no longer does', async () => {
          const session = aSession('s1', 'm1');
          await store.createSession(session);
          await store.renewSessionCookie('s1', renewal(session, 'r1'));
          expect((await store.findSessionByCookieHash(session.cookieHash))?.session).toMatchObject({ id: 's1', cookieHash: 'cookie-hash-r1' });
          const first = { ...session, cookieHash: 'cookie-hash-r1' };
          expect(await store.renewSessionCookie('s1', renewal(first, 'r2'))).toBe(true);
          expect(await store.findSessionByCookieHash(session.cookieHash)).toBeNull();
          expect((await store.findSessionByCookieHash('cookie-hash-r1'))?.session.cookieHash).toBe('cookie-hash-r2');
          expect((await store.findSessionByCookieHash('cookie-hash-r2'))?.session.id).toBe('s1');
        });

        test('writes nothing once the cookie is no longer the current one (renewed already)', async () => {
          const session = aSession('s1', 'm1');
          await store.createSession(session);
          expect(await store.renewSessionCookie('s1', renewal(session, 'r1'))).toBe(true);
          expect(await store.renewSessionCookie('s1', renewal(session, 'r2'))).toBe(false);
          expect((await sessionById('s1'))?.cookieHash).toBe('cookie-hash-r1');
          expect(await store.findSessionByCookieHash('cookie-hash-r2')).toBeNull();
        });

        test('writes nothing for a revoked, expired or unknown session', async () => {
          const revoked = aSession('s1', 'm1', { revokedAt: T0 });
          const expired = aSession('s2', 'm1', { expiresAt: T0 + MINUTE });
          await store.createSession(revoked);
          await store.createSession(expired);
          expect(await store.renewSessionCookie('s1', renewal(revoked, 'r1'))).toBe(false);
          expect(await store.renewSessionCookie('s2', renewal(expired, 'r2', T0 + MINUTE))).toBe(false);
          expect(await store.renewSessionCookie('s3', renewal(aSession('s3', 'm1'), 'r3'))).toBe(false);
          expect(await sessionById('s1')).toEqual(revoked);
          expect(await sessionById('s2')).toEqual(expired);
        });

        test('changes only that session', async () => {
          const session = aSession('s1', 'm1');
          const other = aSession('s2', 'm1');
          await store.createSession(session);
          await store.createSession(other);
          await store.renewSessionCookie('s1', renewal(session, 'r1'));
          expect(await sessionById('s2')).toEqual(other);
          expect(await store.findSessionByCookieHash(other.cookieHash)).toEqual({ session: other, member: aMember('m1') });
        });

        test('refuses a hash another session has, changing nothing', async () => {
          const session = aSession('s1', 'm1');
          await store.createSession(session);
          await store.createSession(aSession('s2', 'm1'));
          await expect(store.renewSessionCookie('s1', renewal(session, 's2'))).rejects.toThrow(StoreConflictError);
          expect(await sessionById('s1')).toEqual(session);
        });
      });

      test('touchSessions() moves lastSeenAt forward', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        await store.touchSessions([{ id: 's1', lastSeenAt: T0 + MINUTE }]);
        expect(await sessionById('s1')).toEqual({ ...session, lastSeenAt: T0 + MINUTE });
        expect((await store.findSessionByTokenHash(session.tokenHash))?.session.lastSeenAt).toBe(T0 + MINUTE);
      });

      test('touchSessions() never moves lastSeenAt back', async () => {
        await store.createSession(aSession('s1', 'm1'));
        await store.touchSessions([{ id: 's1', lastSeenAt: T0 + 2 * MINUTE }]);
        await store.touchSessions([{ id: 's1', lastSeenAt: T0 + MINUTE }]);
        expect((await sessionById('s1'))?.lastSeenAt).toBe(T0 + 2 * MINUTE);
      });

      test('touchSessions() changes only that session', async () => {
        const other = aSession('s2', 'm1');
        await store.createSession(aSession('s1', 'm1'));
        await store.createSession(other);
        await store.touchSessions([{ id: 's1', lastSeenAt: T0 + MINUTE }]);
        expect(await sessionById('s2')).toEqual(other);
      });

      test('touchSessions() moves several sessions at once, each to its own time, and takes an empty list', async () => {
        const [s1, s2, s3] = [aSession('s1', 'm1'), aSession('s2', 'm2'), aSession('s3', 'm1')];
        await store.createSessions([s1, s2, s3]);
        await store.touchSessions([]);
        await store.touchSessions([
          { id: 's1', lastSeenAt: T0 + MINUTE },
          { id: 's3', lastSeenAt: T0 + 3 * MINUTE },
        ]);
        expect(await sessionById('s1')).toEqual({ ...s1, lastSeenAt: T0 + MINUTE });
        expect(await sessionById('s2')).toEqual(s2);
        expect(await sessionById('s3')).toEqual({ ...s3, lastSeenAt: T0 + 3 * MINUTE });
      });

      test('touchSessions() of an unknown id changes nothing', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        await store.touchSessions([{ id: 'unknown', lastSeenAt: T0 + MINUTE }]);
        expect(await store.listSessions()).toEqual([session]);
      });

      test('revokeSession() revokes an unrevoked session and returns its member\'s id', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        expect(await store.revokeSession('s1', T0 + MINUTE)).toBe('m1');
        expect(await sessionById('s1')).toEqual({ ...session, revokedAt: T0 + MINUTE });
      });

      test('revokeSession() returns null for a session already revoked and keeps the first revokedAt', async () => {
        await store.createSession(aSession('s1', 'm1'));
        await store.revokeSession('s1', T0 + MINUTE);
        expect(await store.revokeSession('s1', T0 + 2 * MINUTE)).toBeNull();
        expect((await sessionById('s1'))?.revokedAt).toBe(T0 + MINUTE);
      });

      test('revokeSession() revokes an expired session that was never revoked', async () => {
        await store.createSession(aSession('s1', 'm1', { expiresAt: T0 + 1 }));
        expect(await store.revokeSession('s1', T0 + HOUR)).toBe('m1');
        expect((await sessionById('s1'))?.revokedAt).toBe(T0 + HOUR);
      });

      test('revokeSession() returns null for an unknown id', async () => {
        await store.createSession(aSession('s1', 'm1'));
        expect(await store.revokeSession('unknown', T0)).toBeNull();
        expect((await sessionById('s1'))?.revokedAt).toBeNull();
      });

      test('revokeSession() revokes only that session', async () => {
        const other = aSession('s2', 'm1');
        await store.createSession(aSession('s1', 'm1'));
        await store.createSession(other);
        await store.revokeSession('s1', T0 + MINUTE);
        expect(await sessionById('s2')).toEqual(other);
      });

      test("revokeMemberSessions() revokes only that member's live sessions and returns how many", async () => {
        await store.createSession(aSession('live-1', 'm1'));
        await store.createSession(aSession('live-2', 'm1', { createdAt: T0 + 1 }));
        const revoked = aSession('revoked', 'm1', { revokedAt: T0 + 1 });
        const expired = aSession('expired', 'm1', { expiresAt: T0 + 2 });
        const otherMember = aSession('other-member', 'm2');
        for (const s of [revoked, expired, otherMember]) await store.createSession(s);

        expect(await store.revokeMemberSessions('m1', T0 + MINUTE)).toBe(2);

        expect((await sessionById('live-1'))?.revokedAt).toBe(T0 + MINUTE);
        expect((await sessionById('live-2'))?.revokedAt).toBe(T0 + MINUTE);
        expect(await sessionById('revoked')).toEqual(revoked);
        expect(await sessionById('expired')).toEqual(expired);
        expect(await sessionById('other-member')).toEqual(otherMember);
      });

      test('revokeMemberSessions() returns 0 for a member without live sessions or an unknown member', async () => {
        await store.createSession(aSession('s1', 'm2'));
        expect(await store.revokeMemberSessions('m1', T0)).toBe(0);
        expect(await store.revokeMemberSessions('nobody', T0)).toBe(0);
        expect((await sessionById('s1'))?.revokedAt).toBeNull();
      });

      test('listSessions() returns every session ordered by createdAt', async () => {
        const third = aSession('a', 'm1', { createdAt: T0 + 3 });
        const first = aSession('b', 'm2', { createdAt: T0 + 1, revokedAt: T0 + 5 });
        const second = aSession('c', 'm1', { createdAt: T0 + 2, expiresAt: T0 + 2 });
        for (const s of [third, first, second]) await store.createSession(s);
        expect(await store.listSessions()).toEqual([first, second, third]);
        expect(await store.listSessions({})).toEqual([first, second, third]);
      });

      test('listSessions() returns [] when there are no sessions', async () => {
        expect(await store.listSessions()).toEqual([]);
        expect(await store.listSessions({ memberId: 'm1', liveAt: T0 })).toEqual([]);
      });

      test("listSessions({ memberId }) returns only that member's sessions, ended ones included", async () => {
        const live = aSession('s1', 'm1', { createdAt: T0 + 1 });
        const revoked = aSession('s2', 'm1', { createdAt: T0 + 2, revokedAt: T0 + 3 });
        await store.createSession(live);
        await store.createSession(revoked);
        await store.createSession(aSession('s3', 'm2'));
        expect(await store.listSessions({ memberId: 'm1' })).toEqual([live, revoked]);
        expect(await store.listSessions({ memberId: 'nobody' })).toEqual([]);
      });

      test('listSessions({ liveAt }) leaves out revoked and expired sessions', async () => {
        const live = aSession('live', 'm1', { createdAt: T0 + 1 });
        const liveOther = aSession('live-other', 'm2', { createdAt: T0 + 2 });
        await store.createSession(live);
        await store.createSession(liveOther);
        await store.createSession(aSession('revoked', 'm1', { revokedAt: T0 + 1 }));
        await store.createSession(aSession('expired', 'm1', { expiresAt: T0 + MINUTE - 1 }));
        expect(await store.listSessions({ liveAt: T0 + MINUTE })).toEqual([live, liveOther]);
      });

      test('listSessions({ liveAt }) treats a session as expired at exactly expiresAt', async () => {
        const session = aSession('s1', 'm1', { expiresAt: T0 + MINUTE });
        await store.createSession(session);
        expect(await store.listSessions({ liveAt: T0 + MINUTE - 1 })).toEqual([session]);
        expect(await store.listSessions({ liveAt: T0 + MINUTE })).toEqual([]);
      });

      test('listSessions({ memberId, liveAt }) applies both', async () => {
        const wanted = aSession('wanted', 'm1');
        await store.createSession(wanted);
        await store.createSession(aSession('revoked', 'm1', { revokedAt: T0 + 1 }));
        await store.createSession(aSession('expired', 'm1', { expiresAt: T0 + 1 }));
        await store.createSession(aSession('other-member', 'm2'));
        expect(await store.listSessions({ memberId: 'm1', liveAt: T0 + MINUTE })).toEqual([wanted]);
      });
    });

    describe('second factors', () => {
      const CODES = ['code-hash-1', 'code-hash-2', 'code-hash-3'];

      beforeEach(async () => {
        await store.createMember(aMember('m1'));
        await store.createMember(aMember('m2'));
      });

      /** m1 with a factor confirmed at STEP, and CODES as its recovery codes. */
      async function confirmed(memberId = 'm1', codes: readonly string[] = CODES): Promise<SecondFactorRow> {
        await store.replaceSecondFactor(aSecondFactor(memberId));
        expect(await store.confirmSecondFactor(memberId, T0 + MINUTE, STEP, codes)).toBe(true);
        return aSecondFactor(memberId, { confirmedAt: T0 + MINUTE, lastStep: STEP });
      }

      test('getSecondFactor() returns null for a member without one, and for an unknown member', async () => {
        expect(await store.getSecondFactor('m1')).toBeNull();
        expect(await store.getSecondFactor('nobody')).toBeNull();
      });

      test('replaceSecondFactor() stores an unconfirmed factor, and getSecondFactor() reads back every field', async () => {
        const row = aSecondFactor('m1', { secretSealed: 'sealed «secret» 日本', createdAt: T0 + 5 });
        await store.replaceSecondFactor(row);
        expect(await store.getSecondFactor('m1')).toStrictEqual(row);
        expect(await store.getSecondFactor('m2')).toBeNull();
        expect(await store.countRecoveryCodes('m1')).toBe(0);
      });

      test('replaceSecondFactor() stores the factor unconfirmed and with no step used, whatever the row says', async () => {
        await store.replaceSecondFactor(aSecondFactor('m1', { confirmedAt: T0, lastStep: STEP }));
        expect(await store.getSecondFactor('m1')).toStrictEqual(aSecondFactor('m1'));
        expect(await store.useSecondFactorStep('m1', STEP + 1)).toBe(false);
      });

      test('replaceSecondFactor() rejects an unknown member', async () => {
        await expect(store.replaceSecondFactor(aSecondFactor('nobody'))).rejects.toBeDefined();
        expect(await store.getSecondFactor('nobody')).toBeNull();
      });

      test("replaceSecondFactor() over a confirmed factor unconfirms it and discards the old factor's recovery codes", async () => {
        await confirmed();
        expect(await store.useRecoveryCode('m1', 'code-hash-1', T0 + 2 * MINUTE)).toBe(true);
        const next = aSecondFactor('m1', { secretSealed: 'sealed-secret-2', createdAt: T0 + HOUR });
        await store.replaceSecondFactor(next);
        expect(await store.getSecondFactor('m1')).toStrictEqual(next);
        expect(await store.countRecoveryCodes('m1')).toBe(0);
        expect(await store.useRecoveryCode('m1', 'code-hash-2', T0 + HOUR)).toBe(false);
        expect(await store.useSecondFactorStep('m1', STEP + 10)).toBe(false);

        // The new factor is confirmed with codes of its own; the old ones stay gone, used or not.
        expect(await store.confirmSecondFactor('m1', T0 + 2 * HOUR, STEP + 20, ['new-hash-1', 'new-hash-2'])).toBe(true);
        expect(await store.countRecoveryCodes('m1')).toBe(2);
        expect(await store.useRecoveryCode('m1', 'code-hash-1', T0 + 2 * HOUR)).toBe(false);
        expect(await store.useRecoveryCode('m1', 'code-hash-3', T0 + 2 * HOUR)).toBe(false);
        expect(await store.useRecoveryCode('m1', 'new-hash-1', T0 + 2 * HOUR)).toBe(true);
      });

      test("replaceSecondFactor() leaves other members' factors and codes alone", async () => {
        const other = await confirmed('m2');
        await store.replaceSecondFactor(aSecondFactor('m1'));
        await store.replaceSecondFactor(aSecondFactor('m1', { secretSealed: 'again' }));
        expect(await store.getSecondFactor('m2')).toStrictEqual(other);
        expect(await store.countRecoveryCodes('m2')).toBe(CODES.length);
      });

      test('confirmSecondFactor() confirms the factor at that step and stores the recovery codes', async () => {
        const row = await confirmed();
        expect(row).toStrictEqual({ ...aSecondFactor('m1'), confirmedAt: T0 + MINUTE, lastStep: STEP });
        expect(await store.getSecondFactor('m1')).toStrictEqual(row);
        expect(await store.countRecoveryCodes('m1')).toBe(CODES.length);
        for (const code of CODES) expect(await store.useRecoveryCode('m1', code, T0 + HOUR)).toBe(true);
      });

      test('confirmSecondFactor() with no recovery codes confirms the factor', async () => {
        await store.replaceSecondFactor(aSecondFactor('m1'));
        expect(await store.confirmSecondFactor('m1', T0 + MINUTE, STEP, [])).toBe(true);
        expect((await store.getSecondFactor('m1'))?.confirmedAt).toBe(T0 + MINUTE);
        expect(await store.countRecoveryCodes('m1')).toBe(0);
      });

      test('confirmSecondFactor() confirms once: a second call returns false and changes nothing, codes included', async () => {
        const row = await confirmed();
        expect(await store.confirmSecondFactor('m1', T0 + HOUR, STEP + 100, ['other-hash-1', 'other-hash-2'])).toBe(false);
        expect(await store.getSecondFactor('m1')).toStrictEqual(row);
        expect(await store.countRecoveryCodes('m1')).toBe(CODES.length);
        expect(await store.useRecoveryCode('m1', 'other-hash-1', T0 + HOUR)).toBe(false);
      });

      test('confirmSecondFactor() by several callers at once: exactly one confirms', async () => {
        await store.replaceSecondFactor(aSecondFactor('m1'));
        const results = await Promise.all(
          [1, 2, 3].map((n) => store.confirmSecondFactor('m1', T0 + n, STEP + n, [`hash-${n}-a`, `hash-${n}-b`])),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.countRecoveryCodes('m1')).toBe(2);
      });

      test('confirmSecondFactor() returns false and stores no codes for a member without a factor, or an unknown one', async () => {
        expect(await store.confirmSecondFactor('m1', T0, STEP, CODES)).toBe(false);
        expect(await store.confirmSecondFactor('nobody', T0, STEP, CODES)).toBe(false);
        expect(await store.getSecondFactor('m1')).toBeNull();
        expect(await store.countRecoveryCodes('m1')).toBe(0);
        expect(await store.countRecoveryCodes('nobody')).toBe(0);
        expect(await store.useRecoveryCode('m1', 'code-hash-1', T0)).toBe(false);
      });

      test('useSecondFactorStep() accepts a later step only: the same or an earlier one is a replay', async () => {
        await confirmed();
        expect(await store.useSecondFactorStep('m1', STEP)).toBe(false); // the confirming code's step
        expect(await store.useSecondFactorStep('m1', STEP - 1)).toBe(false);
        expect(await store.useSecondFactorStep('m1', STEP + 1)).toBe(true);
        expect((await store.getSecondFactor('m1'))?.lastStep).toBe(STEP + 1);
        expect(await store.useSecondFactorStep('m1', STEP + 1)).toBe(false);
        expect(await store.useSecondFactorStep('m1', STEP)).toBe(false);
        expect(await store.useSecondFactorStep('m1', STEP + 3)).toBe(true);
        expect(await store.useSecondFactorStep('m1', STEP + 2)).toBe(false);
        expect(await store.getSecondFactor('m1')).toStrictEqual({ ...aSecondFactor('m1'), confirmedAt: T0 + MINUTE, lastStep: STEP + 3 });
      });

      test('useSecondFactorStep() returns false for an unconfirmed factor and records nothing', async () => {
        await store.replaceSecondFactor(aSecondFactor('m1'));
        expect(await store.useSecondFactorStep('m1', STEP)).toBe(false);
        expect(await store.getSecondFactor('m1')).toStrictEqual(aSecondFactor('m1'));
      });

      test('useSecondFactorStep() returns false for a member without a factor, or an unknown one', async () => {
        expect(await store.useSecondFactorStep('m1', STEP)).toBe(false);
        expect(await store.useSecondFactorStep('nobody', STEP)).toBe(false);
      });

      test('useSecondFactorStep() changes only that member', async () => {
        await confirmed('m1');
        const other = await confirmed('m2');
        expect(await store.useSecondFactorStep('m1', STEP + 1)).toBe(true);
        expect(await store.getSecondFactor('m2')).toStrictEqual(other);
        expect(await store.useSecondFactorStep('m2', STEP + 1)).toBe(true);
      });

      test('useSecondFactorStep() with the same step by two callers at once: exactly one succeeds', async () => {
        await confirmed();
        const results = await Promise.all([store.useSecondFactorStep('m1', STEP + 1), store.useSecondFactorStep('m1', STEP + 1)]);
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await store.getSecondFactor('m1'))?.lastStep).toBe(STEP + 1);
      });

      test('useSecondFactorStep() with the same step by many callers at once: exactly one succeeds', async () => {
        await confirmed();
        const results = await Promise.all(Array.from({ length: 8 }, () => store.useSecondFactorStep('m1', STEP + 2)));
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      test('useRecoveryCode() accepts each code once', async () => {
        await confirmed();
        expect(await store.useRecoveryCode('m1', 'code-hash-2', T0 + HOUR)).toBe(true);
        expect(await store.useRecoveryCode('m1', 'code-hash-2', T0 + 2 * HOUR)).toBe(false);
        expect(await store.useRecoveryCode('m1', 'code-hash-1', T0 + 2 * HOUR)).toBe(true);
      });

      test('useRecoveryCode() by two callers at once with one code: exactly one succeeds', async () => {
        await confirmed();
        const results = await Promise.all([
          store.useRecoveryCode('m1', 'code-hash-1', T0 + HOUR),
          store.useRecoveryCode('m1', 'code-hash-1', T0 + HOUR),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.countRecoveryCodes('m1')).toBe(CODES.length - 1);
      });

      test("useRecoveryCode() refuses another member's code, an unknown code and an unknown member", async () => {
        await confirmed('m1');
        await confirmed('m2', ['m2-hash-1']);
        expect(await store.useRecoveryCode('m2', 'code-hash-1', T0 + HOUR)).toBe(false);
        expect(await store.useRecoveryCode('m1', 'm2-hash-1', T0 + HOUR)).toBe(false);
        expect(await store.useRecoveryCode('m1', 'unknown', T0 + HOUR)).toBe(false);
        expect(await store.useRecoveryCode('nobody', 'code-hash-1', T0 + HOUR)).toBe(false);
        expect(await store.countRecoveryCodes('m1')).toBe(CODES.length);
        expect(await store.countRecoveryCodes('m2')).toBe(1);
        expect(await store.useRecoveryCode('m1', 'code-hash-1', T0 + HOUR)).toBe(true);
      });

      test('useRecoveryCode() with one hash for two members uses only that member\'s code', async () => {
        await confirmed('m1', ['shared-hash']);
        await confirmed('m2', ['shared-hash']);
        expect(await store.useRecoveryCode('m1', 'shared-hash', T0 + HOUR)).toBe(true);
        expect(await store.countRecoveryCodes('m1')).toBe(0);
        expect(await store.countRecoveryCodes('m2')).toBe(1);
        expect(await store.useRecoveryCode('m2', 'shared-hash', T0 + HOUR)).toBe(true);
      });

      test('countRecoveryCodes() counts unused codes only, and 0 for a member without any or an unknown one', async () => {
        await confirmed();
        expect(await store.countRecoveryCodes('m1')).toBe(3);
        await store.useRecoveryCode('m1', 'code-hash-3', T0 + HOUR);
        expect(await store.countRecoveryCodes('m1')).toBe(2);
        await store.useRecoveryCode('m1', 'code-hash-1', T0 + HOUR);
        await store.useRecoveryCode('m1', 'code-hash-2', T0 + HOUR);
        expect(await store.countRecoveryCodes('m1')).toBe(0);
        expect(await store.countRecoveryCodes('m2')).toBe(0);
        expect(await store.countRecoveryCodes('nobody')).toBe(0);
      });

      test("deleteSecondFactor() removes the member's factor and codes and returns true; then false", async () => {
        await confirmed('m1');
        const other = await confirmed('m2');
        expect(await store.deleteSecondFactor('m1')).toBe(true);
        expect(await store.getSecondFactor('m1')).toBeNull();
        expect(await store.countRecoveryCodes('m1')).toBe(0);
        expect(await store.useRecoveryCode('m1', 'code-hash-1', T0 + HOUR)).toBe(false);
        expect(await store.useSecondFactorStep('m1', STEP + 1)).toBe(false);
        expect(await store.deleteSecondFactor('m1')).toBe(false);
        expect(await store.getSecondFactor('m2')).toStrictEqual(other);
        expect(await store.countRecoveryCodes('m2')).toBe(CODES.length);
      });

      test('deleteSecondFactor() removes an unconfirmed factor, and returns false for a member without one or an unknown one', async () => {
        await store.replaceSecondFactor(aSecondFactor('m1'));
        expect(await store.deleteSecondFactor('m1')).toBe(true);
        expect(await store.getSecondFactor('m1')).toBeNull();
        expect(await store.deleteSecondFactor('m2')).toBe(false);
        expect(await store.deleteSecondFactor('nobody')).toBe(false);
      });

      test('deleteMember() removes its second factor and recovery codes', async () => {
        await confirmed('m1');
        const other = await confirmed('m2');
        expect(await store.deleteMember('m1')).toBe('removed');
        expect(await store.getSecondFactor('m1')).toBeNull();
        expect(await store.countRecoveryCodes('m1')).toBe(0);
        // A member created again under the id starts without any.
        await store.createMember(aMember('m1'));
        expect(await store.getSecondFactor('m1')).toBeNull();
        expect(await store.countRecoveryCodes('m1')).toBe(0);
        expect(await store.useRecoveryCode('m1', 'code-hash-1', T0 + HOUR)).toBe(false);
        expect(await store.getSecondFactor('m2')).toStrictEqual(other);
        expect(await store.countRecoveryCodes('m2')).toBe(CODES.length);
      });
    });

    oidcStoreContract(() => store, aSession);
    provisioningStoreContract(() => store, aSession);
    recoveryStoreContract(() => store);
    samlStoreContract(() => store, aSession);
    eventStoreContract(() => store);
    staffStoreContract(() => store);
    passkeyStoreContract(() => store, aSession);

    describe('maintenance', () => {
      test('ping() resolves on a working store', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });

      test('ping() rejects once the store is closed', async () => {
        const other = await makeStore();
        await other.close();
        await expect(other.ping()).rejects.toBeDefined();
      });

      test('purgeSessions() deletes expired, revoked and idle sessions and keeps live ones', async () => {
        await store.createMember(aMember('m1'));
        await store.createSession(aSession('live', 'm1', { lastSeenAt: T0 + 30 * MINUTE, expiresAt: T0 + 2 * HOUR }));
        await store.createSession(aSession('expired', 'm1', { expiresAt: T0 + 10 * MINUTE }));
        await store.createSession(aSession('revoked', 'm1', { revokedAt: T0 + 10 * MINUTE }));
        await store.createSession(aSession('idle', 'm1', { lastSeenAt: T0 + 5 * MINUTE }));
        await store.createSession(aSession('recently-revoked', 'm1', { lastSeenAt: T0 + 30 * MINUTE, revokedAt: T0 + 30 * MINUTE }));
        expect(await store.purgeSessions(T0 + 10 * MINUTE, T0 + 5 * MINUTE)).toBe(3);
        expect((await store.listSessions()).map((s) => s.id).sort()).toEqual(['live', 'recently-revoked']);
      });

      test('purgeSessions() with nothing to purge returns 0', async () => {
        expect(await store.purgeSessions(T0, T0)).toBe(0);
      });

      test('purgeThrottles() deletes rows whose window and lock ended, and keeps the rest', async () => {
        await store.recordFailure('old', T0, MINUTE);
        await store.recordFailure('recent', T0 + 10 * MINUTE, MINUTE);
        await store.recordFailure('locked', T0, MINUTE);
        await store.lockThrottle('locked', T0 + HOUR);
        expect(await store.purgeThrottles(T0 + 5 * MINUTE)).toBe(1);
        expect(await store.getThrottle('old')).toBeNull();
        expect(await store.getThrottle('recent')).not.toBeNull();
        expect(await store.getThrottle('locked')).not.toBeNull();
      });
    });
  });
}
