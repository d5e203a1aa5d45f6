/**
 * The worst requests within the limits, on purpose: bodies that fill MAX_BODY_BYTES with the deepest nesting,
 * the most repeats, attributes, namespace declarations, entity references and the longest names, on every
 * binding. Each must cost little CPU, be answered as ASMX answers such a request, and leave the service
 * answering others meanwhile.
 */
import { compileCli } from '../helpers/compiled-cli.js';
import { killLeftovers } from '../helpers/processes.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { fc } from '../helpers/seeded-fast-check.js';
import { startSeededService, type SeededService } from '../helpers/seeded-service.js';
import { SOAP_NS } from '../helpers/soap-envelopes.js';
import { idleServiceCpuMs, serviceCpuMs } from '../helpers/thread-cpu.js';
import { exchange, type WireRequest, type WireResponse } from './wire.js';

/**
 * What a hostile request may cost the service (its event loop and its worker pool, in a process of its own:
 * test/helpers/thread-cpu.ts), as a multiple of a valid request of the same size and binding whose one value is
 * plain text (`plainFullBody`), measured just before it the same way. Both are costs of the same process on the
 * same machine at the same moment, so other work inflates them much alike, though not exactly: a full body of
 * the costliest shapes took 17 to 20 ms on an idle 2-core machine and 31 ms in a CI run under load, while the
 * plain body took 5 to 7 ms idle (at most 3.4 times, also beside three busy loops); in one CI run under load, a
 * body of elements with 64 attributes each (before the document's attributes were limited) took 8 times the plain
 * body, and beside two busy loops on a machine already loaded (2026-11-28: 171 shapes and places, 40 mixed bodies)
 * CDATA sections took 7.2 times it, comments 4.7, everything else at most 3.4: allocation-heavy work slows more
 * than a plain scan. The budget is three times the worst of those; quadratic work on a body takes hundreds of
 * times the plain body.
 */
const BUDGET_RATIO = 25;
const MAX_BODY_BYTES = 64 * 1024;
/** Node's limit on the request head, which bounds a query string. */
const MAX_HEAD_BYTES = 16 * 1024;

const NS = REFERENCE.namespace;
const SOAP11 = SOAP_NS['1.1'];
const SOAP12 = SOAP_NS['1.2'];

/** `unit(i)` repeated until the text would pass `bytes`. */
function fill(bytes: number, unit: (i: number) => string): string {
  let text = '';
  for (let i = 0; ; i++) {
    const next = unit(i);
    if (text.length + next.length > bytes) return text;
    text += next;
  }
}

/** Where in an envelope the filler goes, with what surrounds it there. */
type Place = 'header' | 'operation' | 'parameter';

/** A hostile filler of at most `bytes` bytes, for a place in the envelope. */
type Filler = (bytes: number) => string;

const FILLERS: Record<string, Filler> = {
  'unclosed nesting': (bytes) => fill(bytes, () => '<a>'),
  'closed nesting': (bytes) => fill(bytes / 2, () => '<a>') + fill(bytes / 2, () => '</a>'),
  'nesting that declares a prefix at each level': (bytes) => fill(bytes, (i) => `<p${i}:a xmlns:p${i}="urn:${i}">`),
  'sibling elements': (bytes) => fill(bytes, () => '<a/>'),
  'repeated parameters': (bytes) => fill(bytes, () => '<token>t</token>'),
  'attributes on one element': (bytes) => `<a ${fill(bytes - 8, (i) => `a${i}="" `)}/>`,
  'elements with the most attributes each': (bytes) => fill(bytes, () => `<a ${Array.from({ length: 64 }, (_, i) => `a${i}=""`).join(' ')}/>`),
  'namespace declarations': (bytes) => `<a ${fill(bytes - 8, (i) => `xmlns:p${i}="u" `)}/>`,
  'mustUnderstand headers': (bytes) => fill(bytes, (i) => `<h${i} s:mustUnderstand="1" xmlns:s="${SOAP11}"/>`),
  'entity references': (bytes) => fill(bytes, () => '&amp;'),
  'character references': (bytes) => fill(bytes, () => '&#x41;'),
  'unknown entities': (bytes) => fill(bytes, () => '&x;'),
  'a long element name': (bytes) => `<${'a'.repeat(bytes - 8)}/>`,
  'a long attribute name': (bytes) => `<a ${'b'.repeat(bytes - 12)}=""/>`,
  'a long attribute value': (bytes) => `<a b="${'x'.repeat(bytes - 12)}"/>`,
  comments: (bytes) => fill(bytes, () => '<!---->'),
  'processing instructions': (bytes) => fill(bytes, () => '<?p?>'),
  'CDATA sections': (bytes) => fill(bytes, () => '<![CDATA[]]>'),
  'unclosed tags': (bytes) => fill(bytes, () => '<'),
};

