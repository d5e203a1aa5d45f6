/**
 * A member as a SCIM User and back (src/provisioning/resource.ts, resource-writes.ts, member-draft.ts): the
 * attributes kept, the member extension, meta with its ETag, no password ever; POST and PUT bodies as Entra ID
 * and Okta send them.
 */
import { draftOf, fieldsOf } from '../../src/provisioning/member-draft.js';
import { userResource } from '../../src/provisioning/resource.js';
import { createdDraft, replacementDraft } from '../../src/provisioning/resource-writes.js';
import { MEMBER_EXTENSION, USER_SCHEMA } from '../../src/provisioning/urns.js';
import { ADA } from './members.js';
import { refusalOf } from './refusal.js';

const LOCATION = 'https://ams.example/scim/v2/Users/m-1';

describe('a member as a User', () => {
  // The extension shows every attribute but the roles, which are core.
  const { roles: _roles, ...membership } = ADA.attributes;

  test('every attribute kept, the extension, and meta with its weak ETag', () => {
    expect(userResource(ADA, LOCATION)).toEqual({
      schemas: [USER_SCHEMA, MEMBER_EXTENSION],
      id: 'm-1',
      externalId: 'ext-1',
      userName: 'ada',
      name: { formatted: 'Ada Lovelace', familyName: 'Lovelace', givenName: 'Ada' },
      displayName: 'Ada Lovelace',
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      active: true,
      roles: [{ value: 'r1', display: 'Reader' }],
      groups: [{ value: 'r1', display: 'Reader' }],
      [MEMBER_EXTENSION]: membership,
      meta: { resourceType: 'User', created: '2024-01-02T03:04:05.000Z', lastModified: '2024-06-06T07:08:09.000Z', location: LOCATION, version: 'W/"7"' },
    });
  });

  test('a bare member: no name, email, roles, externalId or extension; a stored displayName is shown as it is', () => {
    const bare = { ...ADA, externalId: null, email: '', firstName: '', lastName: '', attributes: {} };
    expect(userResource(bare, LOCATION)).toEqual({
      schemas: [USER_SCHEMA],
      id: 'm-1',
      userName: 'ada',
      active: true,
      meta: expect.any(Object),
    });
    expect(userResource({ ...ADA, displayName: 'The Countess' }, LOCATION).displayName).toBe('The Countess');
  });
});

describe('POST bodies', () => {
  test("Entra ID's create body (learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups)", () => {
    const draft = createdDraft({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    });
    expect(fieldsOf(draft)).toEqual({
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      username: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      email: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com',
      firstName: 'givenName',
      lastName: 'familyName',
      displayName: null,
      formattedName: null,
      enabled: true,
      attributes: {},
    });
  });

  test('name.formatted: kept as written; the given and family names joined are kept as none, and shown so', () => {
    const user = (formatted: string) => ({ userName: 'ada', name: { formatted, givenName: 'Ada', familyName: 'Lovelace' } });
    expect(fieldsOf(createdDraft(user('Augusta Ada King')))).toMatchObject({ formattedName: 'Augusta Ada King', firstName: 'Ada' });
    expect(fieldsOf(createdDraft(user('Ada Lovelace'))).formattedName).toBeNull();
    expect(userResource({ ...ADA, formattedName: 'Augusta Ada King' }, LOCATION).name).toEqual({ formatted: 'Augusta Ada King', familyName: 'Lovelace', givenName: 'Ada' });
  });

  test('the extension, a password, the title kept, and attributes the service does not keep (ignored)', () => {
    const fields = fieldsOf(
      createdDraft({
        userName: 'ada',
        password: 'correct horse',
        title: 'Countess',
        nickName: 'Ada',
        id: 'chosen-by-client',
        [MEMBER_EXTENSION]: { isMember: 'True', organisationName: 'Analytical Society', extra: { dept: 'Maths' } },
        roles: [{ value: 'r1', display: 'Reader', primary: true, type: 'WindowsAzureActiveDirectoryRole' }],
      }),
    );
    expect(fields).toEqual({
      externalId: null,
      username: 'ada',
      email: '',
      firstName: '',
      lastName: '',
      displayName: null,
      formattedName: null,
      enabled: true,
      password: 'correct horse',
      attributes: { isMember: true, organisationName: 'Analytical Society', roles: [{ id: 'r1', name: 'Reader' }], extra: { dept: 'Maths' }, profile: { title: 'Countess' } },
    });
  });

  test.each([
    ['no userName', {}, 'invalidValue', 'userName is required'],
    ['a blank userName', { userName: '  ' }, 'invalidValue', 'userName is required'],
    ['a body that is a list', [], 'invalidSyntax', 'a User is a JSON object'],
    ['a key that is no attribute name', { 'user name': 'ada' }, 'invalidSyntax', 'the path is not valid'],
  ])('%s: 400 %s', (_name, body, scimType, detail) => {
    expect(refusalOf(() => createdDraft(body))).toMatchObject({ status: 400, scimType, message: expect.stringContaining(detail) });
  });
});

describe('PUT bodies', () => {
  // Okta replaces the whole user it read, with active false to deactivate (developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20);
  // it sends back the core attributes it read, but need not know the extension.
  const okta = {
    schemas: [USER_SCHEMA],
    id: 'm-1',
    userName: 'ada',
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ primary: true, value: 'ada@example.com', type: 'work' }],
    displayName: 'Ada Lovelace',
    locale: 'en-US',
    externalId: 'ext-1',
    groups: [],
    roles: [{ value: 'r1', display: 'Reader' }],
    active: false,
  };

  test("Okta's deactivation: a whole User with active false; the extension, which Okta did not send, stays", () => {
    const fields = fieldsOf(replacementDraft(ADA, okta));
    expect(fields).toEqual({ ...fieldsOf(draftOf(ADA)), enabled: false, displayName: 'Ada Lovelace', attributes: { ...ADA.attributes, profile: { locale: 'en-US' } } });
  });

  test('attributes left out are cleared, except active and the password', () => {
    const fields = fieldsOf(replacementDraft(ADA, { userName: 'ada', [MEMBER_EXTENSION]: { isMember: false } }));
    expect(fields).toEqual({ externalId: null, username: 'ada', email: '', firstName: '', lastName: '', displayName: null, formattedName: null, enabled: true, attributes: { isMember: false } });
  });

  test('an extension named in schemas is replaced whole, even without attributes of its own', () => {
    expect(fieldsOf(replacementDraft(ADA, { ...okta, schemas: [USER_SCHEMA, MEMBER_EXTENSION.toUpperCase()] })).attributes).toEqual({ roles: ADA.attributes.roles, profile: { locale: 'en-US' } });
  });

  test("a PUT that restates the member gives the member's own fields, and no password", () => {
    const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, version: _version, ...own } = ADA;
    const same = { ...userResource(ADA, LOCATION), displayName: null };
    expect(fieldsOf(replacementDraft(ADA, same))).toStrictEqual(own);
    expect(fieldsOf(replacementDraft(ADA, { ...same, active: false }))).toStrictEqual({ ...own, enabled: false });
  });
});
