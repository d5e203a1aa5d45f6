/**
 * The store's answer to random filters over every attribute /Users can be filtered on, on random members, is the
 * answer of a plain in-memory evaluation of the same filter text over the Users as the service shows them
 * (scim-filter-evaluation.ts), on SQLite and on PostgreSQL; and so is its order for a random sortBy. The members'
 * texts are short, over a few letters in both cases and LIKE's wildcards, so that comparisons often hold.
 */
import { parseFilter, type Filter } from '../../src/provisioning/filter-syntax.js';
import { memberQueryOf } from '../../src/provisioning/member-query.js';
import { userResource } from '../../src/provisioning/resource.js';
import { ENTERPRISE_EXTENSION, MEMBER_EXTENSION } from '../../src/provisioning/urns.js';
import type { NewMember, Store } from '../../src/store/store.js';
import { tempPostgresStore, describeWithPostgres } from '../helpers/postgres.js';
import { fc } from '../helpers/seeded-fast-check.js';
import { tempSqliteStore, type TempStore } from '../helpers/temp-store.js';
import { userMeets } from './scim-filter-evaluation.js';

const T0 = Date.UTC(2030, 0, 1);
const MEMBERS = 40;
const text = (minLength = 0) => fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', '%', '_', '-'), minLength, maxLength: 3 });
const optionalText = () => fc.option(text(1), { nil: undefined });
const TIMES = Array.from({ length: 5 }, (_, i) => T0 + i * 60_000);

const aMember = (index: number) =>
  fc
    .record({
      username: text(),
      email: text(),
      firstName: text(),
      lastName: text(),
      enabled: fc.boolean(),
      createdAt: fc.constantFrom(...TIMES),
      externalId: fc.option(text(1), { nil: null }),
      displayName: fc.option(text(1), { nil: null }),
      formattedName: fc.option(text(1), { nil: null }),
      isMember: fc.option(fc.boolean(), { nil: undefined }),
      contactNumber: optionalText(),
      organisationName: optionalText(),
      title: optionalText(),
      locale: optionalText(),
      department: optionalText(),
      phoneNumbers: fc.array(fc.record({ value: text(1), type: fc.constantFrom('work', 'Mobile'), primary: fc.boolean() }, { requiredKeys: ['value'] }), { maxLength: 2 }),
      addresses: fc.array(fc.record({ locality: text(1), postalCode: text(1), country: fc.constantFrom('GB', 'gb', 'FR') }, { requiredKeys: [] }), { maxLength: 2 }),
      roles: fc.uniqueArray(fc.record({ id: fc.constantFrom('r1', 'R1', 'r2', 'x%'), name: text(1) }), { maxLength: 3, selector: (role) => role.id }),
    })
    .map(({ isMember, contactNumber, organisationName, title, locale, department, phoneNumbers, addresses, roles, username, ...fields }): NewMember => ({
      ...fields,
      // Unique ignoring case, as the store requires.
      id: `m${index}`,
      username: `${index}-${username}`,
      attributes: JSON.parse(
        JSON.stringify({ isMember, contactNumber, organisationName, roles: roles.length > 0 ? roles : undefined, profile: { title, locale, department, phoneNumbers: phoneNumbers.length > 0 ? phoneNumbers : undefined, addresses: addresses.filter((address) => Object.keys(address).length > 0) } }),
      ),
    }));

const members = fc.tuple(...Array.from({ length: MEMBERS }, (_, index) => aMember(index)));

type Kind = 'string' | 'boolean' | 'dateTime';
const STRING_OPERATORS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le', 'pr'];
const OPERATORS: Record<Kind, string[]> = { string: STRING_OPERATORS, boolean: ['eq', 'ne', 'pr'], dateTime: ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'pr'] };
const ATTRIBUTES: Array<[string, Kind]> = [
  ['userName', 'string'],
  ['id', 'string'],
  ['externalId', 'string'],
  ['displayName', 'string'],
  ['name.formatted', 'string'],
  ['name.givenName', 'string'],
  ['NAME.FAMILYNAME', 'string'],
  ['emails', 'string'],
  ['emails.value', 'string'],
  ['emails.type', 'string'],
  ['emails.primary', 'boolean'],
  ['roles', 'string'],
  ['roles.value', 'string'],
  ['roles.display', 'string'],
  ['active', 'boolean'],
  ['meta.created', 'dateTime'],
  ['meta.lastModified', 'dateTime'],
  [`${MEMBER_EXTENSION}:isMember`, 'boolean'],
  [`${MEMBER_EXTENSION}:contactNumber`, 'string'],
  [`${MEMBER_EXTENSION}:organisationName`, 'string'],
  ['urn:ietf:params:scim:schemas:core:2.0:User:userName', 'string'],
  ['title', 'string'],
  ['LOCALE', 'string'],
  [`${ENTERPRISE_EXTENSION}:department`, 'string'],
  ['phoneNumbers', 'string'],
  ['phoneNumbers.type', 'string'],
  ['phoneNumbers.primary', 'boolean'],
  ['addresses.locality', 'string'],
  ['addresses.country', 'string'],
];
const SUBS: Record<'emails' | 'roles' | 'phoneNumbers' | 'addresses', Array<[string, Kind]>> = {
  emails: [['value', 'string'], ['type', 'string'], ['primary', 'boolean']],
  roles: [['value', 'string'], ['display', 'string']],
  phoneNumbers: [['value', 'string'], ['type', 'string'], ['primary', 'boolean']],
  addresses: [['locality', 'string'], ['postalCode', 'string'], ['country', 'string']],
};