/** The envelope with the filler at its place; the whole fits MAX_BODY_BYTES. */
function envelope(version: '1.1' | '1.2', place: Place, filler: Filler): string {
  const ns = version === '1.1' ? SOAP11 : SOAP12;
  const parts = {
    header: ['<soap:Header>', '</soap:Header>'],
    operation: ['', ''],
    parameter: ['<token>', '</token>'],
  }[place];
  const before = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ns}">${place === 'header' ? parts[0] : ''}`;
  const opening = `${place === 'header' ? parts[1] : ''}<soap:Body><AuthenticateToken xmlns="${NS}"><securityPassword>${REFERENCE.password}</securityPassword>${place === 'parameter' ? parts[0] : ''}`;
  const after = `${place === 'parameter' ? parts[1] : ''}</AuthenticateToken></soap:Body></soap:Envelope>`;
  const room = MAX_BODY_BYTES - before.length - opening.length - after.length - 16;
  return place === 'header' ? before + filler(room) + opening + after : before + opening + filler(room) + after;
}

type SoapBinding = 'SOAP 1.1' | 'SOAP 1.2 routed on the body' | 'SOAP 1.1 without SOAPAction';

function soapRequest(binding: SoapBinding, body: string): WireRequest {
  const headers: Array<[string, string]> =
    binding === 'SOAP 1.1'
      ? [['Content-Type', 'text/xml; charset=utf-8'], ['SOAPAction', `"${NS}AuthenticateToken"`]]
      : binding === 'SOAP 1.1 without SOAPAction'
        ? [['Content-Type', 'text/xml; charset=utf-8']]
        : [['Content-Type', 'application/soap+xml; charset=utf-8']];
  return { method: 'POST', target: '/Authentication.asmx', headers, body: Buffer.from(body, 'utf8') };
}

const FORM_FILLERS: Record<string, Filler> = {
  'empty fields': (bytes) => fill(bytes, () => '&a='),
  'a repeated parameter': (bytes) => fill(bytes, () => '&token=t'),
  'percent escapes': (bytes) => `token=${fill(bytes - 6, () => '%41')}`,
  'a long field name': (bytes) => `${'a'.repeat(bytes - 2)}=1`,
};

function formRequest(filler: Filler): WireRequest {
  const body = `securityPassword=${REFERENCE.password}&${filler(MAX_BODY_BYTES - 64)}`;
  return {
    method: 'POST',
    target: '/Authentication.asmx/AuthenticateToken',
    headers: [['Content-Type', 'application/x-www-form-urlencoded']],
    body: Buffer.from(body, 'latin1'),
  };
}

function queryRequest(filler: Filler): WireRequest {
  const target = `/Authentication.asmx/AuthenticateToken?securityPassword=${REFERENCE.password}&${filler(MAX_HEAD_BYTES - 512)}`;
  return { method: 'GET', target, headers: [], body: Buffer.alloc(0) };
}

