import { CallerThrottledError, ServiceError } from '../service/errors.js';
import { StoreUnavailableError } from '../service/index.js';
import { CONTENT_TYPE, type AsmxResponse } from './asmx-response.js';
import { errorPage } from './error-page.js';
import { ERRORS, type AnsweredCode, type ErrorCode, type FaultCode } from './errors/catalogue.js';
import type { ErrorBinding, ErrorWire } from './errors/wire.js';
import { envelope, faultXml } from './soap/faults.js';
import { SERVER_UNABLE, SOAP_CONTENT_TYPE, type SoapVersion } from './soap/protocol.js';

/** The errors a binding can answer: those of the catalogue (src/bindings/errors/catalogue.ts) with a wire shape for it. */
export type ErrorOf<B extends ErrorBinding> = {
  [C in AnsweredCode]: (typeof ERRORS)[C] extends Record<B, ErrorWire> ? C : never;
}[AnsweredCode];

/** An error of the catalogue and its arguments (the values of its text's placeholders). */
export interface AsmxError<C extends ErrorCode = ErrorCode> {
  code: C;
  args?: string[];
  /** A throttled caller: sent as Retry-After. */
  retryAfterSeconds?: number;
}

export interface AnswerOptions {
  /** The SOAP version the request is answered in (SOAP only). */
  version?: SoapVersion;
  /** An operation had been chosen before the SOAP fault: ASMX then sends it as a result, never cached. */
  routed?: boolean;
  /** HEAD: every header of the full response, no body. */
  headOnly?: boolean;
}

/** The text of an error, its placeholders filled. */
export function errorText(error: AsmxError): string {
  const text: (...args: string[]) => string = ERRORS[error.code].text;
  return text(...(error.args ?? []));
}

/**
 * The response an error gets on a binding, exactly as ASMX writes it: the entry's wire shape for the binding,
 * with the entry's text. This is also the SOAP binding's one fault writer (its envelope from soap/faults.ts).
 */
export function errorResponse<B extends ErrorBinding>(binding: B, error: AsmxError<ErrorOf<B>>, options: AnswerOptions = {}): AsmxResponse {
  const wire: ErrorWire | undefined = (ERRORS[error.code] as Partial<Record<ErrorBinding, ErrorWire>>)[binding];
  if (wire === undefined) throw new TypeError(`${error.code} has no wire shape on the ${binding} binding`);
  const response = render(wire, errorText(error), options.version ?? '1.1', options);
  return error.retryAfterSeconds === undefined ? response : { ...response, retryAfterSeconds: error.retryAfterSeconds };
}

function render(wire: ErrorWire, message: string, version: SoapVersion, options: AnswerOptions): AsmxResponse {
  switch (wire.kind) {
    case 'page':
      return errorPage(wire.status, message, options.headOnly ?? false);
    case 'text':
      return { status: wire.status, contentType: CONTENT_TYPE.text, body: `${message}\n`, cacheControl: wire.cache };
    case 'empty':
      return { status: wire.status, contentType: SOAP_CONTENT_TYPE[version], body: '' };
    case 'fault':
      return {
        status: 500,
        contentType: SOAP_CONTENT_TYPE[version],
        body: envelope(version, faultXml(version, wire.role, wire.prefixed ? SERVER_UNABLE + message : message, wire.detail)),
        cacheControl: options.routed ? 'private, max-age=0' : 'private',
      };
  }
}

/**
 * The fault an operation's error is answered with: a service fault by its code (the catalogue says whether
 * its text is the caller's to read), the store unavailable as such, anything else as an internal error. `error` is kept for the call log
 * when the fault's outcome is `error`, which the log records with its message.
 */
export function faultOf(error: unknown): { fault: AsmxError<FaultCode>; error?: unknown } {
  if (error instanceof StoreUnavailableError) return { fault: { code: 'STORE_UNAVAILABLE' } };
  if (!(error instanceof ServiceError)) return { fault: { code: 'INTERNAL_ERROR' }, error };
  const retry = error instanceof CallerThrottledError ? { retryAfterSeconds: error.retryAfterSeconds } : {};
  const fault: AsmxError<FaultCode> = { code: error.code, args: [error.message], ...retry };
  return ERRORS[error.code].outcome === 'error' ? { fault, error } : { fault };
}
