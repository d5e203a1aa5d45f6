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