const literal = (kind: Kind) =>
  kind === 'boolean'
    ? fc.boolean().map(String)
    : kind === 'dateTime'
      ? fc.constantFrom(...TIMES).map((time) => JSON.stringify(new Date(time).toISOString()))
      : fc.oneof(text(), fc.constantFrom('work', 'WORK', 'r1', 'm1', 'm1%', 'mobile', 'GB')).map((value) => JSON.stringify(value));

const comparison = ([attribute, kind]: [string, Kind]) =>
  fc.constantFrom(...OPERATORS[kind]).chain((operator) => (operator === 'pr' ? fc.constant(`${attribute} pr`) : literal(kind).map((value) => `${attribute} ${operator} ${value}`)));

/** A filter's text, `depth` levels of and, or and not deep at most. */
function filterText(depth: number, attributes: Array<[string, Kind]>, valuePaths: boolean): fc.Arbitrary<string> {
  const leaf = fc.constantFrom(...attributes).chain(comparison);
  const leaves = valuePaths
    ? fc.oneof(
        { weight: 4, arbitrary: leaf },
        { weight: 1, arbitrary: fc.constantFrom(...(Object.keys(SUBS) as Array<keyof typeof SUBS>)).chain((name) => filterText(1, SUBS[name], false).map((inner) => `${name}[${inner}]`)) },
      )
    : leaf;
  if (depth === 0) return leaves;
  const inner = filterText(depth - 1, attributes, valuePaths);
  return fc.oneof(
    { weight: 3, arbitrary: leaves },
    { weight: 1, arbitrary: fc.tuple(inner, fc.constantFrom('and', 'or', 'AND', 'Or'), inner).map(([a, join, b]) => `(${a}) ${join} (${b})`) },
    { weight: 1, arbitrary: inner.map((a) => `not (${a})`) },
  );
}

const SORTABLE = ['userName', 'externalId', 'displayName', 'name.formatted', 'name.givenName', 'emails', 'active', 'meta.created', 'title', `${MEMBER_EXTENSION}:contactNumber`, `${MEMBER_EXTENSION}:isMember`, `${ENTERPRISE_EXTENSION}:department`];

function searchesOnEach(name: string, open: () => Promise<TempStore>): void {
  describe(`on ${name}`, () => {
    let temp: TempStore;
    let store: Store;

    beforeAll(async () => {
      temp = await open();
      store = temp.store;
    });
    afterAll(() => temp.cleanup());

    async function seeded(list: NewMember[]) {
      for (const member of await store.listMembers()) await store.deleteMember(member.id);
      for (const member of list) await store.createMember(member);
      return (await store.listMembers()).map((member) => ({ member, user: userResource(member, '') }));
    }

    test('random filters: the store finds the members the in-memory evaluation finds, and counts them', async () => {
      await fc.assert(
        fc.asyncProperty(members, fc.array(filterText(3, ATTRIBUTES, true), { minLength: 8, maxLength: 8 }), async (list, texts) => {
          const users = await seeded(list);
          for (const text of texts) {
            const filter: Filter = parseFilter(text);
            const expected = users.filter(({ user }) => userMeets(user, filter)).map(({ member }) => member.id).sort();
            const found = await store.searchMembers({ ...memberQueryOf(filter, {}), offset: 0, limit: MEMBERS });
            expect({ text, ids: found.members.map((member) => member.id).sort(), total: found.total }).toEqual({ text, ids: expected, total: expected.length });
          }
        }),
        { numRuns: 25 },
      );
    });

    test('random sorts: the order of the in-memory sort, absent values last, ties by creation and id', async () => {
      await fc.assert(
        fc.asyncProperty(members, fc.constantFrom(...SORTABLE), fc.boolean(), async (list, sortBy, descending) => {
          const users = await seeded(list);
          const sortOrder = descending ? 'descending' : 'ascending';
          const query = memberQueryOf(undefined, { sortBy, sortOrder });
          const keyOf = ({ user }: { user: Record<string, unknown> }) => sortKey(user, sortBy, query.sort?.caseExact ?? true);
          const expected = [...users]
            .sort((a, b) => compareKeys(keyOf(a), keyOf(b), descending) || a.member.createdAt - b.member.createdAt || (a.member.id < b.member.id ? -1 : 1))
            .map(({ member }) => member.id);
          const found = await store.searchMembers({ ...query, offset: 0, limit: MEMBERS });
          expect({ sortBy, sortOrder, ids: found.members.map((member) => member.id) }).toEqual({ sortBy, sortOrder, ids: expected });
        }),
        { numRuns: 25 },
      );
    });
  });
}

/** The value a User sorts by: its attribute (the first email's address), lowered unless caseExact; undefined when absent. */
function sortKey(user: Record<string, unknown>, sortBy: string, caseExact: boolean): string | number | boolean | undefined {
  const urn = [MEMBER_EXTENSION, ENTERPRISE_EXTENSION].find((extension) => sortBy.startsWith(extension));
  const [holder, path] = urn === undefined ? [user, sortBy] : [(user[urn] ?? {}) as Record<string, unknown>, sortBy.slice(urn.length + 1)];
  const [name, sub] = path.split('.') as [string, string | undefined];
  let value = holder[name];
  if (name === 'emails') value = (value as Array<{ value: string }> | undefined)?.[0]?.value;
  else if (name === 'meta') value = Date.parse((value as Record<string, string>).created as string);
  else if (sub !== undefined) value = (value as Record<string, unknown> | undefined)?.[sub];
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' && !caseExact ? value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : (value as string | number | boolean);
}

function compareKeys(a: unknown, b: unknown, descending: boolean): number {
  if (a === undefined || b === undefined) return (a === undefined ? 1 : 0) - (b === undefined ? 1 : 0);
  const order = (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  return descending ? -order : order;
}

searchesOnEach('SQLite', tempSqliteStore);
describeWithPostgres('searches', () => searchesOnEach('PostgreSQL', tempPostgresStore));
