import { ScimError } from '../../src/provisioning/errors.js';

/** The ScimError a call throws; fails the test when it throws nothing or something else. */
export function refusalOf(call: () => unknown): ScimError {
  try {
    call();
  } catch (error) {
    if (error instanceof ScimError) return error;
    throw error;
  }
  throw new Error('expected a ScimError, and nothing was thrown');
}

/** What a refusal should be: its status, scimType and detail. */
export function refused(status: number, scimType: ScimError['scimType'], detail: string) {
  return { status, scimType, message: detail };
}

/** An answer over HTTP, as supertest or fetch gives it. */
interface Answer {
  status: number;
  headers: Headers | Record<string, string>;
  body: unknown;
}

/** A SCIM error answer: the status, the SCIM media type, and an Error message with that status and scimType. */
export function expectScimError(answer: Answer, status: number, scimType?: string): void {
  const contentType = answer.headers instanceof Headers ? answer.headers.get('content-type') : answer.headers['content-type'];
  expect({ status: answer.status, contentType }).toEqual({ status, contentType: 'application/scim+json; charset=utf-8' });
  expect(answer.body).toEqual({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: String(status),
    ...(scimType ? { scimType } : {}),
    detail: expect.any(String),
  });
}
