/**
 * The whole error catalogue (src/bindings/errors/catalogue.ts), entry by entry. An error answered in place of
 * a result is brought about by a real request on every binding it declares a wire shape for, and has that
 * shape and the entry's text; an in-band error is written by every result format and brought about on every
 * binding. A call that ends in an error is logged and counted with the entry's outcome. Every service fault
 * (src/service/errors.ts) has an entry. A new entry, or a new binding for one, fails here until it has a case.
 */
import { jest } from '@jest/globals';
import type { Counter } from 'prom-client';
import { ERRORS, type AnsweredCode, type InBandCode } from '../../src/bindings/errors/catalogue.js';
import type { ErrorBinding, ErrorWire } from '../../src/bindings/errors/wire.js';
import { createResultRenderer } from '../../src/bindings/result/formats.js';
import { loadConfig, type Config, type Environment } from '../../src/config/config.js';
import type { Outcome, Refusal } from '../../src/service/authentication.js';
import { CallerThrottledError, SERVICE_ERRORS, ServiceError, type ServiceErrorCode } from '../../src/service/errors.js';
import { StoreUnavailableError } from '../../src/service/index.js';
import type { OperationName } from '../../src/service/wsdl-types.js';
import { asmxRequest, BINDINGS, resultText } from '../helpers/asmx-request.js';
import { refusalsOf } from '../helpers/outcomes.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { rawRequest, sendRaw, type RawRequest } from '../helpers/raw-http.js';
import { escapeXml, SOAP_NS } from '../helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait.js';

const NS = REFERENCE.namespace;
const SOAP11 = SOAP_NS['1.1'];
const SOAP12 = SOAP_NS['1.2'];
const ACTION = `"${NS}AuthenticateToken"`;
/** Any envelope namespace (the errors include a wrong one), always the soap prefix. */
const envelope = (ns: string, inner: string, header = '') =>
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ns}">${header}<soap:Body>${inner}</soap:Body></soap:Envelope>`;
const tokenCall = (password: string) => `<AuthenticateToken xmlns="${NS}"><securityPassword>${password}</securityPassword><token>t</token></AuthenticateToken>`;
const soap11 = (body: string, headers: Record<string, string> = { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: ACTION }): RawRequest => ({
  method: 'POST',
  target: '/Authentication.asmx',
  headers,
  body,
});
const soap12 = (body: string, contentType = 'application/soap+xml; charset=utf-8'): RawRequest => soap11(body, { 'Content-Type': contentType });
const get = (target: string): RawRequest => ({ method: 'GET', target });
const form = (target: string, body: string, contentType = 'application/x-www-form-urlencoded'): RawRequest => ({
  method: 'POST',
  target,
  headers: { 'Content-Type': contentType },
  body,
});

interface Case {
  request: RawRequest;
  status: number;
  /** The SOAP version the error is answered in (SOAP 1.1 unless said). */
  version?: '1.2';
  /** The text's arguments, as the answer must show them. */
  args?: string[];
  env?: Environment;
  /** Runs on the app before the request (a failure to provoke); undone after it. */
  provoke?: (app: TestApp) => () => void;
  /** A throttled caller: the Retry-After the answer carries. */
  retryAfter?: string;
}

/** The operation, called with the right security password, raises `error`. */
const raising = (error: unknown) => (app: TestApp) => {
  const spy = jest.spyOn(app.services.authentication, 'authenticateToken').mockRejectedValue(error);
  return () => spy.mockRestore();
};

/** A call that reaches the operation, on the two bindings that call operations. */
const CALLS = {
  soap: soap11(envelope(SOAP11, tokenCall(REFERENCE.password))),
  http: get(`/Authentication.asmx/AuthenticateToken?securityPassword=${REFERENCE.password}&token=t`),
};

/** A fault the operation raised, on both bindings. */
function raised(error: Error, status: { soap: number; http: number }, extra: Partial<Case> = {}): Record<'soap' | 'http', Case> {
  const provoke = raising(error);
  return {
    soap: { request: CALLS.soap, status: status.soap, args: [error.message], provoke, ...extra },
    http: { request: CALLS.http, status: status.http, args: [error.message], provoke, ...extra },
  };
}

