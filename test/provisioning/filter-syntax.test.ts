/**
 * The SCIM filter and path syntax this service reads (src/provisioning/filter-syntax.ts): the forms Entra ID and
 * Okta send, the RFC 7644 §3.4.2.2 forms it answers, and a clear invalidFilter / invalidPath for the rest.
 */
import { MAX_FILTER_LENGTH, MAX_PATH_LENGTH, parseFilter, parsePath } from '../../src/provisioning/filter-syntax.js';
import { refusalOf as refusal } from './refusal.js';

describe('filters', () => {
  test.each([
    // Entra ID's first request for a user: does one with this userName exist? (learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups)
    ['Entra ID\'s userName probe', 'userName eq "Test_User_dfeef4c5-5681-4387-b016-bdf221e82081"', { kind: 'compare', operator: 'eq', attribute: 'userName', value: 'Test_User_dfeef4c5-5681-4387-b016-bdf221e82081' }],
    ['Entra ID\'s externalId probe', 'externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"', { kind: 'compare', operator: 'eq', attribute: 'externalId', value: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef' }],
    // Okta checks whether a user exists by userName before creating it (developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20).
    ['Okta\'s userName check', 'userName eq "isaac.brock@example.com"', { kind: 'compare', operator: 'eq', attribute: 'userName', value: 'isaac.brock@example.com' }],
    ['operators in any case', 'userName EQ "a"', { kind: 'compare', operator: 'eq', attribute: 'userName', value: 'a' }],
    ['a URN-qualified attribute', 'urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a"', { kind: 'compare', operator: 'eq', attribute: 'urn:ietf:params:scim:schemas:core:2.0:User:userName', value: 'a' }],
    ['JSON escapes in the value', String.raw`userName eq "a\"b\\c\u00e9"`, { kind: 'compare', operator: 'eq', attribute: 'userName', value: 'a"b\\cé' }],
    ['true, false, null and numbers', 'a eq true and b eq false and c eq null and d eq -1.5e2', {
      kind: 'and',
      filters: [
        { kind: 'compare', operator: 'eq', attribute: 'a', value: true },
        { kind: 'compare', operator: 'eq', attribute: 'b', value: false },
        { kind: 'compare', operator: 'eq', attribute: 'c', value: null },
        { kind: 'compare', operator: 'eq', attribute: 'd', value: -150 },
      ],
    }],
    ['parentheses', '(userName eq "a") and (externalId eq "b")', {
      kind: 'and',
      filters: [
        { kind: 'compare', operator: 'eq', attribute: 'userName', value: 'a' },
        { kind: 'compare', operator: 'eq', attribute: 'externalId', value: 'b' },
      ],
    }],
    // Entra ID matches on the work email too, written as a value path with a sub-attribute.
    ['Entra ID\'s work email match', 'emails[type eq "work"].value eq "a@b.c"', {
      kind: 'valuePath',
      attribute: 'emails',
      filter: { kind: 'and', filters: [{ kind: 'compare', operator: 'eq', attribute: 'type', value: 'work' }, { kind: 'compare', operator: 'eq', attribute: 'value', value: 'a@b.c' }] },
    }],
    ['every operator, pr, or, not and grouping; and binds tighter than or', 'a ne 1 or b co "x" and not (c sw "y" or d ew "z") or e gt 1 and f ge 2 and g lt 3 and h le 4 and i pr', {
      kind: 'or',
      filters: [
        { kind: 'compare', operator: 'ne', attribute: 'a', value: 1 },
        {
          kind: 'and',
          filters: [
            { kind: 'compare', operator: 'co', attribute: 'b', value: 'x' },
            { kind: 'not', filter: { kind: 'or', filters: [{ kind: 'compare', operator: 'sw', attribute: 'c', value: 'y' }, { kind: 'compare', operator: 'ew', attribute: 'd', value: 'z' }] } },
          ],
        },
        {
          kind: 'and',
          filters: [
            { kind: 'compare', operator: 'gt', attribute: 'e', value: 1 },
            { kind: 'compare', operator: 'ge', attribute: 'f', value: 2 },
            { kind: 'compare', operator: 'lt', attribute: 'g', value: 3 },
            { kind: 'compare', operator: 'le', attribute: 'h', value: 4 },
            { kind: 'present', attribute: 'i' },
          ],
        },
      ],
    }],
    ['the RFC\'s value path with or and not inside', 'emails[type eq "work" and not (value co "@example.org" or primary pr)]', {
      kind: 'valuePath',
      attribute: 'emails',
      filter: {
        kind: 'and',
        filters: [
          { kind: 'compare', operator: 'eq', attribute: 'type', value: 'work' },
          { kind: 'not', filter: { kind: 'or', filters: [{ kind: 'compare', operator: 'co', attribute: 'value', value: '@example.org' }, { kind: 'present', attribute: 'primary' }] } },
        ],
      },
    }],
    ['a value path and its sub-attribute with pr', 'emails[type eq "work"].value pr', {
      kind: 'valuePath',
      attribute: 'emails',
      filter: { kind: 'and', filters: [{ kind: 'compare', operator: 'eq', attribute: 'type', value: 'work' }, { kind: 'present', attribute: 'value' }] },
    }],
    ['a value path followed by "and"', 'emails[type eq "work"] and userName eq "a"', {
      kind: 'and',
      filters: [
        { kind: 'valuePath', attribute: 'emails', filter: { kind: 'compare', operator: 'eq', attribute: 'type', value: 'work' } },
        { kind: 'compare', operator: 'eq', attribute: 'userName', value: 'a' },
      ],
    }],
    ['an RFC value path', 'emails[type eq "work" and value eq "a@b.c"]', {
      kind: 'valuePath',
      attribute: 'emails',
      filter: { kind: 'and', filters: [{ kind: 'compare', operator: 'eq', attribute: 'type', value: 'work' }, { kind: 'compare', operator: 'eq', attribute: 'value', value: 'a@b.c' }] },
    }],
  ])('%s', (_name, text, expected) => {
    expect(parseFilter(text)).toEqual(expected);
  });

  test.each([
    ['an unknown operator', 'userName xx "a"', 'expected an operator (eq, ne, co, sw, ew, gt, ge, lt, le or pr) at character 10'],
    ['not without parentheses', 'not userName eq "a"', 'expected an operator'],
    ['pr with a value', 'title pr "a"', 'expected nothing more'],
    ['or with nothing after it', 'userName eq "a" or', 'expected an attribute at the end'],
    ['an unclosed string', 'userName eq "a', 'is not closed'],
    ['an invalid escape', String.raw`userName eq "\x"`, 'not a valid JSON string'],
    ['a raw line break in a string', 'userName eq "a\nb"', 'not a valid JSON string'],
    ['an unclosed parenthesis', '(userName eq "a"', 'expected ")" at the end'],
    ['a missing value', 'userName eq', 'expected a value'],
    ['a word as the value', 'userName eq bob', 'expected a value'],
    ['something after the filter', 'userName eq "a" "b"', 'expected nothing more'],
    ['a bracket inside a bracket', 'emails[type[value eq "a"] eq "b"]', 'cannot hold another'],
    ['nine levels of parentheses', `${'('.repeat(9)}a eq 1${')'.repeat(9)}`, 'more than 8 levels'],
    ['thirty-three comparisons', Array.from({ length: 33 }, (_, i) => `a${i} eq 1`).join(' and '), 'more than 32 comparisons'],
    ['thirty-three comparisons joined by or', Array.from({ length: 33 }, (_, i) => `a${i} eq 1`).join(' or '), 'more than 32 comparisons'],
    ['thirty-three pr inside one value path', `emails[${Array.from({ length: 33 }, () => 'value pr').join(' or ')}]`, 'more than 32 comparisons'],
    ['nine levels of not', `${'not ('.repeat(9)}a eq 1${')'.repeat(9)}`, 'more than 8 levels'],
    ['a character outside the syntax', 'userName eq "a" & b eq 1', 'unexpected character at 17'],
    ['nothing', '', 'expected an attribute at the end'],
  ])('%s: 400 invalidFilter', (_name, text, detail) => {
    const error = refusal(() => parseFilter(text));
    expect([error.status, error.scimType]).toEqual([400, 'invalidFilter']);
    expect(error.message).toContain(detail);
  });

  test('eight levels of parentheses are read', () => {
    expect(parseFilter(`${'('.repeat(8)}a eq 1${')'.repeat(8)}`)).toEqual({ kind: 'compare', operator: 'eq', attribute: 'a', value: 1 });
  });

  test('a filter longer than the cap is refused before it is read', () => {
    const text = `userName eq "${'a'.repeat(MAX_FILTER_LENGTH)}"`;
    expect(refusal(() => parseFilter(text)).message).toBe(`the filter is longer than ${MAX_FILTER_LENGTH} characters`);
    expect(parseFilter(text.slice(0, MAX_FILTER_LENGTH - 1) + '"')).toMatchObject({ kind: 'compare' });
  });
});

describe('PATCH paths', () => {
  test.each([
    ['a simple attribute', 'active', { attribute: 'active' }],
    ['a sub-attribute', 'name.givenName', { attribute: 'name.givenName' }],
    // Entra ID: {"op":"Replace","path":"emails[type eq \"work\"].value",...}
    ['Entra ID\'s work email', 'emails[type eq "work"].value', { attribute: 'emails', filter: { kind: 'compare', operator: 'eq', attribute: 'type', value: 'work' }, sub: 'value' }],
    ['a value filter', 'roles[value eq "admin"]', { attribute: 'roles', filter: { kind: 'compare', operator: 'eq', attribute: 'value', value: 'admin' } }],
    ['an extension attribute', 'urn:ietf:params:scim:schemas:extension:authentication-asmx:2.0:User:extra.dept', { attribute: 'urn:ietf:params:scim:schemas:extension:authentication-asmx:2.0:User:extra.dept' }],
  ])('%s', (_name, text, expected) => {
    expect(parsePath(text)).toEqual(expected);
  });

  test.each([
    ['an unclosed bracket', 'emails[type eq "work"'],
    ['a path ending in a dot', 'emails[type eq "work"].'],
    ['two attributes', 'name givenName'],
    ['a filter alone', '[type eq "work"]'],
    ['a path longer than the cap', 'a'.repeat(MAX_PATH_LENGTH + 1)],
  ])('%s: 400 invalidPath', (_name, text) => {
    const error = refusal(() => parsePath(text));
    expect([error.status, error.scimType]).toEqual([400, 'invalidPath']);
  });

  test('the caller may word a bad path as another kind of error (a body key: invalidSyntax)', () => {
    expect(refusal(() => parsePath('my attribute', 'invalidSyntax')).scimType).toBe('invalidSyntax');
  });
});
