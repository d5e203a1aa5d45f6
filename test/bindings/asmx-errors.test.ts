/**
 * Every entry of the error catalogue (src/bindings/asmx-errors.ts), on every binding it declares a wire shape
 * for, brought about by a real request: the answer has the entry's status and text. A new entry, or a new
 * binding for an entry, fails here until it has a case.
 */
import { jest } from '@jest/globals';
import { ASMX_ERRORS, type AsmxErrorCode, type ErrorBinding } from '../../src/bindings/asmx-errors.js';
import type { Environment } from '../../src/config/config.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { rawRequest, sendRaw, type RawRequest } from '../helpers/raw-http.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const NS = REFERENCE.namespace;
const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const ACTION = `"${NS}AuthenticateToken"`;
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
  /** The text's arguments, as the answer must show them. */
  args?: string[];
  env?: Environment;
  /** Runs on the app before the request (a failure to provoke); undone after it. */
  provoke?: (app: TestApp) => () => void;
}

const failing = (app: TestApp) => {
  const spy = jest.spyOn(app.services.authentication, 'authenticateToken').mockRejectedValue(new Error('the store is gone'));
  return () => spy.mockRestore();
};

const CASES: { [C in AsmxErrorCode]: Partial<Record<ErrorBinding, Case>> } = {
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
  INTERNAL_ERROR: {
    endpoint: {
      request: get('/readyz'),
      status: 500,
      provoke: (app) => {
        const spy = jest.spyOn(app.readiness, 'check').mockRejectedValue(new Error('bug'));
        return () => spy.mockRestore();
      },
    },
    soap: { request: soap11(envelope(SOAP11, tokenCall(REFERENCE.password))), status: 500, provoke: failing },
    http: { request: get(`/Authentication.asmx/AuthenticateToken?securityPassword=${REFERENCE.password}&token=t`), status: 500, provoke: failing },
  },
  NO_CONTENT_TYPE: { soap: { request: soap11(envelope(SOAP11, tokenCall('x')), { SOAPAction: ACTION }), status: 415 } },
  UNSUPPORTED_MEDIA_TYPE: { soap: { request: soap11(envelope(SOAP11, tokenCall('x')), { 'Content-Type': 'text/plain', SOAPAction: ACTION }), status: 415 } },
  MALFORMED_XML: { soap: { request: soap11('<soap:Envelope'), status: 400 } },
  SOAPACTION_UNRECOGNIZED: {
    soap: { request: soap11(envelope(SOAP11, tokenCall('x')), { 'Content-Type': 'text/xml', SOAPAction: '"urn:nope"' }), status: 500, args: ['urn:nope'] },
  },
  ACTION_UNRECOGNIZED: {
    soap: { request: soap12(envelope(SOAP12, '<Nope xmlns="urn:x"/>'), 'application/soap+xml; action="urn:nope"'), status: 500, args: ['urn:nope'] },
  },
  ACTION_REQUIRED: { soap: { request: soap12(envelope(SOAP12, '<Nope xmlns="urn:x"/>')), status: 500 } },
  XML_ERROR: { soap: { request: soap12(''), status: 500, args: ['Root element is missing.'] } },
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
  INVALID_SECURITY_PASSWORD: {
    soap: { request: soap11(envelope(SOAP11, tokenCall('wrong'))), status: 500, args: ['Invalid security password'] },
    http: { request: get('/Authentication.asmx/AuthenticateToken?securityPassword=wrong&token=t'), status: 500, args: ['Invalid security password'] },
  },
  CALLER_THROTTLED: {
    soap: { request: soap11(envelope(SOAP11, tokenCall('wrong'))), status: 500, env: { CALLER_MAX_FAILURES_PER_ADDRESS: '1' } },
    http: { request: get('/Authentication.asmx/AuthenticateToken?securityPassword=wrong&token=t'), status: 429, env: { CALLER_MAX_FAILURES_PER_ADDRESS: '1' } },
  },
};

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
/** The text of an HTML page or an XML fault, as a reader sees it. */
const unescapeMarkup = (markup: string) => markup.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);

const apps = new Map<string, Promise<TestApp>>();
const appFor = (env: Environment = {}) => {
  const key = JSON.stringify(env);
  if (!apps.has(key)) apps.set(key, startTestApp({ env }));
  return apps.get(key) as Promise<TestApp>;
};
afterAll(async () => {
  for (const app of apps.values()) await (await app).close();
});

const ROWS = (Object.keys(ASMX_ERRORS) as AsmxErrorCode[]).flatMap((code) =>
  (['endpoint', 'soap', 'http'] as const).filter((binding) => binding in ASMX_ERRORS[code]).map((binding) => [code, binding] as const),
);

test('every case is for a binding its entry declares, and every entry has a case on each of them', () => {
  const declared = ROWS.map(([code, binding]) => `${code} ${binding}`).sort();
  const cased = Object.entries(CASES).flatMap(([code, byBinding]) => Object.keys(byBinding).map((binding) => `${code} ${binding}`)).sort();
  expect(cased).toEqual(declared);
});

test.each(ROWS)('%s on the %s binding', async (code, binding) => {
  const definition = ASMX_ERRORS[code] as { text: (...args: string[]) => string } & Partial<Record<ErrorBinding, { kind: string; status?: number }>>;
  const wire = definition[binding];
  const testCase = CASES[code][binding] as Case;
  const app = await appFor(testCase.env);
  const undo = testCase.provoke?.(app);
  try {
    const request = rawRequest(app.port, testCase.request);
    // A throttle answers the call after the one that locked the address.
    if (code === 'CALLER_THROTTLED') await sendRaw(app.port, request);
    const response = await sendRaw(app.port, request);
    expect(response.status).toBe(testCase.status);
    expect(wire?.kind === 'fault' ? 500 : wire?.status).toBe(testCase.status);
    const body = response.body.toString('utf8');
    if (wire?.kind === 'empty') {
      expect(body).toBe('');
    } else if (code === 'CALLER_THROTTLED') {
      expect(body).toMatch(/Too many failed security password attempts from this address; try again in \d+ minutes?\./);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    } else {
      expect(wire?.kind === 'text' ? body : unescapeMarkup(body)).toContain(definition.text(...(testCase.args ?? [])));
    }
  } finally {
    undo?.();
  }
});
