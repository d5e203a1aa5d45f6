/**
 * Attribute names are looked up as the service's own names only: every name of Object.prototype (`constructor`,
 * `__proto__`, `toString`, `hasOwnProperty`…), as written, in lower case and in upper case, and in every place a
 * name goes (a PATCH path, a key of a PATCH value, a PUT or POST body, a filter, `attributes`), is no attribute:
 * a PATCH naming it is refused with 400 invalidPath, a filter with 400 invalidFilter, a POST or PUT body's key is
 * ignored (or refused 400 when it is no attribute name at all, as `__proto__`, which starts with `_`), a projection
 * selects nothing. Never a TypeError, never a member changed by it.
 */
import { ScimError } from '../../src/provisioning/errors.js';
import { parseFilter } from '../../src/provisioning/filter-syntax.js';
import { draftOf, fieldsOf } from '../../src/provisioning/member-draft.js';
import { memberQueryOf } from '../../src/provisioning/member-query.js';
import { applyOperations, patchOperations } from '../../src/provisioning/patch.js';
import { project, projectionOf } from '../../src/provisioning/projection.js';
import { userResource } from '../../src/provisioning/resource.js';
import { createdDraft, replacementDraft } from '../../src/provisioning/resource-writes.js';
import { MEMBER_EXTENSION, PATCH_OP, USER_SCHEMA } from '../../src/provisioning/urns.js';
import { ADA } from './members.js';
import { refusalOf } from './refusal.js';

/** Every name Object.prototype has, as written, lower-cased and upper-cased (SCIM names ignore case). */
const NAMES = [...new Set(Object.getOwnPropertyNames(Object.prototype).flatMap((name) => [name, name.toLowerCase(), name.toUpperCase()]))];

/** Where a name goes in a PATCH path. */
const PATH_FORMS = [
  (name: string) => name,
  (name: string) => `name.${name}`,
  (name: string) => `${USER_SCHEMA}:${name}`,
  (name: string) => `${USER_SCHEMA}:name.${name}`,
  (name: string) => `${MEMBER_EXTENSION}:${name}`,
  (name: string) => `emails.${name}`,
  (name: string) => `emails[type eq "work"].${name}`,
  (name: string) => `roles[value eq "r1"].${name}`,
];

const CASES = NAMES.flatMap((name) => PATH_FORMS.map((form) => form(name)));

const body = (...operations: unknown[]) => JSON.parse(JSON.stringify({ schemas: [PATCH_OP], Operations: operations })) as unknown;

function patched(patch: unknown): unknown {
  const draft = draftOf(ADA);
  applyOperations(draft, patchOperations(patch));
  return fieldsOf(draft);
}

/** A value object as JSON.parse makes it: `__proto__` an own key, as in a request body. */
const object = (key: string, value: unknown) => JSON.parse(`{${JSON.stringify(key)}: ${JSON.stringify(value)}}`) as Record<string, unknown>;

test('the names are those of Object.prototype, constructor and __proto__ among them', () => {
  expect(NAMES).toEqual(expect.arrayContaining(['constructor', '__proto__', 'toString', 'tostring', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']));
});

test.each(CASES)('PATCH path %s: 400 invalidPath', (path) => {
  for (const op of ['add', 'replace', 'remove']) {
    const error = refusalOf(() => patched(body({ op, path, value: 'x' })));
    expect([op, error.status, error.scimType]).toEqual([op, 400, 'invalidPath']);
  }
});

test.each(NAMES)('a PATCH value keyed %s, at the resource, in name and in the extension: 400 invalidPath', (name) => {
  for (const value of [object(name, 'x'), { name: object(name, 'x') }, { [MEMBER_EXTENSION]: object(name, 'x') }]) {
    const error = refusalOf(() => patched(body({ op: 'replace', value })));
    expect([JSON.stringify(value), error.status, error.scimType]).toEqual([JSON.stringify(value), 400, 'invalidPath']);
  }
});

test.each(NAMES)('a POST or PUT body keyed %s: ignored, or 400 for a key that is no attribute name; in name or the extension, 400', (name) => {
  const user = (extra: Record<string, unknown>) => ({ userName: 'ada', ...extra });
  for (const write of [(b: unknown) => fieldsOf(createdDraft(b)), (b: unknown) => fieldsOf(replacementDraft(ADA, b))]) {
    const plain = write(user({}));
    try {
      expect(write(user(object(name, 'x')))).toEqual(plain);
    } catch (error) {
      expect(error).toBeInstanceOf(ScimError);
      expect([name, (error as ScimError).status, (error as ScimError).scimType]).toEqual([name, 400, 'invalidSyntax']);
      expect(name.startsWith('_')).toBe(true);
    }
    for (const nested of [{ name: object(name, 'x') }, { [MEMBER_EXTENSION]: object(name, 'x') }]) {
      const error = refusalOf(() => write(user(nested)));
      expect([name, error.status, error.scimType]).toEqual([name, 400, 'invalidSyntax']);
    }
  }
});

test.each(NAMES)('a filter on %s: 400 invalidFilter', (name) => {
  const filters = [`${name} eq "x"`, `name.${name} eq "x"`, `emails.${name} eq "x"`, `emails[${name} eq "x"]`, `${USER_SCHEMA}:${name} eq "x"`];
  for (const filter of filters) {
    const error = refusalOf(() => memberQueryOf(parseFilter(filter), {}));
    expect([filter, error.status, error.scimType]).toEqual([filter, 400, 'invalidFilter']);
  }
});

test.each(NAMES)('attributes=%s selects nothing but schemas and id; excludedAttributes=%s leaves the User whole', (name) => {
  const user = userResource(ADA, 'https://ams.example/scim/v2/Users/m-1');
  expect(project(user, projectionOf({ attributes: `${name},name.${name},${MEMBER_EXTENSION}:${name}` }))).toEqual({ schemas: user.schemas, id: user.id });
  expect(project(user, projectionOf({ excludedAttributes: `${name},name.${name}` }))).toEqual(user);
});

test('an extra attribute named constructor or __proto__ is an extra like any other, an own key of the extras', () => {
  const fields = patched(body({ op: 'add', path: `${MEMBER_EXTENSION}:extra`, value: object('__proto__', 'p') }, { op: 'add', path: `${MEMBER_EXTENSION}:extra.constructor`, value: 'c' })) as ReturnType<typeof fieldsOf>;
  const extra = fields.attributes.extra ?? {};
  expect(Object.entries(extra)).toEqual([...Object.entries(ADA.attributes.extra ?? {}), ['__proto__', 'p'], ['constructor', 'c']]);
  expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
});
