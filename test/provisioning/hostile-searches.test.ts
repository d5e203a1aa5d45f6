/**
 * Hostile filters that the syntax accepts (the most comparisons, the deepest nesting, co, sw and ew with the
 * longest patterns, LIKE's wildcards, value paths over the most roles) cost the store no more than any filter of
 * their size: each becomes one statement of at most MAX_COMPARISONS comparisons (each binding one parameter, pr
 * none) and as many role subqueries, whatever the text, so that a search's work is bounded by its rows times that
 * many comparisons of bounded texts. Both stores answer them, with members that hold the most roles; past the
 * bounds, filters are refused before any SQL (filter-syntax.test.ts).
 */
import { MAX_COMPARISONS, MAX_FILTER_LENGTH, parseFilter } from '../../src/provisioning/filter-syntax.js';
import { memberQueryOf } from '../../src/provisioning/member-query.js';
import type { SqlDialect } from '../../src/store/sql/driver.js';
import { compileSearch } from '../../src/store/sql/member-filter.js';
import type { FlagCodec } from '../../src/store/sql/records.js';
import type { NewMember, Store } from '../../src/store/store.js';
import { describeWithPostgres, tempPostgresStore } from '../helpers/postgres.js';
import { fc } from '../helpers/seeded-fast-check.js';
import { tempSqliteStore, type TempStore } from '../helpers/temp-store.js';

const ATTRIBUTES = ['userName', 'displayName', 'name.formatted', 'emails', 'roles.display', 'roles.value', 'externalId', 'urn:ietf:params:scim:schemas:extension:authentication-asmx:2.0:User:organisationName'];
const PATTERN_PIECES = ['%', '_', '\\\\', 'a', '%_', "'", '*'];

/** Filters within every bound, as costly as the syntax allows: every comparison a co, or a value path of them. */
const hostileFilter = fc
  .record({
    count: fc.integer({ min: 1, max: MAX_COMPARISONS }),
    depth: fc.integer({ min: 0, max: 6 }),
    attribute: fc.constantFrom(...ATTRIBUTES),
    operator: fc.constantFrom('co', 'sw', 'ew', 'ne', 'gt'),
    join: fc.constantFrom('or', 'and'),
    pattern: fc.array(fc.constantFrom(...PATTERN_PIECES), { maxLength: 2000 }).map((pieces) => pieces.join('')),
    inRoles: fc.boolean(),
  })
  .map(({ count, depth, attribute, operator, join, pattern, inRoles }) => {
    const room = Math.floor((MAX_FILTER_LENGTH - 200 - depth * 7) / count) - 40;
    const value = JSON.stringify(pattern.slice(0, Math.max(0, room)));
    const terms = Array.from({ length: count }, () => (inRoles ? `display ${operator} ${value}` : `${attribute} ${operator} ${value}`)).join(` ${join} `);
    const body = inRoles ? `roles[${terms}]` : terms;
    return `${'not ('.repeat(depth)}${body}${')'.repeat(depth)}`;
  })
  .filter((text) => text.length <= MAX_FILTER_LENGTH);

/** A dialect that writes each hook as a marker, to count what the statement holds. */
const MARKED: SqlDialect = {
  jsonText: (column, path) => `${column}.${path.join('.')}`,
  jsonFlag: (column, key) => `${column}.${key}`,
  jsonElements: () => 'ELEMENTS',
  elementText: (alias, key) => `${alias}.${key}`,
  elementFlag: (alias, key) => `${alias}.${key}`,
  position: (text, needle) => `position(${text}, ${needle})`,
  byCodePoint: (expression) => expression,
  sessionKey: 'id',
};
const FLAGS: FlagCodec = { toBoolean: (flag) => flag === 1, fromBoolean: (value) => (value ? 1 : 0) };

test('any filter within the bounds is one statement of at most MAX_COMPARISONS parameters and role subqueries', () => {
  fc.assert(
    fc.property(hostileFilter, (text) => {
      const { where, values } = compileSearch(memberQueryOf(parseFilter(text), {}), MARKED, FLAGS);
      expect(values.length).toBeLessThanOrEqual(MAX_COMPARISONS);
      expect(where.split('ELEMENTS').length - 1).toBeLessThanOrEqual(MAX_COMPARISONS);
      // The client's text is in the parameters, never in the SQL.
      expect(where).not.toContain('%');
    }),
    { numRuns: 200 },
  );
});

const ROLES = Array.from({ length: 100 }, (_, i) => ({ id: `role-${i}`, name: `%_ Role ${'a'.repeat(200)} ${i}` }));
const MEMBERS = Array.from({ length: 100 }, (_, i): NewMember => ({
  id: `m${i}`,
  username: `${'a'.repeat(200)}-${i}`,
  email: `${'a%_'.repeat(60)}${i}@example.org`,
  firstName: 'a'.repeat(256),
  lastName: 'b'.repeat(256),
  enabled: true,
  createdAt: i,
  attributes: { roles: ROLES, organisationName: 'a'.repeat(256) },
}));

function answeredOn(name: string, open: () => Promise<TempStore>): void {
  test(`${name}: hostile filters within the bounds are answered, over members with the most roles`, async () => {
    const temp = await open();
    const store: Store = temp.store;
    try {
      await store.createMembers(MEMBERS);
      const texts = fc.sample(hostileFilter, 30);
      for (const text of texts) {
        const found = await store.searchMembers({ ...memberQueryOf(parseFilter(text), {}), offset: 0, limit: 10 });
        // Answered whole: a count no larger than the members, and the page that count implies.
        expect(found.total).toBeLessThanOrEqual(MEMBERS.length);
        expect(found.members).toHaveLength(Math.min(10, found.total));
      }
    } finally {
      await temp.cleanup();
    }
  });
}

answeredOn('SQLite', tempSqliteStore);
describeWithPostgres('hostile searches', () => answeredOn('PostgreSQL', tempPostgresStore));