/** A service fault the caller is not told about: the detail must stay in the log. */
const SECRET_DETAIL = 'a detail for the log only';
const hidden = (code: ServiceErrorCode) => raised(new ServiceError(code, SECRET_DETAIL), { soap: 500, http: 500 });

const CASES: { [C in AnsweredCode]: Partial<Record<ErrorBinding, Case>> } = {
  NOT_FOUND: { endpoint: { request: get('/Nope.aspx'), status: 404 } },
  METHOD_NOT_ALLOWED: { endpoint: { request: { method: 'PUT', target: '/Authentication.asmx' }, status: 405 } },
  UNRECOGNIZED_URL: {
    endpoint: { request: { method: 'DELETE', target: '/Authentication.asmx/AuthenticateToken' }, status: 500, args: ['/AuthenticateToken'] },
    http: { request: get('/Authentication.asmx/AuthenticateToken?token=t'), status: 500, args: ['/AuthenticateToken'], env: { HTTP_GET_ENABLED: 'false' } },
  },
  SOAP_DISABLED: { soap: { request: soap11(envelope(SOAP11, tokenCall('x'))), status: 500, env: { SOAP11_ENABLED: 'false' } } },
  SCRIPT_SERVICE_REQUIRED: { endpoint: { request: form('/Authentication.asmx/AuthenticateToken', '{}', 'application/json'), status: 500 } },
  REQUEST_TOO_LARGE: { endpoint: { request: { ...soap11('x'), contentLength: 10_000_000 }, status: 413 } },
  INVALID_HOSTNAME: {
    endpoint: { request: { method: 'GET', target: '/Authentication.asmx?wsdl', headers: { Host: 'forged.example' } }, status: 400, env: { ALLOWED_HOSTS: 'members.example.org' } },
  },
  TOO_MANY_PARAMETERS: { endpoint: { request: form('/Authentication.asmx/AuthenticateToken', 'a=1&'.repeat(1001)), status: 500 } },
  UNSUPPORTED_ENCODING: { endpoint: { request: { ...soap11('x'), headers: { 'Content-Type': 'text/xml', SOAPAction: ACTION, 'Content-Encoding': 'compress' } }, status: 415 } },
  UNSUPPORTED_CHARSET: {
    endpoint: { request: form('/Authentication.asmx/AuthenticateToken', 'token=t', 'application/x-www-form-urlencoded; charset=koi8-r'), status: 415 },
  },
  UNREADABLE_REQUEST: { endpoint: { request: { ...soap11('not gzip'), headers: { 'Content-Type': 'text/xml', SOAPAction: ACTION, 'Content-Encoding': 'gzip' } }, status: 400 } },
  NO_CONTENT_TYPE: { soap: { request: soap11(envelope(SOAP11, tokenCall('x')), { SOAPAction: ACTION }), status: 415 } },
  UNSUPPORTED_MEDIA_TYPE: { soap: { request: soap11(envelope(SOAP11, tokenCall('x')), { 'Content-Type': 'text/plain', SOAPAction: ACTION }), status: 415 } },
  MALFORMED_XML: { soap: { request: soap11('<soap:Envelope'), status: 400 } },
  SOAPACTION_UNRECOGNIZED: {
    soap: { request: soap11(envelope(SOAP11, tokenCall('x')), { 'Content-Type': 'text/xml', SOAPAction: '"urn:nope"' }), status: 500, args: ['urn:nope'] },
  },
  ACTION_UNRECOGNIZED: {
    soap: { request: soap12(envelope(SOAP12, '<Nope xmlns="urn:x"/>'), 'application/soap+xml; action="urn:nope"'), status: 500, version: '1.2', args: ['urn:nope'] },
  },
  ACTION_REQUIRED: { soap: { request: soap12(envelope(SOAP12, '<Nope xmlns="urn:x"/>')), status: 500, version: '1.2' } },
  XML_ERROR: { soap: { request: soap12(''), status: 500, version: '1.2', args: ['Root element is missing.'] } },
  ENVELOPE_MISSING: { soap: { request: soap11('<Root/>'), status: 500 } },
  BODY_MISSING: { soap: { request: soap11(`<soap:Envelope xmlns:soap="${SOAP11}"/>`), status: 500 } },
  VERSION_MISMATCH: { soap: { request: soap11(envelope('urn:other', tokenCall('x'))), status: 500, args: ['urn:other', SOAP11] } },
  MUST_UNDERSTAND: {
    soap: {
      request: soap11(envelope(SOAP11, tokenCall('x'), `<soap:Header><Security soap:mustUnderstand="1" xmlns="urn:s"/></soap:Header>`)),
      status: 500,
      args: ['Security'],
    },
  },
  UNKNOWN_METHOD: { http: { request: get('/Authentication.asmx/Nope'), status: 500, args: ['Nope'] } },
  METHOD_NAME_CASE: { http: { request: get('/Authentication.asmx/authenticatetoken'), status: 500, args: ['authenticatetoken', 'AuthenticateToken'] } },
  FORM_REQUIRED: { http: { request: form('/Authentication.asmx/AuthenticateToken', 'x', 'text/plain'), status: 500, args: ['text/plain'] } },
  MISSING_PARAMETER: { http: { request: get('/Authentication.asmx/AuthenticateToken?token=t'), status: 500, args: ['securityPassword'] } },

  INTERNAL_ERROR: {
    endpoint: {
      request: get('/readyz'),
      status: 500,
      provoke: (app) => {
        const spy = jest.spyOn(app.readiness, 'check').mockRejectedValue(new Error('bug'));
        return () => spy.mockRestore();
      },
    },
    ...raised(new Error('the store is gone'), { soap: 500, http: 500 }),
  },
  STORE_UNAVAILABLE: raised(new StoreUnavailableError('disk-full', '/data/authentication.sqlite', 'SQLITE_FULL'), { soap: 500, http: 503 }),
  INVALID_SECURITY_PASSWORD: {
    soap: { request: soap11(envelope(SOAP11, tokenCall('wrong'))), status: 500, args: [SERVICE_ERRORS.INVALID_SECURITY_PASSWORD] },
    http: { request: get('/Authentication.asmx/AuthenticateToken?securityPassword=wrong&token=t'), status: 500, args: [SERVICE_ERRORS.INVALID_SECURITY_PASSWORD] },
  },
  CALLER_THROTTLED: raised(new CallerThrottledError(120), { soap: 500, http: 429 }, { retryAfter: '120' }),
  CALLER_EXISTS: hidden('CALLER_EXISTS'),
  CALLER_NOT_FOUND: hidden('CALLER_NOT_FOUND'),
  CALLER_ORIGIN_NOT_FOUND: hidden('CALLER_ORIGIN_NOT_FOUND'),
  CALLER_PASSWORD_TOO_SHORT: hidden('CALLER_PASSWORD_TOO_SHORT'),
  MEMBER_EXISTS: hidden('MEMBER_EXISTS'),
  MEMBER_NOT_FOUND: hidden('MEMBER_NOT_FOUND'),
  MEMBER_DISABLED: hidden('MEMBER_DISABLED'),
  MEMBER_CHANGED: hidden('MEMBER_CHANGED'),
  MEMBER_INVALID: hidden('MEMBER_INVALID'),
  MEMBER_PASSWORD_TOO_SHORT: hidden('MEMBER_PASSWORD_TOO_SHORT'),
  MEMBER_PASSWORD_TOO_LONG: hidden('MEMBER_PASSWORD_TOO_LONG'),
  MEMBER_IMPORT_INVALID: hidden('MEMBER_IMPORT_INVALID'),
  SESSION_NOT_FOUND: hidden('SESSION_NOT_FOUND'),
  DOMAIN_INVALID: hidden('DOMAIN_INVALID'),
  SECRET_KEY_MISMATCH: hidden('SECRET_KEY_MISMATCH'),
  SECOND_FACTOR_ENABLED: hidden('SECOND_FACTOR_ENABLED'),
  SECOND_FACTOR_NOT_PENDING: hidden('SECOND_FACTOR_NOT_PENDING'),
  PROVISIONING_CLIENT_EXISTS: hidden('PROVISIONING_CLIENT_EXISTS'),
  PROVISIONING_CLIENT_NOT_FOUND: hidden('PROVISIONING_CLIENT_NOT_FOUND'),
  OIDC_CLIENT_EXISTS: hidden('OIDC_CLIENT_EXISTS'),
  OIDC_CLIENT_NOT_FOUND: hidden('OIDC_CLIENT_NOT_FOUND'),
  OIDC_CLIENT_PUBLIC: hidden('OIDC_CLIENT_PUBLIC'),
  OIDC_CLIENT_INVALID: hidden('OIDC_CLIENT_INVALID'),
  SAML_SP_EXISTS: hidden('SAML_SP_EXISTS'),
  SAML_SP_NOT_FOUND: hidden('SAML_SP_NOT_FOUND'),
  SAML_SP_INVALID: hidden('SAML_SP_INVALID'),
  SAML_KEY_PENDING: hidden('SAML_KEY_PENDING'),
  SAML_KEY_NOT_PENDING: hidden('SAML_KEY_NOT_PENDING'),
  STAFF_NOT_FOUND: hidden('STAFF_NOT_FOUND'),
};

