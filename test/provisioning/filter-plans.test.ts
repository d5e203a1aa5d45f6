/**
 * The common lookups of provisioning clients (userName, externalId, the email, id, displayName, each eq) read the
 * members through an index on both stores, the count and the page alike: never the whole table.
 */
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parseFilter } from '../../src/provisioning/filter-syntax.js';
import { memberQueryOf } from '../../src/provisioning/member-query.js';
import type { NewMember, Store } from '../../src/store/store.js';
import { adminQuery, describeWithPostgres, POSTGRES_TEST_URL, tempPostgresStore } from '../helpers/postgres.js';
import { plansOf, scannedTables } from '../helpers/sqlite-statements.js';

/** Each lookup, and the index it reads. */
const LOOKUPS: Array<[string, string]> = [
  ['userName eq "Member-7"', 'members_lower_username'],
  ['externalId eq "ext-7"', 'members_external_id'],
  ['emails[type eq "work"].value eq "m7@example.org"', 'members_lower_email'],
  ['emails eq "m7@example.org"', 'members_lower_email'],
  ['displayName eq "member seven"', 'members_lower_shown_name'],
];

const MEMBERS = Array.from({ length: 3000 }, (_, i): NewMember => ({
  id: `m${i}`,
  username: `member-${i}`,
  email: `m${i}@example.org`,
  firstName: 'Ada',
  lastName: `L${i % 50}`,
  enabled: true,
  createdAt: Date.UTC(2030, 0, 1) + i,
  attributes: {},
  externalId: `ext-${i}`,
  displayName: i % 2 === 0 ? `member ${i}` : null,
}));

const search = (store: Store, text: string) => store.searchMembers({ ...memberQueryOf(parseFilter(text), {}), offset: 0, limit: 10 });

test('SQLite: each lookup and id eq search an index; none scans the members', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'authentication-asmx-plans-'));
  try {
    const { plans } = await plansOf(
      join(dir, 'plans.sqlite'),
      async (store) => {
        for (const [text] of LOOKUPS) await search(store, text);
        await search(store, 'id eq "m7"');
      },
      (store) => store.createMembers(MEMBERS),
    );
    expect(plans).toHaveLength(2 * (LOOKUPS.length + 1));
    LOOKUPS.forEach(([text, index], i) => {
      for (const plan of [plans[2 * i], plans[2 * i + 1]]) expect([text, plan?.join('\n')]).toEqual([text, expect.stringMatching(new RegExp(`SEARCH members USING (COVERING )?INDEX ${index} `))]);
    });
    for (const plan of plans.slice(-2)) expect(plan?.join('\n')).toMatch(/SEARCH members USING (COVERING )?INDEX sqlite_autoindex_members_1 \(id=\?\)/);
    expect(scannedTables(plans.flat())).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describeWithPostgres('filter plans', () => {
  test('PostgreSQL: each lookup and id eq read an index; none reads the members sequentially', async () => {
    const temp = await tempPostgresStore();
    try {
      await temp.store.createMembers(MEMBERS);
      await adminQuery('ANALYZE members', temp.schema);
      const query = jest.spyOn(pg.Pool.prototype, 'query');
      let statements: Array<[string, unknown[]]> = [];
      try {
        for (const [text] of LOOKUPS) await search(temp.store, text);
        await search(temp.store, 'id eq "m7"');
      } finally {
        statements = query.mock.calls.map(([sql, values]) => [String(sql), values as unknown[]]);
        query.mockRestore();
      }
      const client = new pg.Client({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${temp.schema}` });
      await client.connect();
      const plans: string[] = [];
      try {
        for (const [sql, values] of statements) plans.push((await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values)).rows.map((row) => row['QUERY PLAN']).join('\n'));
      } finally {
        await client.end();
      }
      expect(plans).toHaveLength(2 * (LOOKUPS.length + 1));
      LOOKUPS.forEach(([text, index], i) => {
        for (const plan of [plans[2 * i], plans[2 * i + 1]]) expect([text, plan]).toEqual([text, expect.stringMatching(new RegExp(`Index (Only )?Scan (using|on) ${index}`))]);
      });
      for (const plan of plans.slice(-2)) expect(plan).toMatch(/Index (Only )?Scan (using|on) members_pkey/);
      expect(plans.join('\n')).not.toMatch(/Seq Scan/);
    } finally {
      await temp.cleanup();
    }
  });
});
