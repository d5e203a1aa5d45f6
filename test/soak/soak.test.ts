/**
 * Soak: steady mixed traffic for SOAK_SECONDS (default 15) at a fixed concurrency, against one app on the
 * SQLite store, in this process. Calls over all four bindings (mostly valid, some unknown tokens and
 * cookies, some wrong caller passwords), sign-in cycles (form, sign-in, verification, sign-out) and failed
 * sign-ins. The mix is a matter of count, not time: each worker's steps follow from the seed, and the run goes
 * on past SOAK_SECONDS until every kind of traffic has run, however slow the machine. Checked: every response is
 * exactly what its request should get; the event loop's own work never holds it for more than 100 ms (the CPU
 * time its thread ran between two turns of a 10 ms timer: on a busy machine the timer is also late while the
 * process waits for a CPU, which is no stall of the app's); the heap levels off.
 *
 * The heap is sampled every second after a full collection (global.gc, or V8's --expose-gc set at run time;
 * the collection is the test's own pause and falls between two loop monitors); without one, the medians of
 * raw samples are compared. The samples, the loop delays (perf_hooks.monitorEventLoopDelay's, which count
 * the waits too), the CPU the process got and the tally of traffic are printed.
 *
 * SOAK_SECONDS, SOAK_WORKERS (8), SOAK_RATE (calls per second, 0 = as fast as the workers go) and TEST_SEED
 * (the run's seed, test/helpers/test-seed.ts: fixed unless set; printed, and named in a failure) change the run.
 */
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { hashPassword } from '../../src/service/passwords.js';
import { asmxRequest, type Binding } from '../helpers/asmx-request.js';
import { cookieValue, setCookie } from '../helpers/cookies.js';
import { highThrottleLimits } from '../helpers/high-limits.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { SOAP_NS, xmlText } from '../helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { TEST_SEED } from '../helpers/test-seed.js';
import { threadRanMs } from '../helpers/thread-cpu.js';
import { sleep } from '../helpers/wait.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 15);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 8);
/** Calls per second, all workers together (a sign-in cycle counts as one); 0: as fast as the workers can go. */
const RATE = Number(process.env.SOAK_RATE ?? 0);
const MAX_STALL_MS = 100;
/** How often the loop's own work is sampled: the resolution of monitorEventLoopDelay's. */
const TICK_MS = 10;
/** The heap's median over the last third of the run may exceed the middle third's by this much, at most. */
const HEAP_GROWTH = { ratio: 0.25, bytes: 20 * 1024 * 1024 };
/**
 * How many steps after its last sign-in cycle, and after its last failed sign-in, a worker does the next: argon2id
 * is slow on purpose, keep it a small share.
 */
const SIGNIN_EVERY_STEPS = 200;
const BAD_SIGNIN_EVERY_STEPS = 300;
/** How long a request may go unanswered: a guard against a hang, which a loaded machine never comes near. */
const NO_ANSWER_MS = 60_000;

const NS = REFERENCE.namespace;
const DOMAIN = '.example.org';
const PORTAL = 'https://portal.example.org';
const MEMBER_PASSWORD = 'soak: correct horse battery staple';
const SESSIONS = 16;

// ---------------------------------------------------------------------------------------------------------
// What each request should get, written out as the README and the ASMX transcripts describe it.

type Operation = 'AuthenticateToken' | 'AuthenticateCookie';
const BINDINGS: Binding[] = ['soap11', 'soap12', 'httpget', 'httppost'];
const ENVELOPE = { soap11: SOAP_NS['1.1'], soap12: SOAP_NS['1.2'] };
const XML = 'text/xml; charset=utf-8';
const SOAP12 = 'application/soap+xml; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';


const ibridgeUser = ({ token, cookie }: { token: string; cookie: string }) =>
  `<?xml version="1.0" encoding="UTF-16"?><iBridge><User ID="${REFERENCE.memberId}" TOKEN="${token}" EMAIL="ada@example.org" FIRSTNAME="Ada" LASTNAME="Lovelace" FULL_NAME="Ada Lovelace" USER_COOKIE=".ASPXAUTH=${cookie}" /></iBridge>`;
