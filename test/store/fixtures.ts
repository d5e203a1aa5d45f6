import type { MemberRow, Store } from '../../src/store/store.js';

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
  expect(await store.updateMember('m1', { attributes: { isMember: true } })).toStrictEqual({ ...ADA, attributes: { isMember: true } });
}
