/**
 * PostgreSQL stopped under load, and started again: a server of the test's own (the shared one serves the other
 * tests), stopped in fast mode, which ends the open connections (57P01) and then refuses new ones. Every call made
 * meanwhile is answered in its protocol's own "unavailable" shape, never as an internal error; the cause is logged
 * once per burst, without a stack trace, and counted; once the server is back, calls succeed again with no restart,
 * and the end of each burst is logged once.
 */
import { jest } from '@jest/globals';
import { RECOVERY_QUIET_MS } from '../../src/ops/store-availability.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { asmxRequest, resultText, type Binding } from '../helpers/asmx-request.js';
import { freePort } from '../helpers/ports.js';
import { POSTGRES_SERVER, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { describeRequiring } from '../helpers/requirements.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { useFakeTimers } from '../helpers/fake-timers.js';
import { nextTurn, sleep, waitUntil } from '../helpers/wait.js';
import { PageClient, type Page } from '../helpers/page-client.js';

const PASSWORD = 'correct horse battery staple';
const REDIRECT_URI = 'https://platform.example.org/callback';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const UNAVAILABLE_TEXT = 'The service cannot use its database at the moment; try again later.';
/** One call started every this many ms: about 20 calls a second, whatever the machine's speed. */
const PACE_MS = 50;
/** Answers of each kind wanted while the server is down, and again once it is back. */
const WANTED = 4;
/** Generous bounds for a loaded machine: the test waits on counts of answers, these only stop it if they never come. */
const PHASE_TIMEOUT_MS = 60_000;

type Shape = 'ok' | 'unavailable' | 'wrong';

interface Answer {
  kind: string;
  phase: Phase;
  shape: Shape;
  seen: string;
}

type Phase = 'up' | 'down' | 'back';

describeRequiring([POSTGRES_SERVER], 'PostgreSQL stopped under load and started again', () => {
  let server: PrivatePostgres;
  let app: TestApp;
  let securityPassword: string;
  let token: string;
  let scimToken: string;
  let clientId: string;
  let authorizationQuery: URLSearchParams;
  /** A member signed in on the sign-in page before the outage. */
  let member: PageClient;
  const answers: Answer[] = [];
  let phase: Phase = 'up';
  let loading = true;
  let load: Promise<void>;

  /** store_unavailable_total, by reason. */
  const unavailableTotal = async (): Promise<Record<string, number>> => {
    const { values } = (await app.metrics?.registry.getSingleMetric('store_unavailable_total')?.get()) ?? { values: [] };
    return Object.fromEntries(values.map(({ labels, value }) => [String(labels.reason), value]));
  };

  async function asmx(binding: Binding, operation: string, params: Record<string, string>, ok: (result: string) => boolean): Promise<[Shape, string]> {
    const { path, element, ...init } = asmxRequest(app.config.soapNamespace, binding, operation, params);
    const response = await fetch(`${app.baseUrl}${app.config.basePath}${path}`, init);
    const body = await response.text();
    const seen = `${response.status} ${response.headers.get('content-type')} ${body.slice(0, 300)}`;
    if (response.status === 200) return [ok(resultText(body, element) ?? '') ? 'ok' : 'wrong', seen];
    if (binding.startsWith('soap')) {
      const fault = response.status === 500 && body.includes(`Server was unable to process request. ---&gt; ${UNAVAILABLE_TEXT}`);
      return [fault ? 'unavailable' : 'wrong', seen];
    }
    return [response.status === 503 && response.headers.get('content-type') === 'text/plain; charset=utf-8' && body === `${UNAVAILABLE_TEXT}\n` ? 'unavailable' : 'wrong', seen];
  }

  /** A page's answer: `ok` as the page answers while the store works, or the pages' 503. */
  function pageShape(page: Page, ok: boolean): [Shape, string] {
    const seen = `${page.status} ${page.headers['content-type']} ${page.text.slice(0, 300)}`;
    if (ok) return ['ok', seen];
    const unavailable = page.status === 503 && /^text\/html/.test(page.headers['content-type'] ?? '') && page.text.includes('Sign-in is temporarily unavailable');
    return [unavailable ? 'unavailable' : 'wrong', seen];
  }

  /** A SCIM request's answer: `ok` as `ok` judges its body while the store works, or SCIM's 503 error. */
  async function scim(path: string, ok: (body: Record<string, unknown>) => boolean): Promise<[Shape, string]> {
    const response = await fetch(`${app.baseUrl}/scim/v2${path}`, { headers: { authorization: `Bearer ${scimToken}` } });
    const text = await response.text();
    const seen = `${response.status} ${response.headers.get('content-type')} ${text.slice(0, 300)}`;
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('application/scim+json')) return ['wrong', seen];
    const body = JSON.parse(text) as Record<string, unknown>;
    if (response.status === 200) return [ok(body) ? 'ok' : 'wrong', seen];
    const unavailable = response.status === 503 && body['status'] === '503' && JSON.stringify(body['schemas']) === '["urn:ietf:params:scim:api:messages:2.0:Error"]';
    return [unavailable ? 'unavailable' : 'wrong', seen];
  }

  /** Each kind of call, and how its answer is told: what it answers while the store works, its "unavailable", or wrong. */
  const KINDS: Record<string, () => Promise<[Shape, string]>> = {
    'SOAP 1.1 AuthenticateToken': () => asmx('soap11', 'AuthenticateToken', { securityPassword, token }, (result) => result.includes('10042')),
    'HTTP GET AuthenticateToken': () => asmx('httpget', 'AuthenticateToken', { securityPassword, token }, (result) => result.includes('10042')),
    'HTTP POST AuthenticateUser': () =>
      asmx('httppost', 'AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD, authenticationToken: '' }, (result) => result.includes('10042')),
    'the sign-in page': async () => {
      const page = await new PageClient(app.baseUrl).signIn('ada', PASSWORD);
      return pageShape(page, page.status === 303);
    },
    'the account page': async () => {
      const page = await member.get(app.config.signin.accountPath);
      return pageShape(page, page.status === 200 && page.text.includes('<h1>Your account</h1>'));
    },
    "an OpenID client's authorization request": async () => {
      const response = await fetch(`${app.baseUrl}/oidc/auth?${authorizationQuery}`, { redirect: 'manual', headers: { accept: BROWSER_ACCEPT } });
      const location = response.headers.get('location') ?? '';
      const text = await response.text();
      const seen = `${response.status} ${location} ${response.headers.get('content-type')} ${text.slice(0, 300)}`;
      if (response.status === 303 && location.startsWith('/oidc/interaction/')) return ['ok', seen];
      // Back to the client, with OAuth's error and the request's state, once the client and its redirect URI are
      // known; else the pages' 503.
      const back = location.startsWith(`${REDIRECT_URI}?`) ? new URL(location).searchParams : undefined;
      if (response.status === 303) return [back?.get('error') === 'temporarily_unavailable' && back.get('state') === 'abc' ? 'unavailable' : 'wrong', seen];
      return [response.status === 503 && text.includes('Sign-in is temporarily unavailable') ? 'unavailable' : 'wrong', seen];
    },
    'SCIM GET /Users': () => scim('/Users?filter=userName%20eq%20%22ada%22', (body) => body['totalResults'] === 1),
    'SCIM GET /Groups': () => scim('/Groups?filter=displayName%20eq%20%22Board%22', (body) => body['totalResults'] === 1),
    "an OpenID client's token request": async () => {
      const response = await fetch(`${app.baseUrl}/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: String(new URLSearchParams({ grant_type: 'authorization_code', code: 'no-such-code', client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: 'x'.repeat(43) })),
      });
      const text = await response.text();
      const seen = `${response.status} ${response.headers.get('content-type')} ${text.slice(0, 300)}`;
      const error = (JSON.parse(text) as { error?: string }).error;
      // While the store works, the unknown code is refused as such.
      if (response.status === 400 && error === 'invalid_grant') return ['ok', seen];
      return [response.status === 503 && error === 'temporarily_unavailable' ? 'unavailable' : 'wrong', seen];
    },
    '/readyz': async () => {
      const response = await fetch(`${app.baseUrl}/readyz`);
      const text = (await response.text()).trim();
      const seen = `${response.status} ${text}`;
      if (response.status === 200) return ['ok', seen];
      // A ping slower than its second on a loaded machine is not ready too.
      return [response.status === 503 && ['unreachable', 'timeout'].includes(text) ? 'unavailable' : 'wrong', seen];
    },
  };
  const kinds = Object.keys(KINDS);

  /** One call started every PACE_MS, in turn through the kinds, each answer recorded with the phase its call began in. */
  async function runLoad(): Promise<void> {
    const calls: Array<Promise<void>> = [];
    for (let turn = 0; loading; turn += 1) {
      const kind = kinds[turn % kinds.length] as string;
      const started = phase;
      calls.push(
        (KINDS[kind] as () => Promise<[Shape, string]>)().then(
          ([shape, seen]) => void answers.push({ kind, phase: started, shape, seen }),
          (error: unknown) => void answers.push({ kind, phase: started, shape: 'wrong', seen: String(error) }),
        ),
      );
      await sleep(PACE_MS);
    }
    await Promise.all(calls);
  }

  const answered = (wanted: Phase, shape: Shape) => (kind: string) => answers.filter((a) => a.kind === kind && a.phase === wanted && a.shape === shape).length;
  /** Waits for WANTED such answers of every kind; fails at the first wrong answer. */
  const untilEveryKind = (wanted: Phase, shape: Shape) =>
    waitUntil(
      () => {
        const wrong = answers.find((a) => a.shape === 'wrong');
        if (wrong) throw new Error(`${wrong.kind} was answered ${wrong.seen}`);
        return kinds.every((kind) => answered(wanted, shape)(kind) >= WANTED);
      },
      () => `${WANTED} ${shape} answers of each kind while ${wanted}: ${JSON.stringify(Object.fromEntries(kinds.map((kind) => [kind, answered(wanted, shape)(kind)])))}`,
      { timeoutMs: PHASE_TIMEOUT_MS, intervalMs: PACE_MS },
    );

  beforeAll(async () => {
    server = await startPrivatePostgres();
    const port = await freePort();
    app = await startTestApp({
      store: async () => {
        const store = new PostgresStore({ connectionString: server.url });
        await store.migrate();
        return { store, cleanup: () => store.close() };
      },
      seed: false,
      port,
      // Every call reads the store: nothing is answered from the instance's caches.
      env: { OPERATIONS: 'AuthenticateCookie,AuthenticateToken,AuthenticateUser', PUBLIC_URL: `http://127.0.0.1:${port}`, CACHE_TTL_MS: '0' },
    });
    ({ password: securityPassword } = await app.services.callers.add('portal'));
    scimToken = (await app.services.provisioners.add('entra'))?.token ?? '';
    const issued = await app.services.oidc.clients.add('platform', { redirectUris: [REDIRECT_URI], public: true });
    clientId = issued?.client.id ?? '';
    await app.services.members.add({ id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
    await app.store.createRole({ id: 'board', name: 'Board', externalId: null, createdAt: Date.now() });
    await app.services.members.setPassword('10042', PASSWORD);
    ({ token } = await app.services.sessions.create('10042', 'example.org'));
    member = new PageClient(app.baseUrl);
    expect((await member.signIn('ada', PASSWORD)).status).toBe(303);
    authorizationQuery = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'abc',
    });
  }, PHASE_TIMEOUT_MS);

  afterAll(async () => {
    jest.useRealTimers();
    loading = false;
    await load;
    await app?.close();
    await server?.remove();
  }, PHASE_TIMEOUT_MS);

  test('every call is answered in its protocol\'s "unavailable" shape while the server is down, and succeeds again once it is back', async () => {
    load = runLoad();
    await untilEveryKind('up', 'ok');
    const before = await unavailableTotal();

    await server.stop({ mode: 'fast' });
    phase = 'down';
    await untilEveryKind('down', 'unavailable');

    // The end of each burst is logged once no call has failed for its cause for a while: that clock is a fake one.
    useFakeTimers();
    await server.start();
    phase = 'back';
    await untilEveryKind('back', 'ok');
    loading = false;
    await load;
    await jest.advanceTimersByTimeAsync(RECOVERY_QUIET_MS);
    await nextTurn();

    expect(answers.filter((a) => a.shape === 'wrong')).toEqual([]);
    // Once a kind succeeded again, it goes on succeeding: the pool has put the lost connections behind it.
    for (const kind of kinds) {
      const back = answers.filter((a) => a.kind === kind && a.phase === 'back');
      expect(back.slice(back.findIndex((a) => a.shape === 'ok')).map((a) => a.shape)).toEqual(Array(answered('back', 'ok')(kind)).fill('ok'));
    }

    // Logged once per burst: one error line for each cause that was counted, none for each request, no stack.
    const after = await unavailableTotal();
    const counted = Object.keys(after)
      .filter((reason) => (after[reason] ?? 0) > (before[reason] ?? 0))
      .sort();
    expect(counted).toContain('unreachable');
    const errors = app.logLines.filter((line) => line.level === 'error');
    expect(errors.map((line) => [line.message, line.reason]).sort()).toEqual(counted.map((reason) => ['store unavailable', reason]));
    const recovered = app.logLines.filter((line) => line.message === 'store available again');
    expect(recovered.map((line) => [line.level, line.reason]).sort()).toEqual(counted.map((reason) => ['info', reason]));
    const down = answers.filter((a) => a.phase === 'down' && a.shape === 'unavailable').length;
    const failures = counted.reduce((sum, reason) => sum + (after[reason] ?? 0) - (before[reason] ?? 0), 0);
    expect(failures).toBeGreaterThanOrEqual(down);
    expect(app.logLines.filter((line) => JSON.stringify(line).includes('    at '))).toEqual([]);
    // The readiness changes alone are warnings (a ping slower than its second under load is one too).
    const warnings = app.logLines.filter((line) => line.level === 'warn').map((line) => String(line.message));
    expect(warnings).toContain('not ready: the store cannot be reached');
    // The events recorded while the server was down are lost: counted, and logged once for the whole outage.
    expect(warnings.filter((message) => message === 'events not written').length).toBeLessThanOrEqual(1);
    expect(warnings.filter((message) => !message.startsWith('not ready: ') && message !== 'events not written')).toEqual([]);
  }, 4 * PHASE_TIMEOUT_MS);
});
