/**
 * PATCH on a member (src/provisioning/patch.ts, multi-values.ts, targets.ts): RFC 7644 §3.5.2, and what Entra ID
 * and Okta really send, as their documentation shows it:
 * - Entra ID: learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups (request
 *   examples) and …/application-provisioning-config-problem-scim-compatibility ("Known issues and resolutions":
 *   capitalised ops, booleans as "True"/"False", path-less values whose keys are paths with the
 *   aadOptscim062020 flag); learn.microsoft.com/answers/questions/1684621 (Add of `emails[type eq "work"].value`).
 * - Okta: developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20 (`{"op":"replace","value":{"active":false}}`).
 */
import { draftOf, fieldsOf } from '../../src/provisioning/member-draft.js';
import { MAX_VALUES } from '../../src/provisioning/multi-values.js';
import { applyOperations, MAX_OPERATIONS, MAX_VALUE_FILTERS, patchOperations } from '../../src/provisioning/patch.js';
import type { MemberFields, ProvisionedMember } from '../../src/provisioning/port.js';
import { MEMBER_EXTENSION, PATCH_OP } from '../../src/provisioning/urns.js';
import { ADA as FULL_ADA } from './members.js';
import { refusalOf as refusal } from './refusal.js';


/** Ada with fewer attributes: what the operations change stands out. */
const ADA: ProvisionedMember = {
  ...FULL_ADA,
  version: 3,
  attributes: { isMember: true, organisationId: 'O-1', roles: [{ id: 'r1', name: 'Reader' }], extra: { dept: 'Maths' } },
};

/** The member's fields after a PATCH body. */
function patched(body: unknown, member: ProvisionedMember = ADA): MemberFields {
  const draft = draftOf(member);
  applyOperations(draft, patchOperations(body));
  return fieldsOf(draft);
}

const operations = (...ops: unknown[]) => ({ schemas: [PATCH_OP], Operations: ops });
const unchanged: MemberFields = fieldsOf(draftOf(ADA));

