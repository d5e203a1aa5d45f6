import type { ServiceErrorCode } from '../../service/errors.js';
import { STORE_UNAVAILABLE_TEXT } from '../../web/unavailable-text.js';
import { empty, fault, page, text, type ErrorWire } from './wire.js';

/**
 * What every error has: its exact text, and the word the call log records a call that ended in it with (the
 * metrics label is that word with _ for -; src/bindings/call-log.ts). The text's arguments fill its
 * placeholders, as .NET fills the {0} and {1} that Mono leaves empty.
 */
interface Entry {
  text: (...args: string[]) => string;
  outcome: string;
}

/** An error answered in place of a result: its wire shape on each binding it can happen on. */
interface AnsweredEntry extends Entry {
  endpoint?: ErrorWire;
  soap?: ErrorWire;
  http?: ErrorWire;
}

/** A fault an operation raised: SOAP and HTTP GET/POST both call operations, so it has a shape on both. */
interface FaultEntry extends AnsweredEntry {
  soap: ErrorWire & { kind: 'fault' };
  http: ErrorWire;
}

/** An error inside the result string (HTTP 200), with its number; each result format writes it (src/bindings/result/in-band-errors.ts). */
interface InBandEntry extends Entry {
  number: number;
}

/** A request that never reached an operation: logged with its code (refused:<CODE>), counted as refused. */
const refused = 'refused';
/** How a service fault (the operation raised it) is answered: after the call began, never cached. */
const serviceFault = { soap: fault('server', true), http: text(500, 'private, max-age=0') } as const;
/** A fault the caller is told: the service's own text (src/service/errors.ts), the message of the error it raised. */
const serviceText = (message: string) => message;
/** A fault the caller is not told about: answered without its text, which the log keeps with the outcome `error`. */
const internal = { text: () => 'An internal error occurred; it has been logged.', outcome: 'error', ...serviceFault } as const;

/**
 * Every error the endpoint answers or reports, declared once: the ASMX protocol errors, every service fault
 * (src/service/errors.ts declares their codes and texts; each must have an entry here, with its wire shapes)
 * and the in-band errors of the result string. The bindings only name the error (src/bindings/asmx-errors.ts
 * and src/bindings/result/in-band-errors.ts write it); test/bindings/errors-catalogue.test.ts brings each about.
 */