const NOT_SIGNED_IN: Record<Operation, string> = {
  AuthenticateToken: '<?xml version="1.0" encoding="UTF-16"?><iBridge><Errors><Error Number="1001" Description="Invalid token: no live session has this token" /></Errors></iBridge>',
  AuthenticateCookie:
    '<?xml version="1.0" encoding="UTF-16"?><iBridge><Errors><Error Number="1002" Description="Invalid login cookie: no live session token was issued for this cookie and domain" /></Errors></iBridge>',
};

interface Expected {
  status: number;
  contentType: string;
  body: string;
}

function expectedResult(binding: Binding, operation: Operation, result: string): Expected {
  if (binding === 'httpget' || binding === 'httppost') {
    return { status: 200, contentType: XML, body: `<?xml version="1.0" encoding="utf-8"?>\n<string xmlns="${NS}">${xmlText(result)}</string>` };
  }
  return {
    status: 200,
    contentType: binding === 'soap11' ? XML : SOAP12,
    body:
      `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ENVELOPE[binding]}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">` +
      `<soap:Body><${operation}Response xmlns="${NS}"><${operation}Result>${xmlText(result)}</${operation}Result></${operation}Response></soap:Body></soap:Envelope>`,
  };
}

function expectedWrongPassword(binding: Binding): Expected {
  const text = 'Server was unable to process request. ---&gt; Invalid security password';
  const head = (version: 'soap11' | 'soap12') =>
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ENVELOPE[version]}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>`;
  switch (binding) {
    case 'soap11':
      return { status: 500, contentType: XML, body: `${head('soap11')}<soap:Fault><faultcode>soap:Server</faultcode><faultstring>${text}</faultstring><detail /></soap:Fault></soap:Body></soap:Envelope>` };
    case 'soap12':
      return {
        status: 500,
        contentType: SOAP12,
        body: `${head('soap12')}<soap:Fault><soap:Code><soap:Value>soap:Receiver</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">${text}</soap:Text></soap:Reason><soap:Detail /></soap:Fault></soap:Body></soap:Envelope>`,
      };
    default:
      return { status: 500, contentType: TEXT, body: 'Invalid security password\n' };
  }
}

// ---------------------------------------------------------------------------------------------------------
// The client: keep-alive connections, one per worker, as partner sites and proxies hold them.

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

let app: TestApp;
let agent: Agent;
let callerPassword: string;
const sessions: Array<{ cookie: string; token: string }> = [];

