import { StoreConflictError, type MemberRow, type SessionRow, type Store } from '../../src/store/store.js';

/** The member the SQLite and PostgreSQL suites create, reopen and migrate around. */
export const ADA: MemberRow = {
  id: 'm1',
  username: 'ada',
  email: 'ada@example.org',
  firstName: 'Ada',
  lastName: 'Lovelace',
  enabled: true,
  createdAt: Date.UTC(2030, 0, 1),
  attributes: {},
  version: 1,
  updatedAt: Date.UTC(2030, 0, 1),
  externalId: null,
  displayName: null,
  formattedName: null,
};

/**
 * What a store holds once migrated from a schema without member attributes and sealed cookies, into which ADA
 * and her session (token hash 'token-hash') were written: ADA with no attributes, the session with no sealed
 * cookie, and attributes that can be set.
 */
export async function expectUpgradedAda(store: Store): Promise<void> {
  expect(await store.getMember('m1')).toStrictEqual({ ...ADA, attributes: {} });
  const found = await store.findSessionByTokenHash('token-hash');
  expect(found?.member).toStrictEqual(ADA);
  expect(found?.session.cookieSealed).toBeNull();
  expect(await store.updateMember('m1', { attributes: { isMember: true } }, 1, ADA.createdAt)).toStrictEqual({ ...ADA, attributes: { isMember: true }, version: 2 });
}

/**
 * What a store holds once migrated from a schema without session origins and second factors, into which ADA
 * and her session (token hash 'token-hash', cookie hash 'cookie-hash') were written: the session with neither
 * client address nor browser, ADA without a second factor, and second factors that work and go with her.
 */
export async function expectUpgradedWithSecondFactors(store: Store): Promise<void> {
  const found = await store.findSessionByTokenHash('token-hash');
  expect(found?.member).toStrictEqual(ADA);
  expect(found?.session).toMatchObject({ id: 's1', clientAddress: null, userAgent: null });
  expect((await store.findSessionByCookieHash('cookie-hash'))?.session).toMatchObject({ clientAddress: null, userAgent: null });
  expect((await store.listSessions()).map((s) => [s.id, s.clientAddress, s.userAgent])).toEqual([['s1', null, null]]);
  expect(await store.getSecondFactor('m1')).toBeNull();
  expect(await store.countRecoveryCodes('m1')).toBe(0);

  const factor = { memberId: 'm1', secretSealed: 'sealed-secret', createdAt: ADA.createdAt, confirmedAt: null, lastStep: null };
  await store.replaceSecondFactor(factor);
  expect(await store.confirmSecondFactor('m1', ADA.createdAt + 1, 100, ['hash-1', 'hash-2'])).toBe(true);
  expect(await store.getSecondFactor('m1')).toStrictEqual({ ...factor, confirmedAt: ADA.createdAt + 1, lastStep: 100 });
  expect(await store.useSecondFactorStep('m1', 101)).toBe(true);
  expect(await store.useRecoveryCode('m1', 'hash-1', ADA.createdAt + 2)).toBe(true);
  expect(await store.countRecoveryCodes('m1')).toBe(1);
  await store.createSession({
    ...found!.session,
    id: 's2',
    cookieHash: 'cookie-hash-2',
    tokenHash: 'token-hash-2',
    clientAddress: '192.0.2.1',
    userAgent: 'curl/8.0',
  });
  expect((await store.findSessionByTokenHash('token-hash-2'))?.session).toMatchObject({ clientAddress: '192.0.2.1', userAgent: 'curl/8.0' });

  // The new tables' foreign keys cascade.
  expect(await store.deleteMember('m1')).toBe('removed');
  await store.createMember(ADA);
  expect(await store.getSecondFactor('m1')).toBeNull();
  expect(await store.countRecoveryCodes('m1')).toBe(0);
}

/** ADA's sessions s0, s1… ending at expiresAt, created and last seen at ADA.createdAt. */
export function adaSessions(count: number, expiresAt: number): SessionRow[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `s${index}`,
    memberId: ADA.id,
    cookieDomain: 'example.org',
    cookieHash: `c${index}`,
    tokenHash: `t${index}`,
    tokenSealed: 'sealed',
    cookieSealed: null,
    createdAt: ADA.createdAt,
    lastSeenAt: ADA.createdAt,
    expiresAt,
    revokedAt: null,
    clientAddress: null,
    userAgent: null,
  }));
}