const VALID: WireRequest = {
  method: 'GET',
  target: `/Authentication.asmx/AuthenticateToken?securityPassword=${REFERENCE.password}&token=${encodeURIComponent(REFERENCE.token)}`,
  headers: [],
  body: Buffer.alloc(0),
};

let cli: Awaited<ReturnType<typeof compileCli>>;
let service: SeededService;
beforeAll(async () => {
  cli = await compileCli();
  service = await startSeededService('worst-case', cli.cliPath);
  // The budget is a running service's: each shape once first, so that compiling the code it runs is not
  // charged to a measured request.
  for (const filler of Object.values(FILLERS)) {
    for (const binding of ['SOAP 1.1', 'SOAP 1.2 routed on the body'] as const) {
      await exchange(service.port, soapRequest(binding, envelope(binding === 'SOAP 1.1' ? '1.1' : '1.2', 'header', filler)), { timeoutMs: 10_000 });
    }
  }
  for (const filler of Object.values(FORM_FILLERS)) await exchange(service.port, formRequest(filler), { timeoutMs: 10_000 });
}, 60_000);
afterAll(async () => {
  await service?.close();
  killLeftovers();
  await cli?.remove();
});

/**
 * Sends the request (`samples` times, default once) and measures the CPU time the service took from before it
 * was sent until it fell idle after answering: its own work, which neither the test's process nor the rest of
 * the machine adds to. A sample can also carry a garbage collection that earlier requests left, so a request
 * over `budgetMs` is sent again, up to five times in all, and its cheapest sample counts: a request whose own
 * work is too costly is over it every time.
 */
async function measured(
  request: WireRequest,
  target: SeededService = service,
  samples = 1,
  budgetMs = Infinity,
): Promise<{ response: WireResponse; cpuMs: number }> {
  const pid = target.child.pid as number;
  let cheapest: { response: WireResponse; cpuMs: number } | undefined;
  for (let attempt = 0; attempt < 5 && (cheapest === undefined || attempt < samples || cheapest.cpuMs >= budgetMs); attempt++) {
    const start = await idleServiceCpuMs(pid);
    const response = await exchange(target.port, request, { timeoutMs: 10_000 });
    const cpuMs = (await idleServiceCpuMs(pid)) - start;
    if (cheapest === undefined || cpuMs < cheapest.cpuMs) cheapest = { response, cpuMs };
  }
  return cheapest as { response: WireResponse; cpuMs: number };
}

/** A filler of plain text: what a valid request of the full size carries. */
const plainText: Filler = (bytes) => `token=${'x'.repeat(bytes - 6)}`;

/** A valid request of the hostile one's size and binding, whose one value is plain text. */
function plainFullBody(hostile: WireRequest): WireRequest {
  if (hostile.method === 'GET') return queryRequest(plainText);
  if (hostile.target !== '/Authentication.asmx') return formRequest(plainText);
  const version = hostile.headers.some(([, value]) => value.startsWith('application/soap+xml')) ? '1.2' : '1.1';
  return { ...hostile, body: Buffer.from(envelope(version, 'parameter', (bytes) => 'x'.repeat(bytes)), 'utf8') };
}

/**
 * Measures the hostile request after its plain counterpart (the cheapest of three) and checks it costs at most
 * BUDGET_RATIO times as much; returns its answer.
 */
async function expectWithinBudget(hostile: WireRequest): Promise<WireResponse> {
  const plain = await measured(plainFullBody(hostile), service, 3);
  const budgetMs = BUDGET_RATIO * plain.cpuMs;
  const { response, cpuMs } = await measured(hostile, service, 1, budgetMs);
  expect({ cpuMs, plainMs: plain.cpuMs, withinBudget: cpuMs < budgetMs }).toEqual({ cpuMs, plainMs: plain.cpuMs, withinBudget: true });
  return response;
}

