/** `attributes` and `excludedAttributes` (src/provisioning/projection.ts, RFC 7644 §3.4.2.5). */
import { project, projectionOf } from '../../src/provisioning/projection.js';
import { MEMBER_EXTENSION, USER_SCHEMA } from '../../src/provisioning/urns.js';
import { refused, refusalOf } from './refusal.js';

const USER = {
  schemas: [USER_SCHEMA, MEMBER_EXTENSION],
  id: 'm-1',
  userName: 'ada',
  name: { formatted: 'Ada Lovelace', familyName: 'Lovelace', givenName: 'Ada' },
  emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
  active: true,
  [MEMBER_EXTENSION]: { organisationId: 'O-1', extra: { dept: 'Maths', Floor: '3' } },
  meta: { resourceType: 'User', version: 'W/"1"' },
};

test('no parameter: the whole resource', () => {
  expect(project(USER, projectionOf({}))).toBe(USER);
});

test('attributes: schemas and id always, then what is named, sub-attributes and URN-qualified names included', () => {
  const projection = projectionOf({ attributes: `userName, NAME.givenName,emails.value,${USER_SCHEMA}:active,${MEMBER_EXTENSION}:extra.floor` });
  expect(project(USER, projection)).toEqual({
    schemas: USER.schemas,
    id: 'm-1',
    userName: 'ada',
    name: { givenName: 'Ada' },
    emails: [{ value: 'ada@example.com' }],
    active: true,
    [MEMBER_EXTENSION]: { extra: { Floor: '3' } },
  });
});

test('attributes naming the extension: all of it', () => {
  expect(project(USER, projectionOf({ attributes: MEMBER_EXTENSION }))).toEqual({ schemas: USER.schemas, id: 'm-1', [MEMBER_EXTENSION]: USER[MEMBER_EXTENSION] });
});

test('excludedAttributes: everything else; id and schemas cannot be excluded; an emptied object goes', () => {
  const projection = projectionOf({ excludedAttributes: 'id,schemas,emails,meta,name.givenName,name.familyName,name.formatted,urn:example:unknown' });
  expect(project(USER, projection)).toEqual({ schemas: USER.schemas, id: 'm-1', userName: 'ada', active: true, [MEMBER_EXTENSION]: USER[MEMBER_EXTENSION] });
});

test('with both, attributes rules', () => {
  expect(project(USER, projectionOf({ attributes: 'userName', excludedAttributes: 'userName' }))).toEqual({ schemas: USER.schemas, id: 'm-1', userName: 'ada' });
});

test.each([
  ['given twice', { attributes: ['userName', 'id'] }, 'attributes is given once'],
  ['too long', { excludedAttributes: 'a,'.repeat(2049) }, 'excludedAttributes is longer than 4096 characters'],
])('a parameter %s: 400 invalidValue', (_name, query, detail) => {
  expect(refusalOf(() => projectionOf(query))).toMatchObject(refused(400, 'invalidValue', detail));
});
