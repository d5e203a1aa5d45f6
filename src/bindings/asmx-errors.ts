import { CONTENT_TYPE, type AsmxResponse, type CacheControl } from './asmx-response.js';
import { errorPage } from './error-page.js';
import { envelope, faultXml } from './soap/faults.js';
import { SERVER_UNABLE, SOAP_CONTENT_TYPE, type FaultRole, type SoapVersion } from './soap/protocol.js';

/**
 * How one binding answers an error, after ASP.NET's ASMX:
 * - page: an HTML error page (ASP.NET's yellow screen, without its stack);
 * - text: the HTTP GET/POST bindings' text/plain message and a line end;
 * - empty: a SOAP status with no body (an XmlException read as a client fault);
 * - fault: a SOAP fault envelope, status 500. `prefixed` faults happened on the server side of .NET's
 *   dispatch and start with "Server was unable to process request. ---> ".
 */
export type ErrorWire =
  | { kind: 'page'; status: number }
  | { kind: 'text'; status: number; cache: CacheControl }
  | { kind: 'empty'; status: 400 | 415 }
  | { kind: 'fault'; role: FaultRole; prefixed: boolean; detail: boolean };

/** Where an error is answered: before a binding took the request (endpoint), or by one of the bindings. */
export type ErrorBinding = 'endpoint' | 'soap' | 'http';

interface ErrorDefinition {
  /** The exact text; .NET fills the placeholders ({0}, {1}) that Mono leaves empty. */
  text: (...args: string[]) => string;
  endpoint?: ErrorWire;
  soap?: ErrorWire;
  http?: ErrorWire;
}

const page = (status: number): ErrorWire => ({ kind: 'page', status });
const text = (status: number, cache: CacheControl = 'private'): ErrorWire => ({ kind: 'text', status, cache });
const empty = (status: 400 | 415): ErrorWire => ({ kind: 'empty', status });
const fault = (role: FaultRole, prefixed = false, detail = true): ErrorWire => ({ kind: 'fault', role, prefixed, detail });
/** What a service fault (the operation raised it) looks like: after the call began, never cached. */
const serviceFault = { soap: fault('server', true), http: text(500, 'private, max-age=0') } as const;

/**
 * Every error the endpoint answers, declared once: its text, and its wire shape on each binding it can
 * happen on. The service's own faults keep their texts in src/service/errors.ts and arrive here as the
 * message of the error the service raised.
 */
