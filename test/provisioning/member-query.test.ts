/**
 * Filters as store queries (src/provisioning/member-query.ts): only eq on userName, externalId, id and the email,
 * joined by and, reach the store; anything else is a 400 invalidFilter that says what is supported.
 */
import { parseFilter } from '../../src/provisioning/filter-syntax.js';
import { memberQueryOf } from '../../src/provisioning/member-query.js';
import { refusalOf } from './refusal.js';

const query = (text: string) => memberQueryOf(parseFilter(text));

test.each([
  ['userName eq "Ada@Example.com"', [{ field: 'userName', value: 'Ada@Example.com' }]],
  ['USERNAME eq "a"', [{ field: 'userName', value: 'a' }]],
  ['externalId eq "ext-1"', [{ field: 'externalId', value: 'ext-1' }]],
  ['id eq "m-1"', [{ field: 'id', value: 'm-1' }]],
  ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a"', [{ field: 'userName', value: 'a' }]],
  ['emails.value eq "a@b.c"', [{ field: 'email', value: 'a@b.c' }]],
  ['emails eq "a@b.c"', [{ field: 'email', value: 'a@b.c' }]],
  // The member's one email is a primary work address, so Entra ID's match on the work email is a match on it.
  ['emails[type eq "work"].value eq "a@b.c"', [{ field: 'email', value: 'a@b.c' }]],
  ['emails[type eq "WORK" and primary eq true].value eq "a@b.c"', [{ field: 'email', value: 'a@b.c' }]],
  ['emails[value eq "a@b.c"]', [{ field: 'email', value: 'a@b.c' }]],
  ['userName eq "a" and (externalId eq "b" and id eq "c")', [
    { field: 'userName', value: 'a' },
    { field: 'externalId', value: 'b' },
    { field: 'id', value: 'c' },
  ]],
])('%s', (text, conditions) => {
  expect(query(text)).toEqual({ conditions });
});

test.each(['emails[type eq "home"].value eq "a@b.c"', 'emails[primary eq false].value eq "a@b.c"', 'userName eq "a" and emails[type eq "home"].value eq "a@b.c"'])(
  '%s matches no member: no query reaches the store',
  (text) => {
    expect(query(text)).toBeNull();
  },
);

test.each([
  ['title eq "Boss"', '"title" cannot be filtered on'],
  ['name.givenName eq "Ada"', '"name.givenName" cannot be filtered on'],
  ['userName.x eq "a"', '"userName.x" cannot be filtered on'],
  ['active eq true', '"active" cannot be filtered on'],
  ['userName eq 5', 'userName is compared with a string'],
  ['emails[type eq "work"]', 'a filter on emails compares its value'],
  ['emails[display eq "x"]', 'emails.display cannot be filtered on'],
  ['userName[value eq "a"]', '"userName" cannot be filtered on'],
  ['urn:ietf:params:scim:schemas:extension:authentication-asmx:2.0:User:organisationId eq "o"', 'cannot be filtered on'],
  ['userName eq "a" and title eq "b"', '"title" cannot be filtered on'],
  ['emails[type eq "home"].value eq "a" and title eq "b"', '"title" cannot be filtered on'],
])('%s: 400 invalidFilter naming what is supported', (text, detail) => {
  const error = refusalOf(() => query(text));
  expect(error).toMatchObject({ status: 400, scimType: 'invalidFilter' });
  expect(error.message).toContain(detail);
  expect(error.message).toContain('filters compare userName, externalId, id or emails.value with "eq", joined by "and"');
});
