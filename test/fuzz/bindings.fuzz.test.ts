/**
 * Property-based fuzzing of every binding (SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST), of the endpoint's
 * other methods and paths, and of the sign-in form. Requests are generated valid and then mutated; each
 * goes on the wire well framed (a correct Content-Length) and every answer must be one ASMX could have
 * sent: it arrives (no hang-up, no timeout), has an allowed status, a Content-Length equal to its body,
 * one of ASMX's content types, a well-formed XML body of the right shape, and never a stack, a path or a
 * secret (in the body, the headers or the log). A valid call on the same keep-alive connection still
 * succeeds after a fuzzed one, and after each property a valid call over each binding still finds the
 * member and nothing was logged as an error.
 *
 * Bounded by count, never by time: FUZZ_RUNS (default 250) runs per property (150 to 300), a few seconds in all,
 * drawn from the run's seed (TEST_SEED, test/helpers/test-seed.ts), so that a run repeats exactly however slow
 * the machine. fast-check prints the seed and path of a failure; replay it with TEST_SEED=<seed>
 * FUZZ_PATH=<path> and jest -t '<the property's name>'.
 * FUZZ_STATS=1 prints what each property reached (statuses, faults, call outcomes).
 */
import { parse as parseQuery } from 'node:querystring';
import { gzipSync } from 'node:zlib';
import { hashPassword } from '../../src/service/passwords.js';
import { highThrottleLimits } from '../helpers/high-limits.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { fc } from '../helpers/seeded-fast-check.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  anyMethod,
  applyByteMutations,
  applyTextMutations,
  asQuery,
  bodyEncoding,
  encodeBody,
  endpointSpelling,
  extraHeaders,
  fields,
  marker,
  methodSegment,
  mutation,
  oddEnvelopeShape,
  otherPath,
  printable,
  serializeEnvelope,
  soapHeaders,
  validEnvelopeShape,
  type Credentials,
  type Operation,
} from './arbitraries.js';
import { checkAsmxShape, CONTENT_TYPES, NEVER_IN_A_BODY, parseXml, type ShapeRules } from './asmx-shapes.js';
import { exchange, exchangePipelined, header, type WireRequest, type WireResponse } from './wire.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const PATH = process.env.FUZZ_PATH;
/** numRuns runs, however long they take (the test's own time-out is the only limit, and fails it). */
const settings = <T,>(numRuns: number): fc.Parameters<T> => ({
  numRuns,
  ...(PATH === undefined ? {} : { path: PATH }),
});

// Fixed, distinctive secrets, so that a failing seed replays byte for byte and a leak is unmistakable.
const CALLER_PASSWORD = 'Fz-caller-pw-7Qv2LrX9pK3mW8nB4tY6hJ1sD5gF0aZc';
const TOKEN = 'Fz-token-3Hk9Lq2Wm7Np4Rs8Tv1Xy6Zb5Cd0Ef2Gh4Jk';
const COOKIE = 'Fz-cookie-8Mn3Bv6Cx1Za9Sd4Fg7Hj2Kl5Qw0Er3Ty6U';
const MEMBER_PASSWORD = 'Fz member password 5Tg8Yh2Uj6Ik';
/** A partner origin registered to receive the session token after sign-in. */
const PORTAL = 'https://portal.example.org';
const CREDENTIALS: Credentials = {
  namespace: REFERENCE.namespace,
  securityPassword: CALLER_PASSWORD,
  token: TOKEN,
  loginCookie: COOKIE,
  cookieDomain: REFERENCE.domain,
};
const SECRETS = [CALLER_PASSWORD, TOKEN, COOKIE, MEMBER_PASSWORD, REFERENCE.password, REFERENCE.token, REFERENCE.cookie];

let app: TestApp;
/** The sign-in form's CSRF cookie and field, as a browser holds them after opening the page. */
let csrf: { cookie: string; field: string };

const rules = (discovery: boolean): ShapeRules => ({
  namespace: REFERENCE.namespace,
  results: new Set(['', REFERENCE.memberId]),
  secrets: SECRETS,
  discovery,
});

