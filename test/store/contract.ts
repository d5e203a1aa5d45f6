import type { MemberRow, SessionRow, Store } from '../../src/store/store.js';
import { StoreConflictError } from '../../src/store/store.js';

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
    ...overrides,
  };
}

function aSession(id: string, memberId: string, overrides: Partial<SessionRow> = {}): SessionRow {
  return {
    id,
    memberId,
    cookieDomain: 'example.org',
    cookieHash: `cookie-hash-${id}`,
    tokenHash: `token-hash-${id}`,
    tokenSealed: `sealed-token-${id}`,
    createdAt: T0,
    lastSeenAt: T0,
    expiresAt: T0 + HOUR,
    revokedAt: null,
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
        const member = aMember('m1', { enabled: false, createdAt: T0 + 5 });
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
        expect(await store.setMemberEnabled('m1', false)).toBe(true);
        expect(await store.getMember('m1')).toEqual(aMember('m1', { enabled: false }));
        expect(await store.setMemberEnabled('m1', true)).toBe(true);
        expect(await store.getMember('m1')).toEqual(aMember('m1'));
      });

      test('setMemberEnabled() returns true when the member already had that state', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.setMemberEnabled('m1', true)).toBe(true);
      });

      test('setMemberEnabled() returns false for an unknown id', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.setMemberEnabled('m2', false)).toBe(false);
        expect(await store.getMember('m1')).toEqual(aMember('m1'));
      });

      test('deleteMember() removes the member and returns true', async () => {
        await store.createMember(aMember('m1'));
        await store.createMember(aMember('m2'));
        expect(await store.deleteMember('m1')).toBe(true);
        expect(await store.getMember('m1')).toBeNull();
        expect(await store.listMembers()).toEqual([aMember('m2')]);
      });

      test('deleteMember() returns false for an unknown id', async () => {
        await store.createMember(aMember('m1'));
        expect(await store.deleteMember('m2')).toBe(false);
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
        await store.setMemberEnabled('m1', false);
        expect(await store.findSessionByTokenHash(session.tokenHash)).toEqual({
          session,
          member: aMember('m1', { enabled: false }),
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

      test('touchSession() moves lastSeenAt forward', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        await store.touchSession('s1', T0 + MINUTE);
        expect(await sessionById('s1')).toEqual({ ...session, lastSeenAt: T0 + MINUTE });
        expect((await store.findSessionByTokenHash(session.tokenHash))?.session.lastSeenAt).toBe(T0 + MINUTE);
      });

      test('touchSession() never moves lastSeenAt back', async () => {
        await store.createSession(aSession('s1', 'm1'));
        await store.touchSession('s1', T0 + 2 * MINUTE);
        await store.touchSession('s1', T0 + MINUTE);
        expect((await sessionById('s1'))?.lastSeenAt).toBe(T0 + 2 * MINUTE);
      });

      test('touchSession() changes only that session', async () => {
        const other = aSession('s2', 'm1');
        await store.createSession(aSession('s1', 'm1'));
        await store.createSession(other);
        await store.touchSession('s1', T0 + MINUTE);
        expect(await sessionById('s2')).toEqual(other);
      });

      test('touchSession() of an unknown id changes nothing', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        await store.touchSession('unknown', T0 + MINUTE);
        expect(await store.listSessions()).toEqual([session]);
      });

      test('revokeSession() revokes an unrevoked session and returns true', async () => {
        const session = aSession('s1', 'm1');
        await store.createSession(session);
        expect(await store.revokeSession('s1', T0 + MINUTE)).toBe(true);
        expect(await sessionById('s1')).toEqual({ ...session, revokedAt: T0 + MINUTE });
      });

      test('revokeSession() returns false for a session already revoked and keeps the first revokedAt', async () => {
        await store.createSession(aSession('s1', 'm1'));
        await store.revokeSession('s1', T0 + MINUTE);
        expect(await store.revokeSession('s1', T0 + 2 * MINUTE)).toBe(false);
        expect((await sessionById('s1'))?.revokedAt).toBe(T0 + MINUTE);
      });

      test('revokeSession() revokes an expired session that was never revoked', async () => {
        await store.createSession(aSession('s1', 'm1', { expiresAt: T0 + 1 }));
        expect(await store.revokeSession('s1', T0 + HOUR)).toBe(true);
        expect((await sessionById('s1'))?.revokedAt).toBe(T0 + HOUR);
      });

      test('revokeSession() returns false for an unknown id', async () => {
        await store.createSession(aSession('s1', 'm1'));
        expect(await store.revokeSession('unknown', T0)).toBe(false);
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
  });
}
