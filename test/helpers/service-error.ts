import { ServiceError } from '../../src/service/errors.js';

/** The ServiceError a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function serviceErrorOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected a ServiceError');
}
