import { ERROR_MESSAGE } from './urns.js';

/** The scimType words of RFC 7644 §3.12 this service answers with. */
export type ScimType = 'invalidFilter' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue';

/** A refusal, answered in SCIM's error format; `message` is its detail, which never holds a secret. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType | undefined,
    detail: string,
  ) {
    super(detail);
    this.name = 'ScimError';
  }
}

export const badRequest = (scimType: ScimType, detail: string) => new ScimError(400, scimType, detail);

export interface ScimErrorBody {
  schemas: [typeof ERROR_MESSAGE];
  /** A string, as RFC 7644 §3.12 has it. */
  status: string;
  scimType?: ScimType;
  detail: string;
}

export function errorBody(error: ScimError): ScimErrorBody {
  return {
    schemas: [ERROR_MESSAGE],
    status: String(error.status),
    ...(error.scimType === undefined ? {} : { scimType: error.scimType }),
    detail: error.message,
  };
}