export const ERRORS = {
  NOT_FOUND: { text: () => 'The resource cannot be found.', outcome: refused, endpoint: page(404) },
  METHOD_NOT_ALLOWED: { text: () => 'Request format is unrecognized.', outcome: refused, endpoint: page(405) },
  UNRECOGNIZED_URL: {
    text: (ending: string) => `Request format is unrecognized for URL unexpectedly ending in '${ending}'.`,
    outcome: refused,
    endpoint: page(500),
    http: page(500),
  },
  SOAP_DISABLED: { text: () => 'Request format is unrecognized.', outcome: refused, soap: page(500) },
  SCRIPT_SERVICE_REQUIRED: {
    text: () => 'Only Web services with a [ScriptService] attribute on the class definition can be called from script.',
    outcome: refused,
    endpoint: page(500),
  },
  REQUEST_TOO_LARGE: { text: () => 'Maximum request length exceeded.', outcome: refused, endpoint: page(413) },
  // IIS's answer for a Host no site binding names; here, a host ALLOWED_HOSTS does not list.
  INVALID_HOSTNAME: { text: () => 'Bad Request - Invalid Hostname', outcome: refused, endpoint: page(400) },
  // ASP.NET's limit on form fields (aspnet:MaxHttpCollectionKeys) throws this InvalidOperationException.
  TOO_MANY_PARAMETERS: { text: () => 'Operation is not valid due to the current state of the object.', outcome: refused, endpoint: page(500) },
  UNSUPPORTED_ENCODING: { text: () => 'Unsupported content encoding.', outcome: refused, endpoint: page(415) },
  UNSUPPORTED_CHARSET: { text: () => 'Unsupported charset.', outcome: refused, endpoint: page(415) },
  UNREADABLE_REQUEST: { text: () => 'The request could not be read.', outcome: refused, endpoint: page(400) },

  NO_CONTENT_TYPE: { text: () => 'The request has no Content-Type.', outcome: refused, soap: empty(415) },
  UNSUPPORTED_MEDIA_TYPE: { text: () => 'The Content-Type does not fit the SOAP version.', outcome: refused, soap: empty(415) },
  MALFORMED_XML: { text: () => 'The request is not a readable XML document.', outcome: refused, soap: empty(400) },
  SOAPACTION_UNRECOGNIZED: {
    text: (action: string) => `Server did not recognize the value of HTTP Header SOAPAction: ${action}.`,
    outcome: refused,
    soap: fault('client'),
  },
  ACTION_UNRECOGNIZED: {
    text: (action: string) => `Unable to handle request. The action '${action}' was not recognized.`,
    outcome: refused,
    soap: fault('client'),
  },
  ACTION_REQUIRED: {
    text: () => 'Unable to handle request without a valid action parameter. Please supply a valid soap action.',
    outcome: refused,
    soap: fault('client'),
  },
  XML_ERROR: { text: (message: string) => message, outcome: refused, soap: fault('server', true) },
  ENVELOPE_MISSING: { text: () => 'Request format is invalid: Missing required soap:Envelope element.', outcome: refused, soap: fault('server', true) },
  BODY_MISSING: { text: () => 'Request format is invalid: Missing required soap:Body element.', outcome: refused, soap: fault('server', true) },
  VERSION_MISMATCH: {
    text: (found: string, expected: string) => `Possible SOAP version mismatch: Envelope namespace ${found} was unexpected. Expecting ${expected}.`,
    outcome: refused,
    soap: fault('versionMismatch'),
  },
  // ASMX sends no detail element with a MustUnderstand fault.
  MUST_UNDERSTAND: { text: (header: string) => `SOAP header ${header} was not understood.`, outcome: refused, soap: fault('mustUnderstand', false, false) },

  UNKNOWN_METHOD: { text: (name: string) => `${name} Web Service method name is not valid.`, outcome: refused, http: text(500) },
  METHOD_NAME_CASE: {
    text: (name: string, found: string) =>
      `Invalid method name &#39;${name}&#39;,  method names are case sensitive.   The method name &#39;${found}&#39; with the same name but different casing was found.\nParameter name: methodName`,
    outcome: refused,
    http: text(500),
  },
  FORM_REQUIRED: { text: (contentType: string) => `Request format is invalid: ${contentType}.`, outcome: refused, http: text(500) },
  MISSING_PARAMETER: { text: (name: string) => `Missing parameter: ${name}.`, outcome: refused, http: text(500) },

  // Anything an operation or a route threw that is not a service fault; an unhandled error on the endpoint.
  INTERNAL_ERROR: { ...internal, endpoint: page(500) },
  // The store cannot be written (a full disk, a read-only or locked database): the caller's to try again later, the
  // operator's to fix, whom the store's watcher tells once per burst (src/ops/store-availability.ts), not each call.
  // SOAP keeps ASMX's server fault; HTTP GET/POST answer 503, which proxies and clients read as a passing condition.
  STORE_UNAVAILABLE: {
    text: () => STORE_UNAVAILABLE_TEXT,
    outcome: 'unavailable',
    soap: fault('server', true),
    http: text(503, 'private, max-age=0'),
  },
  // The service faults, by their codes in src/service/errors.ts.
  INVALID_SECURITY_PASSWORD: { text: serviceText, outcome: 'invalid-security-password', ...serviceFault },
  // ASMX had no throttle: HTTP clients and proxies know 429 with Retry-After; SOAP keeps its fault status.
  CALLER_THROTTLED: { text: serviceText, outcome: 'throttled', soap: fault('server', true), http: text(429, 'private, max-age=0') },
  // The deployment's own errors (the admin CLI's, the start's): raised by an operation, one would be a bug.
  CALLER_EXISTS: internal,
  CALLER_NOT_FOUND: internal,
  CALLER_ORIGIN_NOT_FOUND: internal,
  CALLER_PASSWORD_TOO_SHORT: internal,
  MEMBER_EXISTS: internal,
  MEMBER_NOT_FOUND: internal,
  MEMBER_DISABLED: internal,
  MEMBER_CHANGED: internal,
  MEMBER_INVALID: internal,
  MEMBER_PASSWORD_TOO_SHORT: internal,
  MEMBER_PASSWORD_TOO_LONG: internal,
  MEMBER_IMPORT_INVALID: internal,
  SESSION_NOT_FOUND: internal,
  DOMAIN_INVALID: internal,
  SECRET_KEY_MISMATCH: internal,
  SECOND_FACTOR_ENABLED: internal,
  SECOND_FACTOR_NOT_PENDING: internal,
  PROVISIONING_CLIENT_EXISTS: internal,
  PROVISIONING_CLIENT_NOT_FOUND: internal,
  OIDC_CLIENT_EXISTS: internal,
  OIDC_CLIENT_NOT_FOUND: internal,
  OIDC_CLIENT_PUBLIC: internal,
  OIDC_CLIENT_INVALID: internal,
  SAML_SP_EXISTS: internal,
  SAML_SP_NOT_FOUND: internal,
  SAML_SP_INVALID: internal,
  SAML_KEY_PENDING: internal,
  SAML_KEY_NOT_PENDING: internal,
  STAFF_NOT_FOUND: internal,

  // The in-band errors, stable and documented in docs/wire-format.md. iBridge clients match the description:
  // "token" (any case) signs the visitor out, "invalid username" is bad credentials, anything else reads as an
  // outage. So a missing session says "token" (for a cookie too: signing the visitor out is right there as
  // well), wrong credentials say "Invalid username", and a lock says neither, and when to retry.
  TOKEN_NOT_SIGNED_IN: { number: 1001, text: () => 'Invalid token: no live session has this token', outcome: 'not-signed-in' },
  COOKIE_NOT_SIGNED_IN: {
    number: 1002,
    text: () => 'Invalid login cookie: no live session token was issued for this cookie and domain',
    outcome: 'not-signed-in',
  },
  SESSION_NOT_DELETED: { number: 1003, text: () => 'Invalid token: no live session has this token to delete', outcome: 'not-signed-in' },
  INVALID_CREDENTIALS: { number: 1004, text: () => 'Invalid username or password', outcome: 'invalid-credentials' },
  LOCKED: {
    number: 1005,
    text: (seconds: string) => `Sign-in is locked after repeated failures for this account or address; try again in ${seconds} seconds`,
    outcome: 'locked',
  },
  // The vendor's own number and text, which partner code already handles by asking for the code.
  SECOND_FACTOR_REQUIRED: { number: 16000, text: () => 'Multi factor Authenticator token is required.', outcome: 'second-factor-required' },
} as const satisfies Record<string, AnsweredEntry | InBandEntry> & Record<ServiceErrorCode, FaultEntry>;

export type ErrorCode = keyof typeof ERRORS;

/** The errors answered in place of a result (a page, a text, an empty status or a fault). */
export type AnsweredCode = { [C in ErrorCode]: (typeof ERRORS)[C] extends { number: number } ? never : C }[ErrorCode];

/** The errors of the result string. */
export type InBandCode = Exclude<ErrorCode, AnsweredCode>;

/** The faults a call can end in: any the service raises, or an internal error. */
export type FaultCode = ServiceErrorCode | 'INTERNAL_ERROR' | 'STORE_UNAVAILABLE';

/** The call log's words for the calls that end in an error. */
export type ErrorOutcome = (typeof ERRORS)[ErrorCode]['outcome'];
