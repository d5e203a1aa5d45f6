import type { MemberRow } from '../../src/store/store.js';

/** The member the SQLite and PostgreSQL suites create, reopen and migrate around. */
export const ADA: MemberRow = {
  id: 'm1',
  username: 'ada',
  email: 'ada@example.org',
  firstName: 'Ada',
  lastName: 'Lovelace',
  enabled: true,
  createdAt: Date.UTC(2030, 0, 1),
};