/** An in-band error and the operation's answer that ends in it. */
interface InBandCase {
  operation: OperationName;
  refusal: Refusal;
  args?: string[];
}

const IN_BAND_CASES: { [C in InBandCode]: InBandCase } = {
  TOKEN_NOT_SIGNED_IN: { operation: 'AuthenticateToken', refusal: { kind: 'not-signed-in', reason: 'expired' } },
  COOKIE_NOT_SIGNED_IN: { operation: 'AuthenticateCookie', refusal: { kind: 'not-signed-in', reason: 'domain-mismatch' } },
  SESSION_NOT_DELETED: { operation: 'DeleteUserSession', refusal: { kind: 'not-signed-in', reason: 'unknown' } },
  INVALID_CREDENTIALS: { operation: 'AuthenticateUser', refusal: { kind: 'invalid-credentials' } },
  LOCKED: { operation: 'Login', refusal: { kind: 'locked', retryAfterSeconds: 840 }, args: ['840'] },
  SECOND_FACTOR_REQUIRED: { operation: 'ValidateUser', refusal: { kind: 'second-factor-required' } },
};

/** The service method that answers each operation. */
const METHODS = {
  AuthenticateCookie: 'authenticateCookie',
  AuthenticateToken: 'authenticateToken',
  AuthenticateUser: 'authenticateUser',
  DeleteUserSession: 'deleteUserSession',
  Login: 'login',
  ValidateUser: 'validateUser',
} as const satisfies Record<OperationName, string>;

