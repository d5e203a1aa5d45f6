import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPENSSL } from '../helpers/certificate.js';
import { cookieValue, setCookie } from '../helpers/cookies.js';
import {
  CLI_PATH,
  createTestDatabase,
  killLeftovers,
  NGINX,
  request,
  requestTls,
  runCli,
  startNginx,
  startService,
  type NginxProcess,
  type Response,
  type ServiceProcess,
  type TestDatabase,
} from '../helpers/processes.js';
import { POSTGRES } from '../helpers/postgres.js';
import { describeRequiring } from '../helpers/requirements.js';
import { operationElement, soapEnvelope } from '../helpers/soap-envelopes.js';
import { waitUntil } from '../helpers/wait.js';
import { authenticateCookie, authenticateToken, BINDINGS, slowCall, type Binding, type Endpoint } from './asmx-client.js';

/**
 * Two instances of the built service on their own loopback ports, sharing one PostgreSQL database and one
 * SECRET_KEY, behind Debian's nginx running deploy/nginx/authentication-asmx.conf (see
 * test/helpers/processes.ts for how it is rendered), as README.md's "Running several instances" sets them up.
 */

const MEMBER = { id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' };
const MEMBER_PASSWORD = 'correct horse battery staple';
const COOKIE_DOMAIN = '.example.test';
const PARTNER = 'https://partner.example.test';
const CALLER = 'partner-portal';
/** The instances' CACHE_TTL_MS: they run with the default. */
const CACHE_TTL_MS = 1000;

/** The instances' call log lines: they arrive through a pipe, a moment after the response (wait for them with waitUntil). */
const calls = (instance: ServiceProcess) => instance.logLines.filter((line) => line.message === 'call');

describeRequiring([NGINX, OPENSSL, POSTGRES], 'two instances behind nginx', () => {
  let database: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let nginx: NginxProcess;
  let securityPassword: string;

  // Every way a call reaches the service: each instance on its own port, and nginx over HTTP and HTTPS.
  let endpoints: Array<[string, Endpoint]>;
  const direct = (instance: ServiceProcess): Endpoint => (path, options) => request(`${instance.baseUrl}${path}`, options);
  const viaHttp: Endpoint = (path, options) => request(`${nginx.httpUrl}${path}`, options);
  const viaHttps: Endpoint = (path, options) => requestTls(nginx, path, options);

  beforeAll(async () => {
    if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run npm run build first (npm test does)`);
    database = await createTestDatabase('asmx_deploy');
    dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-deploy-'));
    securityPassword = randomBytes(24).toString('base64url');
    // What every instance shares (README: "Running several instances"). DATA_DIR is each instance's own and
    // stays empty: the store is PostgreSQL and the key comes from SECRET_KEY.
    env = {
      DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(32).toString('base64'),
      TRUST_PROXY: '127.0.0.1',
      RESULT_FORMAT: 'json',
      COOKIE_DOMAIN,
      SHUTDOWN_TIMEOUT: '5s',
    };
    // Seeded through the CLI, as an operator would (it also migrates the empty database).
    await runCli(['callers', 'add', CALLER, '--password', securityPassword], { ...env, DATA_DIR: join(dataDir, 'cli') });
    await runCli(['callers', 'add-origin', CALLER, PARTNER, '--receives-token'], { ...env, DATA_DIR: join(dataDir, 'cli') });
    const member = ['--id', MEMBER.id, '--username', MEMBER.username, '--email', MEMBER.email, '--first-name', MEMBER.firstName, '--last-name', MEMBER.lastName];
    await runCli(['members', 'add', ...member], { ...env, DATA_DIR: join(dataDir, 'cli') });
    await runCli(['members', 'set-password', MEMBER.id, '--password', MEMBER_PASSWORD], { ...env, DATA_DIR: join(dataDir, 'cli') });

    [a, b] = await Promise.all([startService('A', { ...env, DATA_DIR: join(dataDir, 'a') }), startService('B', { ...env, DATA_DIR: join(dataDir, 'b') })]);
    nginx = await startNginx([a.port, b.port]);
    endpoints = [
      ['instance A', direct(a)],
      ['instance B', direct(b)],
      ['nginx over HTTP', viaHttp],
      ['nginx over HTTPS', viaHttps],
    ];
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
    killLeftovers();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 30_000);

  /** Signs the member in through nginx over HTTPS as a browser would: the form, its CSRF cookie and field, the POST with Origin. */
  async function signIn(returnUrl: string): Promise<{ response: Response; cookie: string; token: string }> {
    const form = await requestTls(nginx, `/Login?ReturnUrl=${encodeURIComponent(returnUrl)}`);
    expect(form.status).toBe(200);
    const nonce = cookieValue(setCookie(form, 'signin-csrf'));
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)?.[1];
    expect(nonce).not.toBe('');
    expect(csrf).toBeDefined();
    const response = await requestTls(nginx, '/Login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: nginx.httpsUrl, Cookie: `signin-csrf=${nonce}` },
      body: String(new URLSearchParams({ csrf: csrf!, login: MEMBER.username, password: MEMBER_PASSWORD, ReturnUrl: returnUrl })),
    });
    expect(response.status).toBe(303);
    const location = new URL(String(response.headers.location));
    return { response, cookie: cookieValue(setCookie(response, '.ASPXAUTH')), token: location.searchParams.get('token') ?? '' };
  }

  let session: { cookie: string; token: string };

  test('signing in through nginx over HTTPS: the CSRF flow passes with the public origin, the cookie is Secure, the partner gets a token', async () => {
    const { response, cookie, token } = await signIn(`${PARTNER}/landing?page=home`);
    expect(response.headers.location).toMatch(new RegExp(`^${PARTNER}/landing\\?page=home&token=[A-Za-z0-9_-]{43}$`));
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const loginCookie = setCookie(response, '.ASPXAUTH');
    expect(loginCookie).toMatch(/; Secure(;|$)/);
    expect(loginCookie).toMatch(/; HttpOnly(;|$)/);
    expect(loginCookie).toMatch(new RegExp(`; Domain=${COOKIE_DOMAIN.replace(/\./g, '\\.')}(;|$)`));
    session = { cookie, token };

    // A form posted with another origin is refused: the instances compare Origin with the forwarded one.
    const form = await requestTls(nginx, '/Login');
    const forged = await requestTls(nginx, '/Login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: `http://localhost:${nginx.ports.https}`, Cookie: `signin-csrf=${cookieValue(setCookie(form, 'signin-csrf'))}` },
      body: String(new URLSearchParams({ csrf: /name="csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '', login: MEMBER.username, password: MEMBER_PASSWORD })),
    });
    expect(forged.status).toBe(403);
  });

  test('the sign-in pages over plain HTTP are redirected to HTTPS; /metrics is not served through the proxy', async () => {
    const redirected = await request(`${nginx.httpUrl}/Login?ReturnUrl=%2F`);
    expect(redirected.status).toBe(308);
    expect(redirected.headers.location).toBe(`https://127.0.0.1:${nginx.ports.https}/Login?ReturnUrl=%2F`);
    expect((await requestTls(nginx, '/metrics')).status).toBe(404);
  });

  test('bodies up to MAX_BODY_BYTES pass through nginx (buffered to disk past 16 KB), larger ones are refused with 413', async () => {
    const envelope = (padding: number) =>
      soapEnvelope('1.1', `${' '.repeat(padding)}${operationElement('http://tempuri.org/', 'AuthenticateToken', { securityPassword, token: session.token })}`);
    const post = (body: string) =>
      viaHttp('/Authentication.asmx', { method: 'POST', headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '"http://tempuri.org/AuthenticateToken"' }, body });
    const large = await post(envelope(60 * 1024));
    expect(large.status).toBe(200);
    expect(large.body.replace(/&quot;/g, '"')).toContain(`"contactid":"${MEMBER.id}"`);
    expect(await nginx.errorLog()).toContain('a client request body is buffered to a temporary file');
    const tooLarge = await post(envelope(65 * 1024));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toContain('nginx');
  });

  test('?wsdl through nginx carries the proxy’s public address: http:// over HTTP, https:// over HTTPS', async () => {
    const locations = (wsdl: Response) => [...wsdl.body.matchAll(/:address location="([^"]+)"/g)].map((m) => m[1]);
    const plain = await viaHttp('/Authentication.asmx?wsdl');
    expect(plain.status).toBe(200);
    expect(locations(plain)).toEqual(Array(4).fill(`http://127.0.0.1:${nginx.ports.http}/Authentication.asmx`));
    const tls = await viaHttps('/Authentication.asmx?wsdl');
    expect(tls.status).toBe(200);
    expect(locations(tls)).toEqual(Array(4).fill(`https://localhost:${nginx.ports.https}/Authentication.asmx`));
    // The instance's own address stays what it is when asked directly.
    expect(locations(await direct(a)('/Authentication.asmx?wsdl'))).toEqual(Array(4).fill(`http://127.0.0.1:${a.port}/Authentication.asmx`));
  });

  test('the session is verified through every instance and through nginx, over SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST', async () => {
    const before = [calls(a).length, calls(b).length];
    for (const [where, endpoint] of endpoints) {
      for (const binding of BINDINGS) {
        const byCookie = await authenticateCookie(endpoint, binding, securityPassword, session.cookie, COOKIE_DOMAIN);
        const byToken = await authenticateToken(endpoint, binding, securityPassword, session.token);
        expect({ where, binding, ...byCookie }).toMatchObject({ where, binding, status: 'Success', contactid: MEMBER.id, pa_token: session.token });
        expect({ where, binding, ...byToken }).toMatchObject({ where, binding, status: 'Success', contactid: MEMBER.id, pa_token: session.token });
      }
    }
    // The shared SECRET_KEY is what they use: neither instance made a key file of its own.
    expect([existsSync(join(dataDir, 'a', 'secret.key')), existsSync(join(dataDir, 'b', 'secret.key'))]).toEqual([false, false]);
    // 4 bindings × 2 operations on each instance directly, and 16 calls through nginx spread over both.
    await waitUntil(() => calls(a).length + calls(b).length >= before[0]! + before[1]! + 32, 'the 32 calls in the logs');
    const through = [calls(a).length - before[0]! - 8, calls(b).length - before[1]! - 8];
    expect(through[0]! + through[1]!).toBe(16);
    expect(through[0]).toBeGreaterThan(0);
    expect(through[1]).toBeGreaterThan(0);
  });

  test('nginx’s request id reaches the instance’s log line, and nginx’s access log holds no security password or token', async () => {
    const query = new URLSearchParams({ securityPassword, token: session.token });
    const response = await viaHttp(`/Authentication.asmx/AuthenticateToken?${query}`);
    expect(response.status).toBe(200);
    const id = String(response.headers['x-request-id']);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const logged = () => [...calls(a), ...calls(b)].find((line) => line.requestId === id);
    await waitUntil(() => logged() !== undefined, 'the call in the logs');
    expect(logged()).toMatchObject({ binding: 'httpget', operation: 'AuthenticateToken', outcome: 'signed-in', member: MEMBER.id });
    const accessLog = await nginx.accessLog();
    expect(accessLog).toContain(`"GET /Authentication.asmx/AuthenticateToken HTTP/1.1" 200`);
    expect(accessLog).toContain(`id=${id}`);
    expect(accessLog).not.toContain(securityPassword);
    expect(accessLog).not.toContain(session.token);
  });

  test('signing out through instance A ends the session there at once and on instance B within CACHE_TTL_MS (1 s), for AuthenticateCookie and AuthenticateToken', async () => {
    const out = await direct(a)('/Logout', { headers: { Cookie: `.ASPXAUTH=${session.cookie}` } });
    const signedOutAt = performance.now();
    expect(out.status).toBe(303);
    await waitUntil(() => a.logLines.some((line) => line.message === 'sign-out'), 'the sign-out in the log');
    expect(a.logLines.some((line) => line.message === 'sign-out' && line.outcome === 'signed-out')).toBe(true);
    /** The calls, over every binding, that still take the member for signed in. */
    const signedIn = async (endpoint: Endpoint) => {
      const answers = [];
      for (const binding of BINDINGS) {
        answers.push({ binding, ...(await authenticateCookie(endpoint, binding, securityPassword, session.cookie, COOKIE_DOMAIN)) });
        answers.push({ binding, ...(await authenticateToken(endpoint, binding, securityPassword, session.token)) });
      }
      return answers.filter((answer) => answer.status !== 'Failure');
    };
    expect(await signedIn(direct(a))).toEqual([]);
    // B may answer from what it read before the sign-out for less than CACHE_TTL_MS (1000 by default): no
    // check that begins later than that finds the member still signed in.
    let lastStaleCheckMs = -Infinity;
    await waitUntil(
      async () => {
        const began = performance.now();
        if ((await signedIn(direct(b))).length === 0) return true;
        lastStaleCheckMs = began - signedOutAt;
        return false;
      },
      'instance B to end the session',
      { timeoutMs: 10_000 },
    );
    expect(lastStaleCheckMs).toBeLessThan(CACHE_TTL_MS);
    expect(await signedIn(viaHttps)).toEqual([]);
  });

  test('SIGTERM to instance A under steady traffic through nginx: no request fails, A exits 0 after its stop, B serves the rest', async () => {
    const { token } = await signIn(`${PARTNER}/`);
    const results: Array<{ binding: Binding; ok: boolean; detail: string }> = [];
    const LOOPS = 4;
    /** Calls before the signal, and after A has exited: the traffic is steady on both sides of the stop. */
    const STEADY_CALLS = 40;
    /** The most the traffic makes, should A never exit. */
    const MAX_CALLS = 5000;
    let callsAtExit = Infinity;
    const loop = async (index: number) => {
      for (let n = index; results.length < Math.min(callsAtExit + STEADY_CALLS, MAX_CALLS); n += 1) {
        const binding = BINDINGS[n % BINDINGS.length]!;
        try {
          const result = await authenticateToken(viaHttp, binding, securityPassword, token);
          const ok = result.status === 'Success' && result.contactid === MEMBER.id;
          results.push({ binding, ok, detail: ok ? '' : JSON.stringify(result) });
        } catch (error) {
          results.push({ binding, ok: false, detail: (error as Error).message });
        }
      }
    };
    const callsBefore = calls(a).length + calls(b).length;
    const traffic = Promise.all(Array.from({ length: LOOPS }, (_, index) => loop(index)));
    // The signal comes into steady traffic.
    await waitUntil(() => results.length >= STEADY_CALLS, 'steady traffic through nginx', { timeoutMs: 20_000 });
    // One request is in flight on A when the signal comes: its body is still arriving.
    const inFlight = slowCall(a.port, securityPassword, token);
    await inFlight.read();
    const servedByABefore = calls(a).length;
    const callsOfBBefore = calls(b).length;
    const sigtermAt = new Date();
    const exit = a.stop('SIGTERM');
    // A stops accepting, as soon as it has accepted the connections already made …
    await waitUntil(() => a.logLines.some((line) => String(line.message).startsWith('stopping')), 'A to log its stop');
    const refused = () => request(`${a.baseUrl}/Authentication.asmx?wsdl`).then(() => false, (error: Error) => /ECONNREFUSED/.test(error.message));
    await waitUntil(refused, 'A to refuse new connections');
    // … but finishes what it has in flight (within SHUTDOWN_TIMEOUT, 5 s here), whose body ends during the stop.
    const finished = await inFlight.finish();
    expect(finished.status).toBe(200);
    expect(finished.body.replace(/&quot;/g, '"')).toContain(`"contactid":"${MEMBER.id}"`);
    const { code, signal } = await exit;
    callsAtExit = results.length;
    await traffic;
    await waitUntil(() => calls(a).length + calls(b).length - callsBefore >= results.length + 1, 'every call in the logs');

    const failures = results.filter((r) => !r.ok);
    // On failure, nginx's view of the upstreams too (what it could not retry).
    const upstreamErrors = failures.length === 0 ? [] : (await nginx.errorLog()).split('\n').filter((line) => line.includes('upstream'));
    expect({ failures, upstreamErrors }).toEqual({ failures: [], upstreamErrors: [] });
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(servedByABefore).toBeGreaterThan(0);
    // A logged its stop, the store closing, and that it stopped (and nothing went wrong on the way).
    const messages = a.logLines.map((line) => String(line.message));
    expect(messages.some((message) => /store closed/.test(message))).toBe(true);
    expect(messages.at(-1)).toBe('stopped');
    expect(a.logLines.filter((line) => line.level === 'error')).toEqual([]);
    // B answered the calls after the SIGTERM.
    const servedByBAfter = calls(b).filter((line) => new Date(String(line.timestamp)) > sigtermAt).length;
    expect(calls(b).length - callsOfBBefore).toBeGreaterThan(0);
    // Those begun once A had exited, at least: each loop had one call on its way then.
    expect(servedByBAfter).toBeGreaterThanOrEqual(STEADY_CALLS - LOOPS);
    // Every call was answered by one of them (a call nginx retried shows on both).
    expect(calls(a).length + calls(b).length - callsBefore).toBeGreaterThanOrEqual(results.length + 1);
  }, 30_000);
});