function send(method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body, 'utf8');
    const req = request(
      { agent, host: '127.0.0.1', port: app.port, method, path, headers: { ...headers, ...(method === 'GET' ? {} : { 'Content-Length': String(payload.length) }) }, timeout: NO_ANSWER_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          if (res.headers['content-length'] !== String(bytes.length)) {
            reject(new Error(`${method} ${path}: Content-Length ${res.headers['content-length']} for ${bytes.length} bytes`));
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${NO_ANSWER_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

function callRequest(binding: Binding, operation: Operation, values: Record<string, string>): Promise<Reply> {
  const names = operation === 'AuthenticateToken' ? ['securityPassword', 'token'] : ['securityPassword', 'loginCookie', 'cookieDomain'];
  const { method, path, headers, body } = asmxRequest(NS, binding, operation, Object.fromEntries(names.map((name) => [name, values[name] ?? ''])));
  return send(method, path, headers, body);
}

// ---------------------------------------------------------------------------------------------------------
// The traffic and its tally.

/** mulberry32: a small seeded generator, so that a run's mix can be replayed (TEST_SEED). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tally = new Map<string, number>();
const unexpected: string[] = [];
let requests = 0;

function record(kind: string, reply: Reply, expected: Expected | ((reply: Reply) => string | null), what: string): void {
  requests += 1;
  tally.set(kind, (tally.get(kind) ?? 0) + 1);
  const problem =
    typeof expected === 'function'
      ? expected(reply)
      : reply.status !== expected.status || reply.headers['content-type'] !== expected.contentType || reply.body !== expected.body
        ? `expected ${expected.status} ${expected.contentType} ${JSON.stringify(expected.body)}`
        : null;
  if (problem) unexpected.push(`${what}: ${problem}; got ${reply.status} ${reply.headers['content-type']} ${JSON.stringify(reply.body.slice(0, 400))}`);
}

/** The kinds of traffic every run must have had: a valid call over each binding, a sign-in and a failed one. */
const MUST_RUN = [...BINDINGS.map((binding) => `${binding} AuthenticateToken valid`), 'POST /Login (sign-in)', 'POST /Login (bad password)'];
const everyKindRan = () => MUST_RUN.every((kind) => (tally.get(kind) ?? 0) > 0);

/** Any failure to get a response at all is unexpected too. */
async function attempt(what: string, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    requests += 1;
    unexpected.push(`${what}: ${(error as Error).message}`);
  }
}


class Worker {
  #csrf: { cookie: string; field: string } | undefined;
  #nextSignIn: number;
  #nextBadSignIn: number;

  constructor(
    private readonly id: number,
    private readonly next: () => number,
  ) {
    // Spread the slow steps over the workers rather than starting every worker's at once; the first worker's come
    // first, so that a slow machine has them early.
    this.#nextSignIn = Math.floor((id * SIGNIN_EVERY_STEPS) / WORKERS);
    this.#nextBadSignIn = Math.floor((id * BAD_SIGNIN_EVERY_STEPS) / WORKERS) + 1;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Steps until `until` (performance.now()) has passed and `done()` holds. */
  async run(until: number, done: () => boolean): Promise<void> {
    // Each worker starts a step every `interval` ms at most: the traffic is steady, not as fast as it can go.
    const interval = RATE > 0 ? (WORKERS * 1000) / RATE : 0;
    let slot = performance.now();
    for (let step = 0; performance.now() < until || !done(); step++) {
      if (interval > 0) {
        slot += interval;
        const wait = slot - performance.now();
        if (wait > 0) await sleep(wait);
        else slot = performance.now();
      }
      if (step >= this.#nextSignIn) {
        await attempt(`worker ${this.id} sign-in cycle`, () => this.signInCycle());
        this.#nextSignIn = step + SIGNIN_EVERY_STEPS;
      } else if (step >= this.#nextBadSignIn) {
        await attempt(`worker ${this.id} failed sign-in`, () => this.failedSignIn());
        this.#nextBadSignIn = step + BAD_SIGNIN_EVERY_STEPS;
      } else {
        await attempt(`worker ${this.id} call`, () => this.call());
      }
    }
  }

  /** One call: mostly a live session, some unknown tokens and cookies, some wrong caller passwords. */
  async call(): Promise<void> {
    const binding = this.pick(BINDINGS);
    const operation = this.pick<Operation>(['AuthenticateToken', 'AuthenticateCookie']);
    const dice = this.next();
    const session = this.pick(sessions);
    if (dice < 0.8) {
      const reply = await callRequest(binding, operation, { securityPassword: callerPassword, token: session.token, loginCookie: session.cookie, cookieDomain: DOMAIN });
      record(`${binding} ${operation} valid`, reply, expectedResult(binding, operation, ibridgeUser(session)), `${binding} ${operation} valid`);
    } else if (dice < 0.92) {
      const unknown = `unknown-${Math.floor(this.next() * 1e12).toString(36)}`;
      const reply = await callRequest(binding, operation, { securityPassword: callerPassword, token: unknown, loginCookie: unknown, cookieDomain: DOMAIN });
      record(`${binding} ${operation} unknown`, reply, expectedResult(binding, operation, NOT_SIGNED_IN[operation]), `${binding} ${operation} unknown`);
    } else {
      const reply = await callRequest(binding, operation, { securityPassword: `${callerPassword}x`, token: session.token, loginCookie: session.cookie, cookieDomain: DOMAIN });
      record(`${binding} ${operation} wrong caller password`, reply, expectedWrongPassword(binding), `${binding} ${operation} wrong caller password`);
    }
  }

  /** The sign-in form, as a browser opens it: the CSRF cookie once, the form's proof each time. */
  async openForm(): Promise<{ cookie: string; field: string }> {
    const reply = await send('GET', '/Login', this.#csrf ? { Cookie: this.#csrf.cookie } : {});
    const field = /name="csrf" value="([^"]+)"/.exec(reply.body)?.[1];
    const cookie = this.#csrf?.cookie ?? `signin-csrf=${cookieValue(setCookie(reply, 'signin-csrf'))}`;
    record('GET /Login (form)', reply, () => (reply.status === 200 && field !== undefined && cookie !== 'signin-csrf=' ? null : 'expected 200 with a CSRF cookie and field'), 'GET /Login');
    this.#csrf = { cookie, field: field ?? '' };
    return this.#csrf;
  }

  /** Sign in, verify the new session over two bindings and the page, sign out, and see the session gone. */
  async signInCycle(): Promise<void> {
    const form = await this.openForm();
    const remember = this.next() < 0.5;
    const body = new URLSearchParams({ csrf: form.field, login: this.pick(['ada', 'ada@example.org', 'ADA']), password: MEMBER_PASSWORD, ReturnUrl: `${PORTAL}/back`, ...(remember ? { remember: 'on' } : {}) });
    const signedIn = await send('POST', '/Login', { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: form.cookie }, body.toString());
    const cookie = cookieValue(setCookie(signedIn, '.ASPXAUTH'));
    const location = signedIn.headers.location ?? '';
    const token = location.startsWith(`${PORTAL}/back?token=`) ? new URL(location).searchParams.get('token') ?? '' : '';
    record('POST /Login (sign-in)', signedIn, () => (signedIn.status === 303 && cookie !== '' && token !== '' ? null : `expected 303 to ${PORTAL}/back?token=… with the login cookie (location ${location})`), 'sign-in');
    if (cookie === '' || token === '') return;

    const byCookie = this.pick(BINDINGS);
    const byToken = this.pick(BINDINGS);
    const values = { securityPassword: callerPassword, token, loginCookie: cookie, cookieDomain: DOMAIN };
    record(`${byCookie} AuthenticateCookie signed-in`, await callRequest(byCookie, 'AuthenticateCookie', values), expectedResult(byCookie, 'AuthenticateCookie', ibridgeUser({ token, cookie })), 'cookie after sign-in');
    record(`${byToken} AuthenticateToken signed-in`, await callRequest(byToken, 'AuthenticateToken', values), expectedResult(byToken, 'AuthenticateToken', ibridgeUser({ token, cookie })), 'token after sign-in');

    const page = await send('GET', '/Login', { Cookie: `${form.cookie}; .ASPXAUTH=${encodeURIComponent(cookie)}` });
    record('GET /Login (signed in)', page, () => (page.status === 200 && page.body.includes('You are signed in') ? null : 'expected the signed-in page'), 'signed-in page');

    const logout =
      this.next() < 0.5
        ? await send('GET', '/Logout', { Cookie: `.ASPXAUTH=${encodeURIComponent(cookie)}` })
        : await send('POST', '/Logout', { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: `.ASPXAUTH=${encodeURIComponent(cookie)}` }, '');
    const cleared = setCookie(logout, '.ASPXAUTH');
    record('/Logout (sign-out)', logout, () => (logout.status === 303 && cleared?.startsWith('.ASPXAUTH=;') ? null : 'expected 303 clearing the login cookie'), 'sign-out');

    record(`${byCookie} AuthenticateCookie signed-out`, await callRequest(byCookie, 'AuthenticateCookie', values), expectedResult(byCookie, 'AuthenticateCookie', NOT_SIGNED_IN.AuthenticateCookie), 'cookie after sign-out');
    record(`${byToken} AuthenticateToken signed-out`, await callRequest(byToken, 'AuthenticateToken', values), expectedResult(byToken, 'AuthenticateToken', NOT_SIGNED_IN.AuthenticateToken), 'token after sign-out');
  }

  /** A wrong password, or a login nobody has: 401, and no login cookie. */
  async failedSignIn(): Promise<void> {
    const form = await this.openForm();
    const login = this.pick(['ada', 'nobody@example.org']);
    const body = new URLSearchParams({ csrf: form.field, login, password: `${MEMBER_PASSWORD} (wrong)` });
    const reply = await send('POST', '/Login', { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: form.cookie }, body.toString());
    record('POST /Login (bad password)', reply, () => (reply.status === 401 && !setCookie(reply, '.ASPXAUTH') ? null : 'expected 401 without the login cookie'), 'bad password');
  }
}

// ---------------------------------------------------------------------------------------------------------

/** A full collection before each heap sample when one can be had (--expose-gc, or V8's flag set now). */
function findGc(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The event loop's delay, in windows between the test's own forced collections: a fresh monitor per window
 * (a monitor that is disabled and enabled again would count the pause in between as a delay). Beside
 * monitorEventLoopDelay's, a timer of its own every TICK_MS reads the CPU time the main thread ran since the
 * timer's last turn (the scheduler's count, test/helpers/thread-cpu.ts): past TICK_MS, that is how long the
 * loop's own work kept the timer waiting. On a busy machine the timer also waits while the thread waits for a
 * CPU, or for V8's helper threads (which the forced collections leave sweeping): that is the machine's doing,
 * and shows in the loop delays printed.
 */
class LoopMonitor {
  #current: IntervalHistogram | undefined;
  #ticker: NodeJS.Timeout | undefined;
  /** Each window's largest delay, in ms, to tell a steady load from a one-off stall. */
  readonly windowsMaxMs: number[] = [];
  #max = 0;
  #ownMax = 0;
  #worstP99 = 0;
  #sum = 0;
  #count = 0;

  resume(): void {
    this.#current = monitorEventLoopDelay({ resolution: TICK_MS });
    this.#current.enable();
    let last = threadRanMs(process.pid);
    this.#ticker = setInterval(() => {
      const now = threadRanMs(process.pid);
      this.#ownMax = Math.max(this.#ownMax, now - last - TICK_MS);
      last = now;
    }, TICK_MS);
  }

  pause(): void {
    clearInterval(this.#ticker);
    const window = this.#current;
    if (!window) return;
    window.disable();
    this.#current = undefined;
    if (window.count === 0) return;
    this.#max = Math.max(this.#max, window.max);
    this.windowsMaxMs.push(window.max / 1e6);
    this.#worstP99 = Math.max(this.#worstP99, window.percentile(99));
    this.#sum += window.mean * window.count;
    this.#count += window.count;
  }

  get maxMs(): number {
    return this.#max / 1e6;
  }

  /** The longest the loop's own work kept its timer waiting. */
  get ownMaxMs(): number {
    return this.#ownMax;
  }

  get worstP99Ms(): number {
    return this.#worstP99 / 1e6;
  }

  get meanMs(): number {
    return this.#count === 0 ? 0 : this.#sum / this.#count / 1e6;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Runs the checks; a failure's message begins with the seed that replays the run's traffic. */
function withSeed(checks: () => void): void {
  try {
    checks();
  } catch (error) {
    if (error instanceof Error) error.message = `soak seed ${TEST_SEED} (replay with TEST_SEED=${TEST_SEED})\n${error.message}`;
    throw error;
  }
}

beforeAll(async () => {
  app = await startTestApp({ env: { RESULT_FORMAT: 'ibridge', COOKIE_DOMAIN: DOMAIN, ...highThrottleLimits() } });
  callerPassword = (await app.services.callers.add('soak-client')).password;
  await app.services.callers.addOrigin('reference-client', PORTAL, { receivesToken: true });
  await app.store.setMemberPassword(REFERENCE.memberId, await hashPassword(MEMBER_PASSWORD), Date.now());
  for (let i = 0; i < SESSIONS; i += 1) {
    const issued = await app.services.sessions.create(REFERENCE.memberId, DOMAIN);
    sessions.push({ cookie: issued.cookie, token: issued.token });
  }
  agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
});
afterAll(async () => {
  agent?.destroy();
  await app?.close();
});

test(
  `${SECONDS} s of mixed traffic from ${WORKERS} workers: every response as expected, the event loop never held over ${MAX_STALL_MS} ms by its own work, ` +
    `and the heap levels off (median of the last third at most 25 % and 20 MB above the middle third's)`,
  async () => {
    const gc = findGc();
    const loop = new LoopMonitor();
    const heap: number[] = [];
    const gcMs: number[] = [];
    const logErrors: unknown[] = [];
    let logLines = 0;
    let logWarnings = 0;
    // Garbage-collection pauses other than the forced ones, to tell them apart from the app's own work.
    const forced: Array<[number, number]> = [];
    const pauses: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (!forced.some(([from, to]) => entry.startTime >= from - 1 && entry.startTime <= to + 1)) pauses.push(entry.duration);
      }
    });
    observer.observe({ entryTypes: ['gc'] });

    // How much CPU the process got each second (all its threads): a stall in a second where it got little
    // says the machine was busy with something else.
    const cpuShares: number[] = [];
    let lastCpu = process.cpuUsage();
    let lastWall = performance.now();
    const sample = () => {
      const cpu = process.cpuUsage();
      const wall = performance.now();
      cpuShares.push((cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000 / (wall - lastWall));
      lastCpu = cpu;
      lastWall = wall;
      if (gc) {
        // The forced collection is the test's own pause, not the app's: the loop monitor is between windows.
        loop.pause();
        const before = performance.now();
        gc();
        forced.push([before, performance.now()]);
        gcMs.push(performance.now() - before);
        loop.resume();
      }
      heap.push(process.memoryUsage().heapUsed);
      // The test app keeps every log line; look at them for errors and let them go.
      logLines += app.logLines.length;
      logErrors.push(...app.logLines.filter((line) => line.level === 'error'));
      logWarnings += app.logLines.filter((line) => line.level === 'warn').length;
      app.logLines.length = 0;
    };

    const started = performance.now();
    const until = started + SECONDS * 1000;
    loop.resume();
    const sampler = setInterval(sample, 1000);
    await Promise.all(Array.from({ length: WORKERS }, (_, i) => new Worker(i, random(TEST_SEED + i)).run(until, everyKindRan)));
    clearInterval(sampler);
    sample();
    loop.pause();
    observer.disconnect();
    const elapsed = (performance.now() - started) / 1000;

    const maxStallMs = loop.ownMaxMs;
    const third = Math.floor(heap.length / 3);
    const middle = median(heap.slice(third, 2 * third));
    const last = median(heap.slice(heap.length - third));
    const allowed = Math.min(middle * HEAP_GROWTH.ratio, HEAP_GROWTH.bytes);
    console.log(
      [
        `soak: seed ${TEST_SEED}, ${WORKERS} workers, ${elapsed.toFixed(1)} s, ${requests} requests (${(requests / elapsed).toFixed(0)}/s), ${unexpected.length} unexpected, ${logLines} log lines (${logErrors.length} errors, ${logWarnings} warnings)`,
        `event loop held by its own work (CPU time past a ${TICK_MS} ms timer's period): max ${maxStallMs.toFixed(1)} ms`,
        `event loop delay, waits included (resolution ${TICK_MS} ms): max ${loop.maxMs.toFixed(1)} ms, worst one-second p99 ${loop.worstP99Ms.toFixed(1)} ms, mean ${loop.meanMs.toFixed(1)} ms`,
        `heap (MB${gc ? ', after a full collection' : ', no collection forced'}): ${heap.map(mb).join(' ')}`,
        `largest delay in each window (ms): ${loop.windowsMaxMs.map((ms) => ms.toFixed(0)).join(' ')}`,
        `CPU the process got in each second (1 = one core): ${cpuShares.map((share) => share.toFixed(2)).join(' ')}; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`,
        `the app's own garbage collections: ${pauses.length}, longest ${Math.max(0, ...pauses).toFixed(1)} ms`,
        ...(gc ? [`forced collections (ms, not counted as stalls): ${gcMs.map((ms) => ms.toFixed(0)).join(' ')}`] : []),
        `heap medians: middle third ${mb(middle)} MB, last third ${mb(last)} MB (allowed growth ${mb(allowed)} MB)`,
        ...[...tally].sort().map(([kind, n]) => `  ${String(n).padStart(6)}  ${kind}`),
        ...unexpected.slice(0, 10),
      ].join('\n'),
    );

    withSeed(() => {
      expect(unexpected).toEqual([]);
      expect(logErrors).toEqual([]);
      expect(everyKindRan()).toBe(true);
      expect(maxStallMs).toBeLessThanOrEqual(MAX_STALL_MS);
      expect(heap.length).toBeGreaterThanOrEqual(6);
      expect(last - middle).toBeLessThanOrEqual(allowed);
    });
  },
  (SECONDS + 120) * 1000,
);