/** What ASMX may answer such a request with: a result, its refusals and faults, never a crash or a stack. */
function expectAsmxAnswer(response: WireResponse): void {
  expect([200, 400, 413, 415, 500]).toContain(response.status);
  expect(response.body.toString('utf8')).not.toMatch(/\n\s+at |node_modules|Error: /);
}

const SOAP_BINDINGS: SoapBinding[] = ['SOAP 1.1', 'SOAP 1.2 routed on the body', 'SOAP 1.1 without SOAPAction'];
const PLACES: Place[] = ['header', 'operation', 'parameter'];
const SOAP_CASES = Object.keys(FILLERS).flatMap((name) => SOAP_BINDINGS.flatMap((binding) => PLACES.map((place) => [name, binding, place] as const)));

test.each(SOAP_CASES)('%s, %s, in the %s: answered within the CPU budget', async (name, binding, place) => {
  const body = envelope(binding === 'SOAP 1.2 routed on the body' ? '1.2' : '1.1', place, FILLERS[name] as Filler);
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
  expect(Buffer.byteLength(body)).toBeGreaterThan(MAX_BODY_BYTES - 1024);
  expectAsmxAnswer(await expectWithinBudget(soapRequest(binding, body)));
});

test.each(Object.keys(FORM_FILLERS))('HTTP POST, a form of %s: answered within the CPU budget', async (name) => {
  expectAsmxAnswer(await expectWithinBudget(formRequest(FORM_FILLERS[name] as Filler)));
});

test.each(Object.keys(FORM_FILLERS))('HTTP GET, a query of %s: answered within the CPU budget', async (name) => {
  expectAsmxAnswer(await expectWithinBudget(queryRequest(FORM_FILLERS[name] as Filler)));
});

test('nesting deeper than the limit is a malformed document: 400 with no body, in the envelope\'s SOAP version', async () => {
  for (const [binding, contentType] of [
    ['SOAP 1.1', 'text/xml; charset=utf-8'],
    ['SOAP 1.1 without SOAPAction', 'text/xml; charset=utf-8'],
    ['SOAP 1.2 routed on the body', 'application/soap+xml; charset=utf-8'],
  ] as const) {
    const body = envelope(binding === 'SOAP 1.2 routed on the body' ? '1.2' : '1.1', 'header', FILLERS['unclosed nesting'] as Filler);
    const { response } = await measured(soapRequest(binding, body));
    expect([binding, response.status, response.headers.get('content-type')?.[0], response.body.length]).toEqual([binding, 400, contentType, 0]);
  }
});

test('more attributes in one envelope than the limit is a malformed document: 400 with no body', async () => {
  for (const place of PLACES) {
    const body = envelope('1.1', place, FILLERS['elements with the most attributes each'] as Filler);
    const { response } = await measured(soapRequest('SOAP 1.1', body));
    expect([place, response.status, response.body.length]).toEqual([place, 400, 0]);
  }
});

test('mixed hostile bodies (shapes and proportions drawn at random) stay within the CPU budget', async () => {
  const names = Object.keys(FILLERS);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...names),
      fc.constantFrom(...names),
      fc.integer({ min: 1, max: 99 }),
      fc.constantFrom(...SOAP_BINDINGS),
      fc.constantFrom(...PLACES),
      async (first, second, percent, binding, place) => {
        const mixed: Filler = (bytes) => (FILLERS[first] as Filler)(Math.floor((bytes * percent) / 100)) + (FILLERS[second] as Filler)(Math.floor((bytes * (100 - percent)) / 100));
        expectAsmxAnswer(await expectWithinBudget(soapRequest(binding, envelope(binding === 'SOAP 1.2 routed on the body' ? '1.2' : '1.1', place, mixed))));
      },
    ),
    { numRuns: 40 },
  );
});