beforeAll(async () => {
  app = await startTestApp({ env: { TRUST_PROXY: 'true', COOKIE_DOMAIN: '.example.org', ...highThrottleLimits() } });
  await app.services.callers.add('fuzz-client', CALLER_PASSWORD);
  await app.services.sessions.create(REFERENCE.memberId, REFERENCE.domain, { cookie: COOKIE, token: TOKEN });
  await app.store.setMemberPassword(REFERENCE.memberId, await hashPassword(MEMBER_PASSWORD), Date.now());
  await app.services.callers.addOrigin('fuzz-client', PORTAL, { receivesToken: true });
  const form = await send({ method: 'GET', target: '/Login', headers: [], body: Buffer.alloc(0) });
  const cookie = setCookies(form).find((line) => line.startsWith('signin-csrf='))?.split(';')[0];
  const field = /name="csrf" value="([^"]+)"/.exec(form.body.toString())?.[1];
  if (!cookie || !field) throw new Error('the sign-in page set no CSRF cookie or field');
  csrf = { cookie, field };
});
afterAll(() => app?.close());

const send = (request: WireRequest) => exchange(app.port, request);

/** FUZZ_STATS=1 prints what each property reached: statuses, content types, results and faults, call outcomes. */
const STATS = process.env.FUZZ_STATS === '1';
const stats = new Map<string, number>();
const bump = (key: string) => {
  if (STATS) stats.set(key, (stats.get(key) ?? 0) + 1);
};
function count(response: WireResponse): void {
  if (!STATS) return;
  const text = response.body.toString('utf8');
  const detail =
    /<faultcode>([^<]*)|<soap:Value>([^<]*)/.exec(text)?.slice(1).find(Boolean) ??
    (/Result>[^<]/.test(text) || /<string [^>]*>[^<]/.test(text) ? 'member' : /Result \/>|<string [^>]*\/>/.test(text) ? 'empty-result' : text.slice(0, 40).replace(/\s+/g, ' '));
  bump(`${response.status} ${header(response, 'content-type')} ${detail}`);
}

function setCookies(response: WireResponse): string[] {
  return response.headers.get('set-cookie') ?? [];
}

/** Sends, checks the ASMX shape, and on failure says which request got which answer. */
async function sendAndCheck(request: WireRequest, check: (response: WireResponse) => void): Promise<WireResponse> {
  let response: WireResponse | undefined;
  try {
    response = await send(request);
    count(response);
    check(response);
    return response;
  } catch (error) {
    const sent = `${request.method} ${request.target}\n${request.headers.map(([n, v]) => `${n}: ${v}`).join('\n')}\n\n${request.body.toString('latin1').slice(0, 600)}`;
    const got = response ? `${response.head}\n\n${response.body.toString('utf8').slice(0, 600)}` : '(no response)';
    throw new Error(`${(error as Error).message}\n--- request ---\n${sent}\n--- response ---\n${got}`);
  }
}

const isEndpointRoot = (target: string) => /^\/authentication\.asmx(\?|$)/i.test(target);
const asmxCheck = (request: WireRequest) => (response: WireResponse) =>
  checkAsmxShape(response, rules(request.method === 'GET' && isEndpointRoot(request.target)), { head: request.method === 'HEAD' });

// ---------------------------------------------------------------------------------------------------------
// Valid calls, the oracle for "state intact" after each property.

function soapCall(version: '1.1' | '1.2', operation: Operation): WireRequest {
  const action = REFERENCE.namespace + operation;
  const body = serializeEnvelope(
    {
      version,
      operation,
      envelopePrefix: 'soap',
      operationPrefix: '',
      declaration: '<?xml version="1.0" encoding="utf-8"?>',
      schemaNamespaces: false,
      headerBlocks: [],
      space: '',
      reversed: false,
      extras: [],
      valueStyle: 'text',
      values: { securityPassword: CALLER_PASSWORD, token: TOKEN, loginCookie: COOKIE, cookieDomain: REFERENCE.domain },
      oddParameters: [],
      envelopeAttributes: '',
      operationAttributes: '',
    },
    REFERENCE.namespace,
  );
  const headers: Array<[string, string]> =
    version === '1.1'
      ? [
          ['Content-Type', CONTENT_TYPES.xml],
          ['SOAPAction', `"${action}"`],
        ]
      : [['Content-Type', `${CONTENT_TYPES.soap12}; action="${action}"`]];
  return { method: 'POST', target: '/Authentication.asmx', headers, body: Buffer.from(body) };
}