/** An in-band error as each result format must write it (docs/wire-format.md#in-band-errors). */
const IN_BAND_SHAPES: Record<Config['resultFormat'], (number: number, description: string) => string> = {
  ibridge: (number, description) =>
    `<?xml version="1.0" encoding="UTF-16"?><iBridge><Errors><Error Number="${number}" Description="${escapeXml(description)}" /></Errors></iBridge>`,
  json: (_number, description) => JSON.stringify({ status: 'Failure', message: description }),
  plain: () => '',
};

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
/** The text of an HTML page or an XML fault, as a reader sees it. */
const unescapeMarkup = (markup: string) => markup.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);

/** The fault codes by role and SOAP version, as ASMX writes them. */
const FAULT_CODES = {
  server: { '1.1': 'soap:Server', '1.2': 'soap:Receiver' },
  client: { '1.1': 'soap:Client', '1.2': 'soap:Sender' },
  mustUnderstand: { '1.1': 'soap:MustUnderstand', '1.2': 'soap:MustUnderstand' },
  versionMismatch: { '1.1': 'soap:VersionMismatch', '1.2': 'soap:VersionMismatch' },
};
const SOAP_TYPES = { '1.1': 'text/xml; charset=utf-8', '1.2': 'application/soap+xml; charset=utf-8' };
const FAULT_PATTERNS = {
  '1.1': /<soap:Fault><faultcode>([^<]*)<\/faultcode><faultstring>([^<]*)<\/faultstring>(<detail \/>)?<\/soap:Fault>/,
  '1.2': /<soap:Fault><soap:Code><soap:Value>([^<]*)<\/soap:Value><\/soap:Code><soap:Reason><soap:Text xml:lang="en">([^<]*)<\/soap:Text><\/soap:Reason>(<soap:Detail \/>)?<\/soap:Fault>/,
};