export const ASMX_ERRORS = {
  NOT_FOUND: { text: () => 'The resource cannot be found.', endpoint: page(404) },
  METHOD_NOT_ALLOWED: { text: () => 'Request format is unrecognized.', endpoint: page(405) },
  UNRECOGNIZED_URL: {
    text: (ending: string) => `Request format is unrecognized for URL unexpectedly ending in '${ending}'.`,
    endpoint: page(500),
    http: page(500),
  },
  SOAP_DISABLED: { text: () => 'Request format is unrecognized.', soap: page(500) },
  SCRIPT_SERVICE_REQUIRED: {
    text: () => 'Only Web services with a [ScriptService] attribute on the class definition can be called from script.',
    endpoint: page(500),
  },
  REQUEST_TOO_LARGE: { text: () => 'Maximum request length exceeded.', endpoint: page(413) },
  // IIS's answer for a Host no site binding names; here, a host ALLOWED_HOSTS does not list.
  INVALID_HOSTNAME: { text: () => 'Bad Request - Invalid Hostname', endpoint: page(400) },
  // ASP.NET's limit on form fields (aspnet:MaxHttpCollectionKeys) throws this InvalidOperationException.
  TOO_MANY_PARAMETERS: { text: () => 'Operation is not valid due to the current state of the object.', endpoint: page(500) },
  UNSUPPORTED_ENCODING: { text: () => 'Unsupported content encoding.', endpoint: page(415) },
  UNSUPPORTED_CHARSET: { text: () => 'Unsupported charset.', endpoint: page(415) },
  UNREADABLE_REQUEST: { text: () => 'The request could not be read.', endpoint: page(400) },
  INTERNAL_ERROR: {
    text: () => 'An internal error occurred; it has been logged.',
    endpoint: page(500),
    ...serviceFault,
  },

  NO_CONTENT_TYPE: { text: () => 'The request has no Content-Type.', soap: empty(415) },
  UNSUPPORTED_MEDIA_TYPE: { text: () => 'The Content-Type does not fit the SOAP version.', soap: empty(415) },
  MALFORMED_XML: { text: () => 'The request is not a readable XML document.', soap: empty(400) },
  SOAPACTION_UNRECOGNIZED: {
    text: (action: string) => `Server did not recognize the value of HTTP Header SOAPAction: ${action}.`,
    soap: fault('client'),
  },
  ACTION_UNRECOGNIZED: {
    text: (action: string) => `Unable to handle request. The action '${action}' was not recognized.`,
    soap: fault('client'),
  },
  ACTION_REQUIRED: {
    text: () => 'Unable to handle request without a valid action parameter. Please supply a valid soap action.',
    soap: fault('client'),
  },
  XML_ERROR: { text: (message: string) => message, soap: fault('server', true) },
  ENVELOPE_MISSING: { text: () => 'Request format is invalid: Missing required soap:Envelope element.', soap: fault('server', true) },
  BODY_MISSING: { text: () => 'Request format is invalid: Missing required soap:Body element.', soap: fault('server', true) },
  VERSION_MISMATCH: {
    text: (found: string, expected: string) => `Possible SOAP version mismatch: Envelope namespace ${found} was unexpected. Expecting ${expected}.`,
    soap: fault('versionMismatch'),
  },
  // ASMX sends no detail element with a MustUnderstand fault.
  MUST_UNDERSTAND: { text: (header: string) => `SOAP header ${header} was not understood.`, soap: fault('mustUnderstand', false, false) },

  UNKNOWN_METHOD: { text: (name: string) => `${name} Web Service method name is not valid.`, http: text(500) },
  METHOD_NAME_CASE: {
    text: (name: string, found: string) =>
      `Invalid method name &#39;${name}&#39;,  method names are case sensitive.   The method name &#39;${found}&#39; with the same name but different casing was found.\nParameter name: methodName`,
    http: text(500),
  },
  FORM_REQUIRED: { text: (contentType: string) => `Request format is invalid: ${contentType}.`, http: text(500) },
  MISSING_PARAMETER: { text: (name: string) => `Missing parameter: ${name}.`, http: text(500) },

  INVALID_SECURITY_PASSWORD: { text: (message: string) => message, ...serviceFault },
  // ASMX had no throttle: HTTP clients and proxies know 429 with Retry-After; SOAP keeps its fault status.
  CALLER_THROTTLED: { text: (message: string) => message, soap: fault('server', true), http: text(429, 'private, max-age=0') },
} as const satisfies Record<string, ErrorDefinition>;

export type AsmxErrorCode = keyof typeof ASMX_ERRORS;

/** The errors a binding can answer: those with a wire shape for it. */
export type ErrorOf<B extends ErrorBinding> = {
  [C in AsmxErrorCode]: (typeof ASMX_ERRORS)[C] extends Record<B, ErrorWire> ? C : never;
}[AsmxErrorCode];

/** The error and its arguments (the values of its text's placeholders). */
export interface AsmxError<C extends AsmxErrorCode = AsmxErrorCode> {
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

/** The response an error gets on a binding, exactly as ASMX writes it. */
export function errorResponse<B extends ErrorBinding>(binding: B, error: AsmxError<ErrorOf<B>>, options: AnswerOptions = {}): AsmxResponse {
  const definition: ErrorDefinition = ASMX_ERRORS[error.code];
  const wire = definition[binding];
  if (wire === undefined) throw new TypeError(`${error.code} has no wire shape on the ${binding} binding`);
  const message = definition.text(...(error.args ?? []));
  const version = options.version ?? '1.1';
  const response = render(wire, message, version, options);
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
        body: envelope(version, faultXml(version, wire.role, faultText(wire, message), wire.detail)),
        cacheControl: options.routed ? 'private, max-age=0' : 'private',
      };
  }
}

const faultText = (wire: ErrorWire & { kind: 'fault' }, message: string) => (wire.prefixed ? SERVER_UNABLE + message : message);

/** A SOAP fault's parts, for the faults node-soap writes (those the operation raised). */
export function soapFault(error: AsmxError<ErrorOf<'soap'>>): { role: FaultRole; text: string; detail: boolean } {
  const definition: ErrorDefinition = ASMX_ERRORS[error.code];
  const wire = definition.soap;
  if (wire?.kind !== 'fault') throw new TypeError(`${error.code} is not a SOAP fault`);
  return { role: wire.role, text: faultText(wire, definition.text(...(error.args ?? []))), detail: wire.detail };
}