function httpCall(method: 'GET' | 'POST', operation: Operation): WireRequest {
  const query = new URLSearchParams(
    operation === 'AuthenticateToken'
      ? { securityPassword: CALLER_PASSWORD, token: TOKEN }
      : { securityPassword: CALLER_PASSWORD, loginCookie: COOKIE, cookieDomain: REFERENCE.domain },
  ).toString();
  return method === 'GET'
    ? { method, target: `/Authentication.asmx/${operation}?${query}`, headers: [], body: Buffer.alloc(0) }
    : { method, target: `/Authentication.asmx/${operation}`, headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: Buffer.from(query) };
}

/** The result a successful call carries, whichever binding: the text of its Result element or <string>. */
function resultOf(response: WireResponse): string | undefined {
  const root = parseXml(response.body.toString('utf8'));
  if (root.local === 'string') return root.text;
  const result = root.children[0]?.children[0]?.children[0];
  return result?.local.endsWith('Result') ? result.text : undefined;
}

function expectMember(response: WireResponse, contentType: string): void {
  if (response.status !== 200 || header(response, 'content-type') !== contentType || resultOf(response) !== REFERENCE.memberId) {
    throw new Error(`expected ${REFERENCE.memberId} as ${contentType}, got ${response.status} ${header(response, 'content-type')}`);
  }
}