const apps = new Map<string, Promise<TestApp>>();
const appFor = (env: Environment = {}) => {
  const key = JSON.stringify(env);
  if (!apps.has(key)) apps.set(key, startTestApp({ env }));
  return apps.get(key) as Promise<TestApp>;
};
afterAll(async () => {
  for (const app of apps.values()) await (await app).close();
});

/** The app's call counts as they are now: a lookup by binding, operation and outcome label. */
async function callCounts(app: TestApp): Promise<(binding: string, operation: string, outcome: string) => number> {
  const counter = app.metrics?.registry.getSingleMetric('asmx_calls_total') as Counter | undefined;
  // Copied: prom-client hands out the series it goes on counting in.
  const counts = new Map(((await counter?.get())?.values ?? []).map(({ labels, value }) => [`${labels.binding} ${labels.operation} ${labels.outcome}`, value]));
  return (binding, operation, outcome) => counts.get(`${binding} ${operation} ${outcome}`) ?? 0;
}

/**
 * Checks that the call with this request id was logged with `outcome` and counted once more under its binding,
 * its operation and the outcome's label (the log's word without its detail, with _ for -); returns its line.
 */
async function expectCall(app: TestApp, requestId: string, outcome: string, before: Awaited<ReturnType<typeof callCounts>>) {
  const find = () => app.logLines.find((line) => line.message === 'call' && line.requestId === requestId);
  await waitUntil(() => find() !== undefined, `the call line of ${requestId}`);
  const line = find() ?? {};
  expect(line.outcome).toBe(outcome);
  const binding = String(line.binding);
  const operation = typeof line.operation === 'string' ? line.operation : 'none';
  const label = (outcome.split(':')[0] ?? '').replaceAll('-', '_');
  expect((await callCounts(app))(binding, operation, label)).toBe(before(binding, operation, label) + 1);
  return line;
}

const ANSWERED = Object.keys(CASES) as AnsweredCode[];
const ROWS = ANSWERED.flatMap((code) =>
  (['endpoint', 'soap', 'http'] as const).filter((binding) => binding in ERRORS[code]).map((binding) => [code, binding] as const),
);