describe('Entra ID', () => {
  test('capitalised ops: Replace of the work email and of the family name', () => {
    const fields = patched(
      operations({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'ada@new.example' }, { op: 'Replace', path: 'name.familyName', value: 'King' }),
    );
    expect(fields).toEqual({ ...unchanged, email: 'ada@new.example', lastName: 'King' });
  });

  test('Add of emails[type eq "work"].value gives a member without an email that one', () => {
    const fields = patched(operations({ op: 'Add', path: 'emails[type eq "work"].value', value: 'ada@example.com' }), { ...ADA, email: '' });
    expect(fields.email).toBe('ada@example.com');
  });

  test('Replace of emails[type eq "work"].value works on a member without an email too', () => {
    expect(patched(operations({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'a@b.c' }), { ...ADA, email: '' }).email).toBe('a@b.c');
  });

  test('active as the strings "False" and "True" (without the aadOptscim062020 flag)', () => {
    expect(patched(operations({ op: 'Replace', path: 'active', value: 'False' })).enabled).toBe(false);
    expect(patched(operations({ op: 'Replace', path: 'active', value: 'True' }), { ...ADA, enabled: false }).enabled).toBe(true);
  });

  test('a path-less Replace whose keys are paths: dotted names and a value path', () => {
    const fields = patched(operations({ op: 'Replace', value: { active: false, 'name.givenName': 'Augusta' } }));
    expect(fields).toEqual({ ...unchanged, enabled: false, firstName: 'Augusta' });
  });

  test('the aadOptscim062020 form: many attributes in one path-less replace, the enterprise extension kept', () => {
    const fields = patched(
      operations({
        op: 'replace',
        value: {
          displayName: 'Pvlo',
          'emails[type eq "work"].value': 'TestBcwqnm@test.microsoft.com',
          'name.givenName': 'Gtfd',
          'name.familyName': 'Pkqf',
          externalId: 'Eqpj',
          'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber': 'Eqpj',
        },
      }),
    );
    expect(fields).toEqual({
      ...unchanged,
      displayName: 'Pvlo',
      email: 'TestBcwqnm@test.microsoft.com',
      firstName: 'Gtfd',
      lastName: 'Pkqf',
      externalId: 'Eqpj',
      attributes: { ...unchanged.attributes, profile: { employeeNumber: 'Eqpj' } },
    });
  });

  test('its default mapping: title, the work address and phone by filtered paths, the department kept; a middle name and a manager ignored', () => {
    const fields = patched(
      operations(
        { op: 'Add', path: 'title', value: 'Countess' },
        { op: 'Replace', path: 'addresses[type eq "work"].formatted', value: '1 Street' },
        { op: 'Replace', path: 'phoneNumbers[type eq "work"].value', value: '123' },
        { op: 'Replace', path: 'name.middleName', value: 'Augusta' },
        { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'Maths' },
        { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager', value: { value: 'm-9' } },
        { op: 'Replace', path: 'addresses[type eq "work"].locality', value: 'London' },
      ),
    );
    expect(fields).toEqual({
      ...unchanged,
      attributes: {
        ...unchanged.attributes,
        profile: { title: 'Countess', addresses: [{ type: 'work', formatted: '1 Street', locality: 'London' }], phoneNumbers: [{ type: 'work', value: '123' }], department: 'Maths' },
      },
    });
  });

  test('a boolean filter written as the string "True"', () => {
    expect(patched(operations({ op: 'Replace', path: 'emails[primary eq "True"].value', value: 'a@b.c' })).email).toBe('a@b.c');
  });

  test('Remove of a role by a value list, as Entra ID removes group members', () => {
    const member = { ...ADA, attributes: { ...ADA.attributes, roles: [{ id: 'r1', name: 'Reader' }, { id: 'r2', name: 'Writer' }] } };
    const fields = patched(operations({ op: 'Remove', path: 'roles', value: [{ value: 'R1' }] }), member);
    expect(fields.attributes.roles).toEqual([{ id: 'r2', name: 'Writer' }]);
  });
});

describe('Okta', () => {
  test('deactivation: {"op":"replace","value":{"active":false}}', () => {
    expect(patched(operations({ op: 'replace', value: { active: false } }))).toEqual({ ...unchanged, enabled: false });
  });

  test('a name change with a path-less complex value leaves the other name parts', () => {
    expect(patched(operations({ op: 'replace', value: { name: { givenName: 'Augusta' } } }))).toEqual({ ...unchanged, firstName: 'Augusta' });
  });
});

describe('RFC 7644 forms', () => {
  test('replace of name merges its sub-attributes; remove of one clears it', () => {
    expect(patched(operations({ op: 'replace', path: 'name', value: { familyName: 'King' } }))).toMatchObject({ firstName: 'Ada', lastName: 'King' });
    expect(patched(operations({ op: 'remove', path: 'name.familyName' }))).toMatchObject({ firstName: 'Ada', lastName: '' });
    expect(patched(operations({ op: 'remove', path: 'name' }))).toMatchObject({ firstName: '', lastName: '' });
  });

  test('name.formatted: set as written, unassigned by remove; the given and family names joined are none', () => {
    expect(patched(operations({ op: 'replace', path: 'name.formatted', value: 'Augusta Ada King' })).formattedName).toBe('Augusta Ada King');
    expect(patched(operations({ op: 'replace', path: 'name.formatted', value: 'Ada Lovelace' })).formattedName).toBeNull();
    const countess = { ...ADA, formattedName: 'The Countess' };
    expect(patched(operations({ op: 'remove', path: 'name.formatted' }), countess).formattedName).toBeNull();
    expect(patched(operations({ op: 'replace', path: 'name.givenName', value: 'Augusta' }), countess)).toMatchObject({ firstName: 'Augusta', formattedName: 'The Countess' });
  });

  test('displayName and externalId: set, and unassigned by remove or null', () => {
    expect(patched(operations({ op: 'add', path: 'displayName', value: 'The Countess' })).displayName).toBe('The Countess');
    expect(patched(operations({ op: 'remove', path: 'externalId' })).externalId).toBeNull();
    expect(patched(operations({ op: 'replace', path: 'externalId', value: null })).externalId).toBeNull();
  });

  test('roles: add appends, a repeated id keeps its place and takes the new name; replace sets the list', () => {
    const added = patched(operations({ op: 'add', path: 'roles', value: [{ value: 'r2', display: 'Writer' }, { value: 'r1', display: 'Reviewer' }] }));
    expect(added.attributes.roles).toEqual([{ id: 'r1', name: 'Reviewer' }, { id: 'r2', name: 'Writer' }]);
    const replaced = patched(operations({ op: 'replace', path: 'roles', value: [{ value: 'r9' }] }));
    expect(replaced.attributes.roles).toEqual([{ id: 'r9', name: 'r9' }]);
  });

  test('roles: a filtered sub-attribute, a filtered remove, and a remove of all', () => {
    expect(patched(operations({ op: 'replace', path: 'roles[value eq "r1"].display', value: 'Editor' })).attributes.roles).toEqual([{ id: 'r1', name: 'Editor' }]);
    expect(patched(operations({ op: 'remove', path: 'roles[value eq "r1"]' })).attributes.roles).toBeUndefined();
    expect(patched(operations({ op: 'remove', path: 'roles' })).attributes.roles).toBeUndefined();
  });

  test('emails: replace of the list sets the one address; remove clears it', () => {
    const fields = patched(operations({ op: 'replace', path: 'emails', value: [{ value: 'work@x.y', type: 'work', primary: true }] }));
    expect(fields.email).toBe('work@x.y');
    expect(patched(operations({ op: 'replace', path: 'emails', value: [{ value: 'bare@x.y' }] })).email).toBe('bare@x.y');
    expect(patched(operations({ op: 'remove', path: 'emails[type eq "work"]' })).email).toBe('');
    expect(patched(operations({ op: 'remove', path: 'emails' })).email).toBe('');
  });

  test('a password is set by replace and removed by remove; it is a field of its own', () => {
    expect(patched(operations({ op: 'replace', path: 'password', value: 'correct horse' })).password).toBe('correct horse');
    expect(patched(operations({ op: 'remove', path: 'password' })).password).toBeNull();
    expect(unchanged).not.toHaveProperty('password');
  });

  test('the extension: by path, as a path-less object, its extras one by one', () => {
    const ext = (name: string) => `${MEMBER_EXTENSION}:${name}`;
    expect(patched(operations({ op: 'replace', path: ext('contactNumber'), value: 'C-42' })).attributes).toMatchObject({ contactNumber: 'C-42', organisationId: 'O-1' });
    expect(patched(operations({ op: 'replace', path: ext('isMember'), value: 'False' })).attributes.isMember).toBe(false);
    const fields = patched(operations({ op: 'add', value: { [MEMBER_EXTENSION]: { priceLevelName: 'Gold', extra: { Floor: '3' } } } }));
    expect(fields.attributes).toEqual({ ...ADA.attributes, priceLevelName: 'Gold', extra: { dept: 'Maths', Floor: '3' } });
    expect(patched(operations({ op: 'remove', path: ext('extra.dept') })).attributes.extra).toBeUndefined();
    expect(patched(operations({ op: 'remove', path: ext('organisationId') })).attributes).not.toHaveProperty('organisationId');
    expect(patched(operations({ op: 'remove', path: MEMBER_EXTENSION })).attributes).toEqual({ roles: ADA.attributes.roles });
  });

  test('the schemas and Operations keys, the PatchOp URN and the member names of an operation in any case', () => {
    expect(patched({ SCHEMAS: [PATCH_OP.toUpperCase()], operations: [{ OP: 'REPLACE', PATH: 'displayName', VALUE: 'X' }] }).displayName).toBe('X');
  });

  test('read-only attributes in a path-less value are skipped', () => {
    expect(patched(operations({ op: 'replace', value: { id: 'other', meta: {}, schemas: [], displayName: 'X' } }))).toEqual({ ...unchanged, displayName: 'X' });
  });
});

describe('refusals', () => {
  test.each([
    ['an op of another name', operations({ op: 'move', path: 'active', value: true }), 'invalidSyntax', 'operation 1: "op" is add, replace or remove'],
    ['no schemas', { Operations: [{ op: 'replace', path: 'active', value: true }] }, 'invalidSyntax', `"schemas" lists ${PATCH_OP}`],
    ['schemas without PatchOp', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], Operations: [{ op: 'replace', path: 'active', value: true }] }, 'invalidSyntax', `"schemas" lists ${PATCH_OP}`],
    ['schemas that is not a list', { schemas: PATCH_OP, Operations: [{ op: 'replace', path: 'active', value: true }] }, 'invalidSyntax', `"schemas" lists ${PATCH_OP}`],
    ['no Operations', { schemas: [PATCH_OP] }, 'invalidSyntax', 'a PATCH body has a list of Operations'],
    ['an empty list', operations(), 'invalidSyntax', 'a PATCH body has a list of Operations'],
    ['an operation that is not an object', operations('replace'), 'invalidSyntax', 'operation 1 is not an object'],
    ['replace without a value', operations({ op: 'replace', path: 'active' }), 'invalidSyntax', 'replace needs a value'],
    ['remove without a path', operations({ op: 'remove', value: { active: false } }), 'noTarget', 'remove needs a path'],
    ['a path that is not a string', operations({ op: 'replace', path: 5, value: 1 }), 'invalidPath', '"path" is a string'],
    ['an unknown sub-attribute of name', operations({ op: 'replace', path: 'name.nickName', value: 'A' }), 'invalidPath', 'name has no sub-attribute "nickName"'],
    ['a sub-attribute of a simple attribute', operations({ op: 'replace', path: 'userName.first', value: 'A' }), 'invalidPath', 'userName has no sub-attribute "first"'],
    ['an unknown sub-attribute of emails', operations({ op: 'replace', path: 'emails[type eq "work"].country', value: 'A' }), 'invalidPath', 'emails has no sub-attribute "country"'],
    ['a sub-attribute emails do not keep', operations({ op: 'replace', path: 'emails[type eq "work"].display', value: 'Work' }), 'invalidPath', 'emails has no sub-attribute "display"'],
    ['a sub-attribute roles do not keep', operations({ op: 'replace', path: 'roles[value eq "r1"].primary', value: true }), 'invalidPath', 'roles has no sub-attribute "primary"'],
    ['a filter on a sub-attribute roles do not keep', operations({ op: 'remove', path: 'roles[type eq "x"]' }), 'invalidFilter', 'roles has no sub-attribute "type"'],
    ['a filter on a simple attribute', operations({ op: 'replace', path: 'displayName[value eq "x"]', value: 'A' }), 'invalidPath', 'only emails and roles take a filter'],
    ['a filter on an unknown sub-attribute', operations({ op: 'remove', path: 'roles[colour eq "red"]' }), 'invalidFilter', 'roles has no sub-attribute "colour"'],
    ['an unknown extension attribute', operations({ op: 'replace', path: `${MEMBER_EXTENSION}:shoeSize`, value: '9' }), 'invalidPath', 'the member extension has no attribute "shoeSize"'],
    ['a malformed key in a path-less value', operations({ op: 'replace', value: { 'emails[type eq "work"': 'x' } }), 'invalidPath', 'the path is not valid'],
    ['replace of id', operations({ op: 'replace', path: 'id', value: 'other' }), 'mutability', 'id is read-only'],
    ['replace of meta', operations({ op: 'replace', path: 'meta.created', value: 'x' }), 'mutability', 'meta is read-only'],
    ['remove of userName', operations({ op: 'remove', path: 'userName' }), 'mutability', 'userName cannot be removed'],
    ['remove of active', operations({ op: 'remove', path: 'active' }), 'mutability', 'active cannot be removed'],
    ['a userName that is not a string', operations({ op: 'replace', path: 'userName', value: 5 }), 'invalidValue', 'userName takes a string'],
    ['active that is not a boolean', operations({ op: 'replace', path: 'active', value: 'yes' }), 'invalidValue', 'active takes true or false'],
    ['a path-less value that is not an object', operations({ op: 'replace', value: 'x' }), 'invalidValue', 'a value without a path is an object of attributes'],
    ['name that is not an object', operations({ op: 'replace', path: 'name', value: 'Ada' }), 'invalidValue', 'name takes an object'],
    ['two email addresses', operations({ op: 'replace', path: 'emails', value: [{ value: 'home@x.y', type: 'home' }, { value: 'work@x.y', type: 'work', primary: true }] }), 'invalidValue', 'one email address here, not 2'],
    ['a second email address added', operations({ op: 'add', path: 'emails', value: [{ value: 'new@x.y', type: 'work', primary: true }] }), 'invalidValue', 'one email address here, not 2'],
    ['an email address of another type', operations({ op: 'replace', path: 'emails', value: [{ value: 'home@x.y', type: 'home' }] }), 'invalidValue', 'of type work, not "home"'],
    ['an email address that is not primary', operations({ op: 'replace', path: 'emails[type eq "work"].primary', value: false }), 'invalidValue', 'the email address is the primary one'],
    ['a role that is not an object', operations({ op: 'add', path: 'roles', value: ['r1'] }), 'invalidValue', 'a value of roles is an object'],
    [`more than ${MAX_OPERATIONS} operations`, operations(...Array.from({ length: MAX_OPERATIONS + 1 }, () => ({ op: 'replace', path: 'active', value: true }))), 'invalidSyntax', `at most ${MAX_OPERATIONS} operations`],
    [`more than ${MAX_VALUES} roles`, operations({ op: 'add', path: 'roles', value: Array.from({ length: MAX_VALUES }, (_, i) => ({ value: `x${i}` })) }), 'invalidValue', `roles holds at most ${MAX_VALUES} values`],
    [
      `more than ${MAX_VALUE_FILTERS} value filters, counting the keys of path-less values`,
      operations(...Array.from({ length: 2 }, () => ({ op: 'replace', value: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`roles[value eq "r${i}"].display`, 'x'])) }))),
      'invalidSyntax',
      `a request applies at most ${MAX_VALUE_FILTERS} value filters`,
    ],
  ])('%s: 400 %s', (_name, body, scimType, detail) => {
    const error = refusal(() => patched(body));
    expect([error.status, error.scimType]).toEqual([400, scimType]);
    expect(error.message).toContain(detail);
  });

  test('a body that is not an object', () => {
    expect(refusal(() => patchOperations([])).message).toBe('a PATCH body is a JSON object');
  });
});
