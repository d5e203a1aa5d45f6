/**
 * Filters and sorts as store searches (src/provisioning/member-query.ts): each declared attribute becomes its
 * member field, with the case-exactness /Schemas declares; the member's one email (work, primary) answers the
 * filters on its type and primary at once; what cannot be filtered on is a 400 invalidFilter naming it.
 */
import { parseFilter } from '../../src/provisioning/filter-syntax.js';
import { memberQueryOf } from '../../src/provisioning/member-query.js';
import { USER_SCHEMA } from '../../src/provisioning/urns.js';
import { refusalOf } from './refusal.js';

const filterOf = (text: string) => memberQueryOf(parseFilter(text), {}).filter;
const compare = (field: string, operator: string, value: unknown, caseExact: boolean) => ({ kind: 'compare', field, operator, value, caseExact });
const present = { kind: 'present', field: 'email' };

test.each([
  ['userName eq "Ada@Example.com"', compare('username', 'eq', 'Ada@Example.com', false)],
  [`${USER_SCHEMA}:userName sw "a"`, compare('username', 'sw', 'a', false)],
  ['externalId eq "ext-1"', compare('externalId', 'eq', 'ext-1', true)],
  ['id eq "m-1"', compare('id', 'eq', 'm-1', true)],
  ['displayName co "Ada"', compare('shownName', 'co', 'Ada', false)],
  ['name.formatted ew "King"', compare('fullName', 'ew', 'King', false)],
  ['name.givenName gt "A"', compare('firstName', 'gt', 'A', false)],
  ['active eq true', compare('enabled', 'eq', true, false)],
  // Entra ID writes booleans as strings.
  ['active ne "False"', compare('enabled', 'ne', false, false)],
  ['meta.lastModified ge "2024-01-02T03:04:05Z"', compare('updatedAt', 'ge', Date.UTC(2024, 0, 2, 3, 4, 5), true)],
  ['urn:ietf:params:scim:schemas:extension:authentication-asmx:2.0:User:organisationId eq "O-1"', compare('organisationId', 'eq', 'O-1', true)],
  ['externalId eq null', { kind: 'not', filter: { kind: 'present', field: 'externalId' } }],
  ['title pr', { kind: 'present', field: 'title' }],
  ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department co "math"', compare('department', 'co', 'math', false)],
  ['nickName pr', undefined],
])('%s', (text, expected) => {
  if (expected === undefined) return void expect(refusalOf(() => filterOf(text))).toMatchObject({ status: 400, scimType: 'invalidFilter' });
  expect(filterOf(text)).toEqual(expected);
});

test('emails: the one address, of type work and primary; roles, phone numbers and addresses: some value', () => {
  expect(filterOf('emails[type eq "work"].value eq "a@b.c"')).toEqual({ kind: 'and', filters: [present, { kind: 'and', filters: [{ kind: 'constant', value: true }, compare('email', 'eq', 'a@b.c', false)] }] });
  expect(filterOf('emails[type eq "home" or primary eq false]')).toEqual({ kind: 'and', filters: [present, { kind: 'or', filters: [{ kind: 'constant', value: false }, { kind: 'constant', value: false }] }] });
  expect(filterOf('emails co "@b.c"')).toEqual({ kind: 'and', filters: [present, compare('email', 'co', '@b.c', false)] });
  expect(filterOf('roles[value eq "r1" and not (display sw "Re")]')).toEqual({
    kind: 'anyValue',
    list: 'roles',
    filter: { kind: 'and', filters: [compare('element.id', 'eq', 'r1', true), { kind: 'not', filter: compare('element.name', 'sw', 'Re', false) }] },
  });
  expect(filterOf('roles pr')).toEqual({ kind: 'anyValue', list: 'roles', filter: { kind: 'present', field: 'element.id' } });
  expect(filterOf('groups[value eq "r1"]')).toEqual({ kind: 'anyValue', list: 'roles', filter: compare('element.id', 'eq', 'r1', true) });
  expect(filterOf('phoneNumbers[type eq "work" and primary eq true].value sw "+44"')).toEqual({
    kind: 'anyValue',
    list: 'phoneNumbers',
    filter: { kind: 'and', filters: [{ kind: 'and', filters: [compare('element.type', 'eq', 'work', false), compare('element.primary', 'eq', true, false)] }, compare('element.value', 'sw', '+44', false)] },
  });
  expect(filterOf('addresses.postalCode pr')).toEqual({ kind: 'anyValue', list: 'addresses', filter: { kind: 'present', field: 'element.postalCode' } });
});

test.each([
  ['nickName eq "Boss"', '"nickName" cannot be filtered on'],
  ['phoneNumbers.extension eq "1"', 'phoneNumbers has no sub-attribute "extension"'],
  ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager eq "m"', '"manager" cannot be filtered on'],
  ['password eq "x"', '"password" cannot be filtered on'],
  ['name eq "Ada"', '"name" cannot be filtered on'],
  ['userName.x eq "a"', '"userName.x" cannot be filtered on'],
  ['urn:ietf:params:scim:schemas:extension:authentication-asmx:2.0:User:extra.dept eq "o"', 'cannot be filtered on'],
  ['urn:example:other:attribute eq "o"', 'cannot be filtered on'],
  ['userName eq 5', 'userName is compared with a string'],
  ['active gt true', 'active is a boolean: it is compared with eq or ne'],
  ['active eq 1', 'active is compared with true or false'],
  ['meta.created co "2024"', 'is a date'],
  ['meta.created gt "yesterday"', 'is compared with a date (ISO 8601)'],
  ['userName gt null', 'null is compared with eq or ne'],
  ['emails[display eq "x"]', 'emails has no sub-attribute "display"'],
  ['roles[type eq "x"]', 'roles has no sub-attribute "type"'],
  ['userName[value eq "a"]', 'only emails, roles, phoneNumbers and addresses take a filter in brackets'],
])('%s: 400 invalidFilter', (text, detail) => {
  const error = refusalOf(() => filterOf(text));
  expect(error).toMatchObject({ status: 400, scimType: 'invalidFilter' });
  expect(error.message).toContain(detail);
});

test('sortBy and sortOrder: a single-valued attribute or emails, ascending unless descending', () => {
  expect(memberQueryOf(undefined, { sortBy: 'userName' })).toEqual({ sort: { field: 'username', descending: false, caseExact: false } });
  expect(memberQueryOf(undefined, { sortBy: 'emails', sortOrder: 'Descending' })).toEqual({ sort: { field: 'email', descending: true, caseExact: false } });
  expect(memberQueryOf(undefined, { sortBy: 'meta.created' })).toEqual({ sort: { field: 'createdAt', descending: false, caseExact: true } });
  expect(memberQueryOf(undefined, { sortOrder: 'descending' })).toEqual({});
  for (const query of [{ sortBy: 'roles' }, { sortBy: 'nickName' }, { sortBy: 'userName', sortOrder: 'down' }, { sortBy: ['a', 'b'] }]) {
    expect(refusalOf(() => memberQueryOf(undefined, query))).toMatchObject({ status: 400, scimType: 'invalidValue' });
  }
});