test.each([
  ['the unclosed 21,500-level soap:Header', soapRequest('SOAP 1.1 without SOAPAction', `<soap:Envelope xmlns:soap="${SOAP11}"><soap:Header>${'<a>'.repeat(21_500)}`)],
  ['21,800 empty form fields to AuthenticateToken', formRequest(FORM_FILLERS['empty fields'] as Filler)],
])('four requests of %s at once: a valid call beside them waits for at most what one may cost of the service\'s work', async (_name, hostile) => {
  // One hostile request's budget; beside two busy loops the valid call waited for 6 to 18 ms, 1 to 4 plain bodies.
  const budgetMs = BUDGET_RATIO * (await measured(plainFullBody(hostile), service, 3)).cpuMs;
  const pid = service.child.pid as number;
  const started = await idleServiceCpuMs(pid);
  const hostiles = Array.from({ length: 4 }, () => exchange(service.port, hostile, { timeoutMs: 10_000 }));
  const valid = await exchange(service.port, VALID);
  const waited = serviceCpuMs(pid) - started;
  for (const response of await Promise.all(hostiles)) expectAsmxAnswer(response);
  expect(valid.status).toBe(200);
  expect(valid.body.toString('utf8')).toContain(REFERENCE.memberId);
  expect({ waited, budgetMs, within: waited < budgetMs }).toEqual({ waited, budgetMs, within: true });
});

describe('credentials that fill the request (AuthenticateUser, Login)', () => {
  let vendor: SeededService;
  const PASSWORD = 'correct horse battery staple';
  beforeAll(async () => {
    vendor = await startSeededService('worst-case vendor', cli.cliPath, {
      env: { OPERATIONS: 'AuthenticateUser,Login', RESULT_FORMAT: 'json', SIGNIN_MAX_FAILURES_PER_ACCOUNT: '1' },
      seed: (services) => services.members.setPassword(REFERENCE.memberId, PASSWORD),
    });
  }, 30_000);
  afterAll(() => vendor.close());

  const soapCall = (operation: string, username: string, password: string): WireRequest => ({
    method: 'POST',
    target: '/Authentication.asmx',
    headers: [['Content-Type', 'text/xml; charset=utf-8'], ['SOAPAction', `"${NS}${operation}"`]],
    body: Buffer.from(
      `<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body><${operation} xmlns="${NS}"><securityPassword>${REFERENCE.password}</securityPassword><username>${username}</username><password>${password}</password></${operation}></soap:Body></soap:Envelope>`,
    ),
  });
  const room = MAX_BODY_BYTES - 512;

  test.each([
    ['a username', 'a'.repeat(room), PASSWORD],
    ['a password', 'ada', 'p'.repeat(room)],
    ['a password of four-byte characters', 'ada', '😀'.repeat(room / 4)],
    ['both', 'a'.repeat(room / 2), 'p'.repeat(room / 2)],
  ])('%s filling the body: bad credentials in band, no password hash, for less CPU than a sign-in, and nothing counted', async (_name, username, password) => {
    const refusedMs: number[] = [];
    for (const operation of ['AuthenticateUser', 'Login']) {
      // The cheapest of three, to be set against a sign-in's cost below.
      const { response, cpuMs } = await measured(soapCall(operation, username, password), vendor, 3);
      expect(response.status).toBe(200);
      expect(response.body.toString('utf8')).toContain('{"status":"Failure","message":"Invalid username or password"}');
      refusedMs.push(cpuMs);
    }
    // One failure locks an account here: had any of these counted against ada, her password would not work.
    const { response, cpuMs: signInMs } = await measured(soapCall('Login', 'ada', PASSWORD), vendor);
    expect(response.body.toString('utf8')).toContain('"status":"Success"');
    // Verifying a password hash costs more than reading a full body: beside two busy loops the refusals took 4 to
    // 12 ms, the sign-ins 21 to 28 (2026-11-28). A refusal that hashed the password, or read the body in more
    // than linear time, would cost more than the sign-in.
    expect({ refusedMs, signInMs, within: Math.max(...refusedMs) < signInMs }).toEqual({ refusedMs, signInMs, within: true });
  });
});