/**
 * Purges 20,000 of ADA's ended sessions (ADA must be stored) while a read is made: the read must be answered
 * before the purge ends, which a purge of one statement over every row would not let it be.
 */
export async function expectReadAnsweredDuringPurge(store: Store): Promise<void> {
  await store.createSessions(adaSessions(20_000, ADA.createdAt + 1));
  const order: string[] = [];
  const purge = store.purgeSessions(ADA.createdAt + 10, ADA.createdAt - 1).then((count) => {
    order.push('purge');
    return count;
  });
  const read = store.getMember(ADA.id).then(() => order.push('read'));
  await Promise.all([purge, read]);
  expect(await purge).toBe(20_000);
  expect(order).toEqual(['read', 'purge']);
  expect(await store.listSessions()).toEqual([]);
}

/**
 * A write made while a transaction of the store is open is no part of it: it is kept when the transaction rolls
 * back (ADA must be stored). On SQLite's one connection, the call's statement would otherwise run inside the
 * transaction, between two of its statements, and go with it.
 */
export async function expectWriteKeptBesideRolledBackTransaction(store: Store): Promise<void> {
  const [stored, listed, beside] = adaSessions(3, ADA.createdAt + 3_600_000) as [SessionRow, SessionRow, SessionRow];
  await store.createSession(stored);
  // The list's second session takes the stored one's token hash: the first is inserted, then the list rolls back.
  const failing = store.createSessions([listed, { ...listed, id: 'repeat', cookieHash: 'repeat', tokenHash: stored.tokenHash }]);
  const write = store.createSession(beside);
  await expect(failing).rejects.toThrow(StoreConflictError);
  await write;
  expect((await store.listSessions()).map((session) => session.id)).toEqual([stored.id, beside.id].sort());
}

/**
 * Transactions, failing ones among them, and single writes, all started at once (ADA must be stored): each that
 * succeeds takes effect whole, each that fails leaves nothing, and none of them runs inside another.
 */
export async function expectConcurrentWritesKept(store: Store): Promise<void> {
  const HOUR = 3_600_000;
  const sessions = adaSessions(60, ADA.createdAt + HOUR);
  const lists = Array.from({ length: 6 }, (_, index) => sessions.slice(index * 10, index * 10 + 8));
  const singles = sessions.filter((_, index) => index % 10 >= 8);
  // A list that repeats its first session's id: its transaction rolls back.
  const failingLists = Array.from({ length: 3 }, (_, index) => {
    const list = adaSessions(4, ADA.createdAt + HOUR).map((session) => ({
      ...session,
      id: `failing-${index}-${session.id}`,
      cookieHash: `failing-${index}-${session.cookieHash}`,
      tokenHash: `failing-${index}-${session.tokenHash}`,
    }));
    return [...list, { ...list[0]!, cookieHash: `failing-${index}-repeat`, tokenHash: `failing-${index}-repeat` }];
  });
  const results = await Promise.allSettled(
    lists.flatMap((list, index) => [
      store.createSessions(list),
      store.createSession(singles[2 * index]!),
      ...(index < failingLists.length ? [store.createSessions(failingLists[index]!)] : []),
      store.createSession(singles[2 * index + 1]!),
    ]),
  );
  expect(results.filter((result) => result.status === 'rejected')).toHaveLength(failingLists.length);
  expect((await store.listSessions()).map((session) => session.id).sort()).toEqual(sessions.map((session) => session.id).sort());

  const seenAt = ADA.createdAt + 60_000;
  const revokedAt = ADA.createdAt + 120_000;
  await Promise.all(
    lists.flatMap((list, index) => [
      store.touchSessions(list.map((session) => ({ id: session.id, lastSeenAt: seenAt }))),
      store.revokeSession(singles[2 * index]!.id, revokedAt),
      store.revokeSession(singles[2 * index + 1]!.id, revokedAt),
    ]),
  );
  const stored = new Map((await store.listSessions()).map((session) => [session.id, session]));
  for (const session of lists.flat()) expect(stored.get(session.id)).toMatchObject({ lastSeenAt: seenAt, revokedAt: null });
  for (const session of singles) expect(stored.get(session.id)).toMatchObject({ lastSeenAt: ADA.createdAt, revokedAt });
}
