/**
 * /metrics: the service's counters and histogram with their labels after real calls over each binding, a
 * sign-in and a sign-out, a wrong caller password and a store failure; switched off; or on a port of its own.
 */
import request from 'supertest';
import { SIGN_IN_ATTEMPT_OUTCOMES } from '../../src/log/signin-outcomes.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { hashPassword } from '../../src/service/passwords.js';
import { httpGetAuthenticateToken, soap11AuthenticateCookie, soap12AuthenticateToken } from '../helpers/asmx-calls.js';
import { sample } from '../helpers/metrics.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { operationElement, SOAP_NS, soapEnvelope, type SoapVersion } from '../helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let app: TestApp;
afterEach(() => app.close());

/** The refused AuthenticateToken calls a binding counted. */
function refusedTokenCalls(text: string, binding: string): number | undefined {
  return sample(text, `asmx_calls_total{binding="${binding}",operation="AuthenticateToken",outcome="refused"}`);
}

async function scrape(baseUrl = app.baseUrl): Promise<string> {
  const res = await request(baseUrl).get('/metrics').expect(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  expect(res.headers['cache-control']).toBe('no-store');
  return res.text;
}

async function signIn(password: string) {
  const page = await request(app.baseUrl).get('/Login').expect(200);
  const cookie = (page.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith('signin-csrf='))?.split(';')[0] ?? '';
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  return request(app.baseUrl).post('/Login').type('form').set('Cookie', cookie).send({ csrf, login: 'ada', password });
}

describe('on the main port (the default)', () => {
  beforeEach(async () => {
    app = await startTestApp({ env: { COOKIE_SECURE: 'false' } });
    await app.store.setMemberPassword(REFERENCE.memberId, await hashPassword('pw-of-ada'), Date.now());
  });

  it('counts calls by binding, operation and outcome, with their latency by binding', async () => {
    expect(await soap11AuthenticateCookie(app.baseUrl, REFERENCE.cookie, REFERENCE.domain)).toBe(REFERENCE.memberId);
    expect(await soap12AuthenticateToken(app.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);
    expect(await soap12AuthenticateToken(app.baseUrl, 'unknown')).toBe('');
    expect(await httpGetAuthenticateToken(app.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);
    await request(app.baseUrl).post('/Authentication.asmx/AuthenticateToken').type('form').send({ securityPassword: REFERENCE.password, token: 'x' }).expect(200);
    await request(app.baseUrl).get('/Authentication.asmx/AuthenticateToken').query({ securityPassword: REFERENCE.password }).expect(500); // missing token
    await request(app.baseUrl).get('/Authentication.asmx/NoSuchMethod').expect(500);

    const text = await scrape();
    const calls = (binding: string, operation: string, outcome: string) =>
      sample(text, `asmx_calls_total{binding="${binding}",operation="${operation}",outcome="${outcome}"}`);
    expect(calls('soap11', 'AuthenticateCookie', 'signed_in')).toBe(1);
    expect(calls('soap12', 'AuthenticateToken', 'signed_in')).toBe(1);
    expect(calls('soap12', 'AuthenticateToken', 'not_signed_in')).toBe(1);
    expect(calls('httpget', 'AuthenticateToken', 'signed_in')).toBe(1);
    expect(calls('httppost', 'AuthenticateToken', 'not_signed_in')).toBe(1);
    expect(calls('httpget', 'AuthenticateToken', 'refused')).toBe(1);
    expect(calls('httpget', 'none', 'refused')).toBe(1);
    expect(sample(text, 'asmx_call_duration_seconds_count{binding="soap12"}')).toBe(2);
    expect(sample(text, 'asmx_call_duration_seconds_count{binding="httpget"}')).toBe(3);
    expect(sample(text, 'asmx_call_duration_seconds_bucket{le="0.0005",binding="soap11"}')).toBeDefined();
    expect(sample(text, 'asmx_call_duration_seconds_bucket{le="+Inf",binding="soap11"}')).toBe(1);
    expect(sample(text, 'caller_password_failures_total')).toBe(0);
  });

  it('counts and logs a call refused after its operation was chosen under that operation, on every binding', async () => {
    const ns = REFERENCE.namespace;
    const action = `${ns}AuthenticateToken`;
    const call = operationElement(ns, 'AuthenticateToken', { securityPassword: REFERENCE.password, token: 'x' });
    const envelope = (version: SoapVersion) => soapEnvelope(version, call, { prefix: 'soap', header: '<Security soap:mustUnderstand="1" xmlns="urn:s"/>' });
    const soap = (contentType: string, body: string, soapAction?: string) => {
      const post = request(app.baseUrl).post('/Authentication.asmx').set('Content-Type', contentType);
      return (soapAction === undefined ? post : post.set('SOAPAction', soapAction)).send(body);
    };
    // SOAP 1.1 routed on SOAPAction, SOAP 1.2 on the action parameter and on the body element; each then
    // refused for a header nobody understands, or (SOAP 1.1) for XML that breaks after the route was chosen.
    await soap('text/xml; charset=utf-8', envelope('1.1'), `"${action}"`).expect(500);
    await soap('text/xml; charset=utf-8', `<soap:Envelope xmlns:soap="${SOAP_NS['1.1']}"><soap:Body>${call}`, `"${action}"`).expect(400);
    await soap(`application/soap+xml; charset=utf-8; action="${action}"`, envelope('1.2')).expect(500);
    await soap('application/soap+xml; charset=utf-8', envelope('1.2')).expect(500);
    // HTTP GET without a parameter, HTTP POST without a form.
    await request(app.baseUrl).get('/Authentication.asmx/AuthenticateToken').query({ token: 'x' }).expect(500);
    await request(app.baseUrl).post('/Authentication.asmx/AuthenticateToken').set('Content-Type', 'text/plain').send('x').expect(500);

    const text = await scrape();
    expect(['soap11', 'soap12', 'httpget', 'httppost'].map((binding) => refusedTokenCalls(text, binding))).toEqual([2, 2, 1, 1]);
    expect(text).not.toContain('operation="none"');
    const lines = app.logLines.filter((line) => line.message === 'call').map((line) => [line.binding, line.operation, line.outcome]);
    expect(lines).toEqual([
      ['soap11', 'AuthenticateToken', 'refused:MUST_UNDERSTAND'],
      ['soap11', 'AuthenticateToken', 'refused:MALFORMED_XML'],
      ['soap12', 'AuthenticateToken', 'refused:MUST_UNDERSTAND'],
      ['soap12', 'AuthenticateToken', 'refused:MUST_UNDERSTAND'],
      ['httpget', 'AuthenticateToken', 'refused:MISSING_PARAMETER'],
      ['httppost', 'AuthenticateToken', 'refused:FORM_REQUIRED'],
    ]);
  });

  it('counts and logs a call refused before its body was read under the operation its path or headers named', async () => {
    const ns = REFERENCE.namespace;
    const tooLarge = 'x'.repeat(app.config.maxBodyBytes + 1);
    const envelope = soapEnvelope('1.1', operationElement(ns, 'AuthenticateToken', { securityPassword: REFERENCE.password, token: 'x' }));
    const sidecar = () => request(app.baseUrl).post('/Authentication.asmx/AuthenticateToken');
    const endpoint = () => request(app.baseUrl).post('/Authentication.asmx');
    await sidecar().type('form').send(`token=${tooLarge}`).expect(413);
    await sidecar().set('Content-Type', 'application/json').send('{}').expect(500);
    await sidecar().set('Content-Type', 'application/x-www-form-urlencoded; charset=klingon').send('token=x').expect(415);
    await endpoint().set('Content-Type', 'text/xml; charset=utf-8').set('SOAPAction', `"${ns}AuthenticateToken"`).send(tooLarge).expect(413);
    await endpoint().set('Content-Type', 'text/xml; charset=utf-8').set('SOAPAction', `"${ns}AuthenticateToken"`).set('Content-Encoding', 'klingon').send(envelope).expect(415);
    await endpoint().set('Content-Type', `application/soap+xml; charset=utf-8; action="${ns}AuthenticateToken"`).send(tooLarge).expect(413);
    // No Content-Type: the SOAP version cannot be told, the operation SOAPAction names can.
    await endpoint().set('SOAPAction', `"${ns}AuthenticateToken"`).send(Buffer.from(envelope)).expect(415);

    const text = await scrape();
    expect(['httppost', 'soap11', 'soap12', 'soap'].map((binding) => refusedTokenCalls(text, binding))).toEqual([3, 2, 1, 1]);
    expect(text).not.toContain('operation="none"');
    expect(sample(text, 'http_refusals_total{status="413"}')).toBe(0);
    const lines = app.logLines.filter((line) => line.message === 'call' || line.message === 'refused').map((line) => [line.binding, line.operation, line.outcome]);
    expect(lines).toEqual([
      ['httppost', 'AuthenticateToken', 'refused:REQUEST_TOO_LARGE'],
      ['httppost', 'AuthenticateToken', 'refused:SCRIPT_SERVICE_REQUIRED'],
      ['httppost', 'AuthenticateToken', 'refused:UNSUPPORTED_CHARSET'],
      ['soap11', 'AuthenticateToken', 'refused:REQUEST_TOO_LARGE'],
      ['soap11', 'AuthenticateToken', 'refused:UNSUPPORTED_ENCODING'],
      ['soap12', 'AuthenticateToken', 'refused:REQUEST_TOO_LARGE'],
      ['soap', 'AuthenticateToken', 'refused:NO_CONTENT_TYPE'],
    ]);
  });

  it('counts wrong caller passwords, on every binding', async () => {
    const bad = { ...REFERENCE, password: 'wrong' };
    await request(app.baseUrl).get('/Authentication.asmx/AuthenticateToken').query({ securityPassword: bad.password, token: 'x' }).expect(500);
    await request(app.baseUrl)
      .post('/Authentication.asmx')
      .set('Content-Type', 'text/xml; charset=utf-8')
      .set('SOAPAction', `"${REFERENCE.namespace}AuthenticateToken"`)
      .send(soapEnvelope('1.1', operationElement(REFERENCE.namespace, 'AuthenticateToken', { securityPassword: 'wrong', token: 'x' })))
      .expect(500);
    const text = await scrape();
    expect(sample(text, 'caller_password_failures_total')).toBe(2);
    expect(sample(text, 'asmx_calls_total{binding="httpget",operation="AuthenticateToken",outcome="invalid_security_password"}')).toBe(1);
    expect(sample(text, 'asmx_calls_total{binding="soap11",operation="AuthenticateToken",outcome="invalid_security_password"}')).toBe(1);
  });

  it('counts sign-ins by outcome, and sessions created and revoked', async () => {
    const before = await scrape();
    // The reference data was seeded through the instrumented services: one session already.
    expect(sample(before, 'sessions_created_total')).toBe(1);
    expect(sample(before, 'signin_attempts_total{outcome="signed_in"}')).toBe(0);
    expect(sample(before, 'signin_attempts_total{outcome="throttled"}')).toBe(0);

    const ok = await signIn('pw-of-ada');
    expect(ok.status).toBe(303);
    expect((await signIn('wrong')).status).toBe(401);
    await request(app.baseUrl).post('/Login').type('form').send({ login: 'ada', password: 'x' }).expect(403);
    const loginCookie = (ok.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith('.ASPXAUTH='))?.split(';')[0] ?? '';
    await request(app.baseUrl).get('/Logout').set('Cookie', loginCookie).expect(303);
    await app.services.sessions.revokeAllOf(REFERENCE.memberId); // the seeded session

    const text = await scrape();
    expect(sample(text, 'signin_attempts_total{outcome="signed_in"}')).toBe(1);
    expect(sample(text, 'signin_attempts_total{outcome="invalid"}')).toBe(1);
    expect(sample(text, 'signin_attempts_total{outcome="refused_csrf"}')).toBe(1);
    expect(sample(text, 'sessions_created_total')).toBe(2);
    expect(sample(text, 'sessions_revoked_total')).toBe(2);
  });

  it('counts store failures by operation; the call is an error', async () => {
    await app.store.close();
    await request(app.baseUrl).get('/Authentication.asmx/AuthenticateToken').query({ securityPassword: REFERENCE.password, token: 'x' }).expect(500);
    await request(app.baseUrl).get('/readyz').expect(503);
    const text = await scrape();
    // The call's one store operation is its read: the address's lock, the caller and the session together.
    expect(sample(text, 'store_errors_total{operation="readCall"}')).toBe(1);
    expect(sample(text, 'store_errors_total{operation="ping"}')).toBe(1);
    expect(sample(text, 'asmx_calls_total{binding="httpget",operation="AuthenticateToken",outcome="error"}')).toBe(1);
  });

  it('counts the call-path caches\' hits and misses', async () => {
    await app.close();
    app = await startTestApp({ env: { CACHE_TTL_MS: '1000' } });
    expect(await httpGetAuthenticateToken(app.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);
    expect(await httpGetAuthenticateToken(app.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);
    expect(await httpGetAuthenticateToken(app.baseUrl, 'unknown')).toBe('');
    const text = await scrape();
    const lookups = (cache: string, result: string) => sample(text, `cache_lookups_total{cache="${cache}",result="${result}"}`);
    // The second call found the session in memory; a token nobody holds is never kept, so it is read each time.
    expect(lookups('sessions', 'miss')).toBe(2);
    expect(lookups('sessions', 'hit')).toBe(1);
    expect(lookups('callers', 'miss')).toBe(1);
    expect(lookups('callers', 'hit')).toBe(2);
    expect(lookups('caller_throttle', 'miss')).toBe(1);
    expect(lookups('caller_throttle', 'hit')).toBe(2);
  });

  it('has the default process metrics and the purge counters, and is never counted as a call', async () => {
    const text = await scrape();
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(sample(text, 'purged_total{kind="sessions"}')).toBe(0);
    expect(sample(text, 'purged_total{kind="throttles"}')).toBe(0);
    expect(text).not.toContain('asmx_calls_total{');
    const head = await request(app.baseUrl).head('/metrics').expect(200);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(1000);
  });
});

it('METRICS_ENABLED=false: no /metrics, nothing counted, calls still answered', async () => {
  app = await startTestApp({ env: { METRICS_ENABLED: 'false' } });
  expect(app.metrics).toBeUndefined();
  expect(await httpGetAuthenticateToken(app.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);
  await request(app.baseUrl).get('/metrics').expect(404);
  await request(app.baseUrl).get('/readyz').expect(200);
});

it('a call on a switched-off HTTP binding counts under the operation it named, and an unknown name under none', async () => {
  app = await startTestApp({ env: { HTTP_GET_ENABLED: 'false' } });
  await request(app.baseUrl).get('/Authentication.asmx/AuthenticateToken').query({ token: 'x' }).expect(500);
  await request(app.baseUrl).get('/Authentication.asmx/Nope').expect(500);
  const text = await scrape();
  expect(sample(text, 'asmx_calls_total{binding="httpget",operation="AuthenticateToken",outcome="refused"}')).toBe(1);
  expect(sample(text, 'asmx_calls_total{binding="httpget",operation="none",outcome="refused"}')).toBe(1);
  const lines = app.logLines.filter((line) => line.message === 'call').map((line) => [line.operation, line.outcome]);
  expect(lines).toEqual([
    ['AuthenticateToken', 'refused:UNRECOGNIZED_URL'],
    [null, 'refused:UNRECOGNIZED_URL'],
  ]);
});

it('METRICS_PORT: /metrics is served there, and not on the main port', async () => {
  app = await startTestApp({ env: { METRICS_PORT: '0' } });
  expect(app.metricsBaseUrl).toBeDefined();
  const metricsUrl = app.metricsBaseUrl ?? '';
  expect(await httpGetAuthenticateToken(app.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);
  await request(app.baseUrl).get('/metrics').expect(404);
  const text = await scrape(metricsUrl);
  expect(sample(text, 'asmx_calls_total{binding="httpget",operation="AuthenticateToken",outcome="signed_in"}')).toBe(1);
  // Only /metrics there: not the service, not the health checks.
  await request(metricsUrl).get('/Authentication.asmx').expect(404);
  await request(metricsUrl).get('/healthz').expect(404);
  await request(metricsUrl).post('/metrics').expect(405);
  await request(metricsUrl).head('/metrics').expect(200);
});

it('each app has a registry of its own, not prom-client\'s global one', async () => {
  const a = createMetrics();
  const b = createMetrics();
  a.sessionsCreated(3);
  expect(a.registry).not.toBe(b.registry);
  expect(sample(await a.registry.metrics(), 'sessions_created_total')).toBe(3);
  expect(sample(await b.registry.metrics(), 'sessions_created_total')).toBe(0);
  const { register } = await import('prom-client');
  expect(await register.metrics()).not.toContain('sessions_created_total');
  app = await startTestApp({ seed: false });
});

it('has a sign-in series for every outcome the pages log, and for no other, from the start', async () => {
  const metrics = createMetrics();
  const series = (await metrics.registry.getSingleMetricAsString('signin_attempts_total')).split('\n').filter((line) => line.startsWith('signin_attempts_total{'));
  const labels = SIGN_IN_ATTEMPT_OUTCOMES.map((outcome) => `signin_attempts_total{outcome="${outcome.replace(/[-:]/g, '_')}"} 0`);
  expect(series.sort()).toEqual(labels.sort());
  app = await startTestApp({ seed: false });
});