/** Every binding still answers a valid call with the member, and nothing was logged as an error. */
async function expectAliveAndIntact(): Promise<void> {
  for (const operation of ['AuthenticateToken', 'AuthenticateCookie'] as const) {
    await sendAndCheck(soapCall('1.1', operation), (r) => expectMember(r, CONTENT_TYPES.xml));
    await sendAndCheck(soapCall('1.2', operation), (r) => expectMember(r, CONTENT_TYPES.soap12));
    await sendAndCheck(httpCall('GET', operation), (r) => expectMember(r, CONTENT_TYPES.xml));
    await sendAndCheck(httpCall('POST', operation), (r) => expectMember(r, CONTENT_TYPES.xml));
  }
  if (STATS) {
    const outcomes = new Map<string, number>();
    for (const line of app.logLines) {
      const key = `${String(line.message)} ${String(line.binding ?? '')} ${String(line.outcome ?? '')}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    console.log(`${expect.getState().currentTestName}\n${[...stats].sort().map(([k, n]) => `${n}\t${k}`).join('\n')}\n--- log\n${[...outcomes].sort().map(([k, n]) => `${n}\t${k}`).join('\n')}`);
    stats.clear();
  }
  const errors = app.logLines.filter((line) => line.level === 'error');
  expect(errors).toEqual([]);
  // Passwords, cookies and tokens are never logged, whatever the request carried them in.
  const logged = app.logLines.map((line) => JSON.stringify(line)).filter((line) => SECRETS.some((secret) => line.includes(secret)));
  expect(logged).toEqual([]);
  // The log lines are kept in memory by the test app; what has been checked can go.
  app.logLines.length = 0;
}

afterEach(async () => {
  await expectAliveAndIntact();
});

// ---------------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------------
// The fuzzed requests.

/** Envelopes generated valid, then re-namespaced, renamed, duplicated, flooded, mutated as text and as bytes, re-encoded. */
const soapRequest: fc.Arbitrary<WireRequest> = oddEnvelopeShape(CREDENTIALS).chain((shape) =>
  fc
    .record({
      textMutations: fc.array(mutation, { maxLength: 3 }),
      byteMutations: fc.array(mutation, { maxLength: 2 }),
      mutate: fc.integer({ min: 0, max: 3 }),
      encoding: bodyEncoding,
      soap: soapHeaders(shape.version, shape.operation, REFERENCE.namespace),
      extra: extraHeaders,
      gzip: fc.boolean(),
      method: fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: anyMethod }),
      target: fc.oneof({ weight: 8, arbitrary: endpointSpelling }, { weight: 1, arbitrary: otherPath }),
    })
    .map((r): WireRequest => {
      // A quarter of the envelopes stay as generated, so that the odd shapes alone reach the service too.
      const text = r.mutate === 0 ? serializeEnvelope(shape, REFERENCE.namespace) : applyTextMutations(serializeEnvelope(shape, REFERENCE.namespace), r.textMutations);
      let body = applyByteMutations(encodeBody(text, r.encoding), r.mutate === 0 ? [] : r.byteMutations);
      const gzipped = r.gzip && r.extra.some(([n, v]) => n === 'Content-Encoding' && v === 'gzip');
      if (gzipped) body = gzipSync(body);
      return { method: r.method, target: r.target, headers: [...r.soap, ...r.extra], body };
    }),
);

const formType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/x-www-form-urlencoded') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/x-www-form-urlencoded; charset=utf-8',
      'application/x-www-form-urlencoded; charset=iso-8859-1',
      'APPLICATION/X-WWW-FORM-URLENCODED',
      'application/x-www-form-urlencoded;',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/json',
      'text/xml; charset=utf-8',
      '',
      ';',
      `${marker}/x`,
    ),
  },
  { weight: 1, arbitrary: printable(30) },
);
/** HTTP GET and POST calls: query strings and form bodies of the operation, in any case, order and encoding. */
const httpRequest: fc.Arbitrary<WireRequest> = fc
  .record({
    method: fc.oneof({ weight: 10, arbitrary: fc.constantFrom('GET', 'POST') }, { weight: 1, arbitrary: anyMethod }),
    endpoint: endpointSpelling,
    operation: fc.constantFrom<Operation>('AuthenticateToken', 'AuthenticateCookie'),
    segment: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: methodSegment }),
  })
  .chain((base) =>
    fc.record({
      base: fc.constant(base),
      query: fc.option(fields(CREDENTIALS, base.operation), { nil: undefined, freq: 8 }),
      form: fields(CREDENTIALS, base.operation),
      formBytes: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) }),
      contentType: fc.option(formType, { nil: undefined, freq: 10 }),
      extra: extraHeaders,
    }),
  )
  .map(({ base, ...r }): WireRequest => {
    const method = base.method;
    // Mostly the operation the fields are for; otherwise any method name.
    const target = `${base.endpoint}/${base.segment ?? base.operation}${r.query === undefined ? '' : `?${asQuery(r.query)}`}`;
    const body = method === 'GET' ? Buffer.alloc(0) : r.formBytes ? Buffer.from(r.formBytes) : Buffer.from(r.form, 'utf8');
    const headers: Array<[string, string]> = r.contentType === undefined || method === 'GET' ? [] : [['Content-Type', r.contentType]];
    return { method, target, headers: [...headers, ...r.extra.filter(([n]) => n !== 'Content-Encoding')], body };
  });

/** Any method on any spelling of the endpoint, its methods and paths near it, with any headers and body. */
const anyRequest: fc.Arbitrary<WireRequest> = fc
  .record({
    method: anyMethod,
    target: fc.oneof(
      endpointSpelling,
      fc.tuple(endpointSpelling, methodSegment).map(([e, s]) => `${e}/${s}`),
      otherPath,
      fc.tuple(endpointSpelling, fc.constantFrom('wsdl', 'WSDL', 'disco', 'op=AuthenticateToken', 'op=Nope', `op=${encodeURIComponent(marker)}`, 'op=%zz', 'Wsdl&disco', 'op')).map(
        ([e, q]) => `${e}?${q}`,
      ),
      fc.tuple(endpointSpelling, fields(CREDENTIALS)).map(([e, q]) => `${e}?${asQuery(q)}`),
    ),
    headers: fc.array(
      fc.oneof(
        fc.tuple(fc.constantFrom('Content-Type'), fc.oneof(fc.constantFrom(CONTENT_TYPES.xml, CONTENT_TYPES.soap12, 'application/x-www-form-urlencoded', 'application/json', 'text/plain'), printable(30))),
        fc.tuple(fc.constant('SOAPAction'), fc.oneof(fc.constant(`"${REFERENCE.namespace}AuthenticateToken"`), printable(30))),
      ),
      { maxLength: 3 },
    ),
    extra: extraHeaders,
    body: fc.oneof(
      fc.constant(''),
      fields(CREDENTIALS),
      validEnvelopeShape(CREDENTIALS).map((shape) => serializeEnvelope(shape, REFERENCE.namespace)),
      fc.string({ unit: 'binary', maxLength: 200 }),
    ),
  })
  .map((r): WireRequest => ({ method: r.method, target: r.target, headers: [...r.headers, ...r.extra.filter(([n]) => n !== 'Content-Encoding')], body: Buffer.from(r.body, 'utf8') }));

test('valid calls over every binding, however they are spelt, return the member', async () => {
  const soap = fc
    .record({ shape: validEnvelopeShape(CREDENTIALS), soapAction: fc.boolean(), extra: fc.constantFrom<Array<[string, string]>>([], [['X-Request-Id', 'fuzz-1']], [['User-Agent', 'wsdl.exe']]) })
    .map(({ shape, soapAction, extra }) => {
      const action = REFERENCE.namespace + shape.operation;
      const headers: Array<[string, string]> =
        shape.version === '1.1'
          ? [
              ['Content-Type', CONTENT_TYPES.xml],
              ['SOAPAction', soapAction ? `"${action}"` : action],
            ]
          : [['Content-Type', soapAction ? `${CONTENT_TYPES.soap12}; action="${action}"` : CONTENT_TYPES.soap12]];
      const request: WireRequest = { method: 'POST', target: '/Authentication.asmx', headers: [...headers, ...extra], body: Buffer.from(serializeEnvelope(shape, REFERENCE.namespace)) };
      return { request, contentType: shape.version === '1.1' ? CONTENT_TYPES.xml : CONTENT_TYPES.soap12 };
    });
  const http = fc
    .record({
      method: fc.constantFrom<'GET' | 'POST'>('GET', 'POST'),
      operation: fc.constantFrom<Operation>('AuthenticateToken', 'AuthenticateCookie'),
      upper: fc.boolean(),
      reversed: fc.boolean(),
      extra: fc.boolean(),
      charset: fc.boolean(),
    })
    .map(({ method, operation, upper, reversed, extra, charset }) => {
      const pairs: Array<[string, string]> =
        operation === 'AuthenticateToken'
          ? [
              ['securityPassword', CALLER_PASSWORD],
              ['token', TOKEN],
            ]
          : [
              ['securityPassword', CALLER_PASSWORD],
              ['loginCookie', COOKIE],
              ['cookieDomain', REFERENCE.domain],
            ];
      if (reversed) pairs.reverse();
      if (extra) pairs.push(['unrelated', 'x y']);
      const query = new URLSearchParams(pairs.map(([k, v]) => [upper ? k.toUpperCase() : k, v])).toString();
      const request: WireRequest =
        method === 'GET'
          ? { method, target: `/Authentication.asmx/${operation}?${query}`, headers: [], body: Buffer.alloc(0) }
          : {
              method,
              target: `/Authentication.asmx/${operation}`,
              headers: [['Content-Type', charset ? 'application/x-www-form-urlencoded; charset=utf-8' : 'application/x-www-form-urlencoded']],
              body: Buffer.from(query),
            };
      return { request, contentType: CONTENT_TYPES.xml };
    });
  await fc.assert(
    fc.asyncProperty(fc.oneof(soap, http), async ({ request, contentType }) => {
      await sendAndCheck(request, (response) => {
        asmxCheck(request)(response);
        expectMember(response, contentType);
      });
    }),
    settings(Math.ceil(RUNS * 0.6)),
  );
}, 120_000);

test('mutated SOAP 1.1 and 1.2 envelopes, content types, actions and charsets: always an ASMX answer', async () => {
  await fc.assert(
    fc.asyncProperty(soapRequest, async (r) => {
      await sendAndCheck(r, asmxCheck(r));
    }),
    settings(Math.ceil(RUNS * 1.2)),
  );
}, 180_000);

test('HTTP GET and POST with random query strings, form bodies and encodings: always an ASMX answer', async () => {
  await fc.assert(
    fc.asyncProperty(httpRequest, async (r) => {
      await sendAndCheck(r, asmxCheck(r));
    }),
    settings(RUNS),
  );
}, 120_000);

test('any method, path, query, headers and body on the endpoint: always an ASMX answer', async () => {
  await fc.assert(
    fc.asyncProperty(anyRequest, async (r) => {
      await sendAndCheck(r, asmxCheck(r));
    }),
    settings(RUNS),
  );
}, 120_000);

test('after any of those, a valid call on the same keep-alive connection still returns the member (or the server closed it, saying so)', async () => {
  const pair = fc.record({
    fuzzed: fc.oneof(soapRequest, httpRequest, anyRequest),
    valid: fc.constantFrom(
      soapCall('1.1', 'AuthenticateToken'),
      soapCall('1.2', 'AuthenticateCookie'),
      httpCall('GET', 'AuthenticateCookie'),
      httpCall('POST', 'AuthenticateToken'),
    ),
  });
  await fc.assert(
    fc.asyncProperty(pair, async ({ fuzzed, valid }) => {
      const responses = await exchangePipelined(app.port, [fuzzed, valid]);
      const [first, second] = responses;
      const describe = () =>
        `${fuzzed.method} ${fuzzed.target}\n${fuzzed.headers.map(([n, v]) => `${n}: ${v}`).join('\n')}\n\n${fuzzed.body.toString('latin1').slice(0, 400)}\n--- responses ---\n` +
        responses.map((r) => `${r.head}\n\n${r.body.toString('utf8').slice(0, 300)}`).join('\n---\n');
      try {
        if (!first) throw new Error('no response at all');
        bump(`pipelined: ${first.status}, then ${second ? 'the valid call answered' : 'closed'}`);
        asmxCheck(fuzzed)(first);
        if (second) {
          const contentType = valid.headers.some(([, v]) => v.startsWith('application/soap+xml')) ? CONTENT_TYPES.soap12 : CONTENT_TYPES.xml;
          expectMember(second, contentType);
        } else if (!/close/i.test(header(first, 'connection') ?? '')) {
          throw new Error('the connection ended after the first response, which did not say Connection: close');
        }
      } catch (error) {
        throw new Error(`${(error as Error).message}\n--- request ---\n${describe()}`);
      }
    }),
    settings(RUNS),
  );
}, 120_000);

test('the sign-in form: random fields, CSRF tokens, origins and content types never get a 5xx, nor the login cookie without the password', async () => {
  const own = `http://127.0.0.1:${app.port}`;
  const login = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('ada', 'ADA', ' ada ', 'ada@example.org') },
    { weight: 2, arbitrary: fc.constantFrom('nobody', '', ' ', marker, 'member-42', 'ada\u0000') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  );
  const password = fc.oneof(
    { weight: 4, arbitrary: fc.constant(MEMBER_PASSWORD) },
    { weight: 2, arbitrary: fc.constantFrom(`${MEMBER_PASSWORD} `, MEMBER_PASSWORD.toUpperCase(), '', ' ', `${MEMBER_PASSWORD}\u0000`) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  );
  const csrfField = fc.oneof(
    { weight: 5, arbitrary: fc.constant(csrf.field) },
    { weight: 2, arbitrary: fc.constantFrom(`${csrf.field.slice(0, -1)}A`, '', marker, csrf.field.toLowerCase(), 'A'.repeat(43)) },
    { weight: 1, arbitrary: printable(50) },
  );
  const cookie = fc.oneof(
    { weight: 5, arbitrary: fc.constant(csrf.cookie) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        'signin-csrf=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        `signin-csrf=x; ${csrf.cookie}`,
        `${csrf.cookie}; .ASPXAUTH=nope`,
        `.ASPXAUTH=%zz; ${csrf.cookie}`,
        'signin-csrf=',
      ),
    },
    { weight: 1, arbitrary: printable(60) },
  );
  const origin = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.constant(own) },
    { weight: 2, arbitrary: fc.constantFrom('null', 'http://evil.example', `${own}/`, own.toUpperCase(), `https://127.0.0.1:${app.port}`, '') },
  );
  /** Return addresses, including every open-redirect trick: only this service and the registered portal may be reached. */
  const returnUrl = fc.oneof(
    fc.constantFrom(
      '/Login',
      '/x?token=1',
      '',
      marker,
      `${PORTAL}/back`,
      `${PORTAL.toUpperCase()}/back?token=stale`,
      `${PORTAL}:443/x`,
      `${own}/Login`,
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      ' //evil.example',
      '/%2F%2Fevil.example',
      '/./\\evil.example',
      'https:evil.example',
      'https:/evil.example',
      'HTTPS://EVIL.EXAMPLE',
      `http://127.0.0.1:${app.port}@evil.example/`,
      `${PORTAL}.evil.example/`,
      `${PORTAL}@evil.example/`,
      'https://evil.example%2F@portal.example.org/',
      'javascript:alert(1)',
      'data:text/html,x',
      '/Login/../../evil',
      '/\t/evil.example',
    ),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
  );
  const field = fc.oneof(
    fc.tuple(fc.constantFrom('ReturnUrl', 'returnUrl', 'ReturnPage'), returnUrl),
    fc.tuple(fc.constantFrom('remember', 'login', 'password', 'csrf', 'x', ''), fc.string({ unit: 'grapheme', maxLength: 20 })),
  );
  const request = fc
    .record({
      coherent: fc.boolean(),
      method: fc.oneof({ weight: 10, arbitrary: fc.constant('POST') }, { weight: 2, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: anyMethod }),
      path: fc.oneof(
        { weight: 10, arbitrary: fc.constant('/Login') },
        { weight: 2, arbitrary: fc.constantFrom('/login', '/LOGIN/', '/Login?ReturnUrl=%2Fx', '/Logout', '/Login/x', '/Login?ReturnUrl=%zz') },
        { weight: 2, arbitrary: fc.tuple(fc.constantFrom('/Login', '/Logout', '/logout/'), returnUrl).map(([path, url]) => `${path}?ReturnUrl=${encodeURIComponent(url)}`) },
      ),
      login: fc.option(login, { nil: undefined, freq: 10 }),
      password: fc.option(password, { nil: undefined, freq: 10 }),
      csrf: fc.option(csrfField, { nil: undefined, freq: 10 }),
      remember: fc.boolean(),
      extra: fc.array(field, { maxLength: 3 }),
      cookie,
      origin,
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant('application/x-www-form-urlencoded') },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            undefined,
            'application/x-www-form-urlencoded; charset=utf-8',
            'application/x-www-form-urlencoded; charset=latin1',
            'text/plain',
            'multipart/form-data; boundary=x',
            'application/json',
            ';',
          ),
        },
      ),
      encoding: fc.constantFrom('form', 'form', 'form', 'component', 'broken'),
      large: fc.oneof({ weight: 20, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40_000 }) }),
      headers: extraHeaders,
    })
    .map((r) => {
      const pairs: Array<[string, string]> = [];
      if (r.coherent || r.csrf !== undefined) pairs.push(['csrf', r.coherent ? csrf.field : (r.csrf as string)]);
      if (r.login !== undefined) pairs.push(['login', r.login]);
      if (r.password !== undefined) pairs.push(['password', r.password]);
      if (r.remember) pairs.push(['remember', 'on']);
      pairs.push(...r.extra);
      if (r.large > 0) pairs.push(['padding', 'x'.repeat(r.large)]);
      let body = new URLSearchParams(pairs).toString();
      if (r.encoding === 'component') body = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
      if (r.encoding === 'broken') body = `${body}&%zz=%E0%A4%A&login%=%`;
      const method = r.coherent ? 'POST' : r.method;
      const headers: Array<[string, string]> = [];
      const contentType = r.coherent ? 'application/x-www-form-urlencoded' : r.contentType;
      if (contentType !== undefined) headers.push(['Content-Type', contentType]);
      const cookieHeader = r.coherent ? csrf.cookie : r.cookie;
      if (cookieHeader !== undefined) headers.push(['Cookie', cookieHeader]);
      if (r.origin !== undefined) headers.push(['Origin', r.origin]);
      // Coherent requests keep their Host, so that the Origin check can pass.
      const extra = r.coherent ? [] : r.headers.filter(([n]) => n !== 'Cookie' && n !== 'Content-Encoding');
      const request: WireRequest = { method, target: r.coherent ? '/Login' : r.path, headers: [...headers, ...extra], body: method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : Buffer.from(body) };
      return request;
    });

  const loginCookie = '.ASPXAUTH=';
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      await sendAndCheck(r, (response) => {
        if (response.status >= 500) throw new Error(`status ${response.status}`);
        if (![200, 303, 400, 401, 403, 404, 405, 413, 415, 429].includes(response.status)) throw new Error(`status ${response.status}`);
        const text = response.body.toString('utf8');
        for (const forbidden of NEVER_IN_A_BODY) if (text.includes(forbidden)) throw new Error(`the body contains ${JSON.stringify(forbidden)}`);
        for (const secret of SECRETS) if (text.includes(secret)) throw new Error(`the body contains the secret ${JSON.stringify(secret)}`);
        if (/text\/html/.test(header(response, 'content-type') ?? '') && text.toLowerCase().includes('<x-fuzz')) throw new Error('unescaped markup from the request');
        const location = header(response, 'location');
        if (location !== undefined) {
          const signedIn = setCookies(response).some((l) => l.startsWith(loginCookie) && !l.startsWith(`${loginCookie};`));
          if (location.startsWith('/')) {
            if (/^\/[/\\]/.test(location)) throw new Error(`a redirect off the service: ${location}`);
          } else {
            const url = new URL(location);
            if (/evil/i.test(url.host) || !['http:', 'https:'].includes(url.protocol)) throw new Error(`a redirect off the service: ${location}`);
            // A session token goes to the registered portal after a sign-in only ("stale" is the return address's own).
            const token = url.searchParams.get('token');
            if (token !== null && token !== 'stale' && (url.origin !== PORTAL || !signedIn)) throw new Error(`a token where none belongs: ${location}`);
          }
        }
        for (const line of setCookies(response).filter((l) => l.startsWith(loginCookie))) {
          const value = line.slice(loginCookie.length).split(';')[0] ?? '';
          if (value === '') {
            if (!/^\/logout/i.test(r.target)) throw new Error(`the login cookie cleared by ${r.method} ${r.target}`);
            continue;
          }
          const form = parseQuery(r.body.toString('utf8'));
          const cookieHeader = r.headers.find(([n]) => n === 'Cookie')?.[1] ?? '';
          const signedIn =
            r.method === 'POST' &&
            /^\/login\/?(\?|$)/i.test(r.target) &&
            form.password === MEMBER_PASSWORD &&
            form.csrf === csrf.field &&
            cookieHeader.includes(csrf.cookie) &&
            typeof form.login === 'string' &&
            ['ada', 'ada@example.org'].includes(form.login.trim().toLowerCase());
          if (!signedIn) throw new Error('the login cookie was set for a request without the right form, CSRF proof and password');
          if (response.status !== 303) throw new Error(`the login cookie with status ${response.status}`);
          if (text.includes(decodeURIComponent(value))) throw new Error('the body echoes the new login cookie');
        }
      });
    }),
    settings(Math.ceil(RUNS * 0.8)),
  );

  // Signing in still works, and its cookie is a live session.
  const form = new URLSearchParams({ csrf: csrf.field, login: 'ada', password: MEMBER_PASSWORD }).toString();
  const signedIn = await send({
    method: 'POST',
    target: '/Login',
    headers: [
      ['Content-Type', 'application/x-www-form-urlencoded'],
      ['Cookie', csrf.cookie],
    ],
    body: Buffer.from(form),
  });
  expect(signedIn.status).toBe(303);
  const line = setCookies(signedIn).find((l) => l.startsWith(loginCookie));
  const value = decodeURIComponent(line?.slice(loginCookie.length).split(';')[0] ?? '');
  expect(value).not.toBe('');
  const query = new URLSearchParams({ securityPassword: CALLER_PASSWORD, loginCookie: value, cookieDomain: REFERENCE.domain });
  const check = await send({ method: 'GET', target: `/Authentication.asmx/AuthenticateCookie?${query}`, headers: [], body: Buffer.alloc(0) });
  expectMember(check, CONTENT_TYPES.xml);
}, 180_000);

test('a compressed body that inflates past the limits is refused with 413, on the endpoint and on the sign-in form', async () => {
  const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
  for (const [target, type] of [
    ['/Authentication.asmx', CONTENT_TYPES.xml],
    ['/Authentication.asmx/AuthenticateToken', 'application/x-www-form-urlencoded'],
    ['/Login', 'application/x-www-form-urlencoded'],
  ] as const) {
    const headers: Array<[string, string]> = [
      ['Content-Type', type],
      ['Content-Encoding', 'gzip'],
      ['SOAPAction', `"${REFERENCE.namespace}AuthenticateToken"`],
      ['Cookie', csrf.cookie],
    ];
    const response = await sendAndCheck({ method: 'POST', target, headers, body: bomb }, (r) => {
      if (r.status !== 413) throw new Error(`status ${r.status}`);
    });
    expect(response.status).toBe(413);
  }
});
