/** Reading a JSON body (src/provisioning/request-body.ts) and SCIM's error format (src/provisioning/errors.ts). */
import { errorBody, ScimError } from '../../src/provisioning/errors.js';
import { MAX_JSON_DEPTH, nestsAtMost, parseJsonBody } from '../../src/provisioning/request-body.js';
import { refused, refusalOf } from './refusal.js';

test('the nesting is counted outside strings only', () => {
  expect(nestsAtMost('{"a":[{"b":1}]}', 3)).toBe(true);
  expect(nestsAtMost('{"a":[{"b":1}]}', 2)).toBe(false);
  expect(nestsAtMost(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`, 1)).toBe(true);
  expect(nestsAtMost('[[[]]] [[[]]]', 3)).toBe(true);
});

test('a body is parsed when it is JSON nested at most MAX_JSON_DEPTH deep', () => {
  const deepest = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
  expect(parseJsonBody(deepest)).toBeInstanceOf(Array);
  expect(parseJsonBody(' {"userName":"ada"} ')).toEqual({ userName: 'ada' });
});

test.each([
  ['no body', undefined, 'the request has no JSON body'],
  ['a blank body', ' \n', 'the request has no JSON body'],
  ['one level too deep', '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1), `the body nests deeper than ${MAX_JSON_DEPTH} levels`],
  ['not JSON', '{"userName":', 'the body is not valid JSON'],
])('%s: 400 invalidSyntax', (_name, text, detail) => {
  expect(refusalOf(() => parseJsonBody(text))).toMatchObject(refused(400, 'invalidSyntax', detail));
});

test("SCIM's error format: status as a string, scimType when there is one", () => {
  expect(errorBody(new ScimError(409, 'uniqueness', 'another User has this userName'))).toEqual({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: '409',
    scimType: 'uniqueness',
    detail: 'another User has this userName',
  });
  expect(errorBody(new ScimError(404, undefined, 'no User has this id'))).toEqual({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: '404',
    detail: 'no User has this id',
  });
});