describe('the catalogue', () => {
  it('has an entry for every service fault, with a SOAP fault and an HTTP GET/POST answer', () => {
    for (const code of Object.keys(SERVICE_ERRORS) as ServiceErrorCode[]) {
      expect(ERRORS[code]).toEqual(expect.objectContaining({ soap: expect.objectContaining({ kind: 'fault' }), http: expect.anything() }));
    }
  });

  it('has a case for every entry on each binding it declares, and only those', () => {
    const declared = ROWS.map(([code, binding]) => `${code} ${binding}`).sort();
    const cased = Object.entries(CASES).flatMap(([code, byBinding]) => Object.keys(byBinding).map((binding) => `${code} ${binding}`)).sort();
    expect(cased).toEqual(declared);
    expect([...ANSWERED, ...Object.keys(IN_BAND_CASES)].sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it('logs calls with the documented outcomes only (operators alert on them)', () => {
    expect(new Set(Object.values(ERRORS).map((entry) => entry.outcome))).toEqual(
      new Set([
        'refused',
        'error',
        'unavailable',
        'invalid-security-password',
        'throttled',
        'not-signed-in',
        'invalid-credentials',
        'locked',
        'second-factor-required',
      ]),
    );
  });
});

test.each(ROWS)('%s on the %s binding', async (code, binding) => {
  const entry = ERRORS[code] as { text: (...args: string[]) => string; outcome: string } & Partial<Record<ErrorBinding, ErrorWire>>;
  const wire = entry[binding] as ErrorWire;
  const testCase = CASES[code][binding] as Case;
  const app = await appFor(testCase.env);
  const requestId = `${code}-${binding}`;
  const outcome = entry.outcome === 'refused' ? `refused:${code}` : entry.outcome;
  const before = await callCounts(app);
  const undo = testCase.provoke?.(app);
  const headers = { ...(testCase.request.headers as Record<string, string> | undefined), 'X-Request-Id': requestId };
  const response = await sendRaw(app.port, rawRequest(app.port, { ...testCase.request, headers })).finally(() => undo?.());

  const text = entry.text(...(testCase.args ?? []));
  const body = response.body.toString('utf8');
  const version = testCase.version ?? '1.1';
  expect(response.status).toBe(testCase.status);
  expect(wire.kind === 'fault' ? 500 : wire.status).toBe(testCase.status);
  switch (wire.kind) {
    case 'page':
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(unescapeMarkup(body)).toContain(`<p>${text}</p>`);
      break;
    case 'text':
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe(wire.cache);
      expect(body).toBe(`${text}\n`);
      break;
    case 'empty':
      expect(response.headers.get('content-type')).toBe(SOAP_TYPES[version]);
      expect(body).toBe('');
      break;
    case 'fault': {
      expect(response.headers.get('content-type')).toBe(SOAP_TYPES[version]);
      const [, faultCode, faultString, detail] = FAULT_PATTERNS[version].exec(body) ?? [];
      expect(faultCode).toBe(FAULT_CODES[wire.role][version]);
      expect(unescapeMarkup(faultString ?? '')).toBe(`${wire.prefixed ? 'Server was unable to process request. ---> ' : ''}${text}`);
      expect(detail !== undefined).toBe(wire.detail);
      break;
    }
  }
  expect(response.headers.get('retry-after')).toBe(testCase.retryAfter);
  expect(body).not.toContain(SECRET_DETAIL);
  if (binding === 'endpoint') return;

  const line = await expectCall(app, requestId, outcome, before);
  if (entry.outcome === 'error') expect(line.error).toBe(testCase.args?.[0]);
  expect(line.retryAfterSeconds).toBe(testCase.retryAfter === undefined ? undefined : Number(testCase.retryAfter));
});

const IN_BAND_ROWS = Object.entries(IN_BAND_CASES) as Array<[InBandCode, InBandCase]>;
const refusedOutcome = ({ operation, refusal }: InBandCase): Outcome => refusalsOf('reference-client').refused(operation, refusal);

describe.each(IN_BAND_ROWS)('%s', (code, inBand) => {
  const entry = ERRORS[code];
  const description = (entry.text as (...args: string[]) => string)(...(inBand.args ?? []));

  it.each(Object.keys(IN_BAND_SHAPES) as Array<Config['resultFormat']>)('in the %s format', (format) => {
    const render = createResultRenderer(loadConfig({ RESULT_FORMAT: format, JSON_FIELDS: 'status,message' }));
    expect(render(refusedOutcome(inBand))).toBe(IN_BAND_SHAPES[format](entry.number, description));
  });

  it.each(BINDINGS)('on the %s binding, with HTTP 200, logged and counted', async (binding) => {
    const app = await appFor({ OPERATIONS: Object.keys(METHODS).join(','), RESULT_FORMAT: 'ibridge' });
    const reason = 'reason' in inBand.refusal ? `:${inBand.refusal.reason}` : '';
    const before = await callCounts(app);
    const spy = jest.spyOn(app.services.authentication, METHODS[inBand.operation]).mockResolvedValue(refusedOutcome(inBand));
    const params = Object.fromEntries(app.config.operationParameters[inBand.operation].map((name) => [name, 'x']));
    const { path, element, headers, ...init } = asmxRequest(NS, binding, inBand.operation, params);
    const requestId = `${code}-${binding}`;
    const response = await fetch(`${app.baseUrl}${app.config.basePath}${path}`, { ...init, headers: { ...headers, 'X-Request-Id': requestId } }).finally(() => spy.mockRestore());
    expect(response.status).toBe(200);
    expect(resultText(await response.text(), element)).toBe(IN_BAND_SHAPES.ibridge(entry.number, description));
    const line = await expectCall(app, requestId, `${entry.outcome}${reason}`, before);
    expect(line).toMatchObject({ operation: inBand.operation, caller: 'reference-client' });
    expect(line.retryAfterSeconds).toBe(inBand.refusal.kind === 'locked' ? inBand.refusal.retryAfterSeconds : undefined);
  });
});
