/**
 * A client address locked for failed security passwords, as each binding answers it: SOAP 1.1 and 1.2 with
 * the Server/Receiver fault (status 500, as every ASMX fault), HTTP GET and POST with 429 and Retry-After;
 * the call log's outcome `throttled` and the metrics' outcome="throttled". Requests go out as exact bytes.
 * Addresses come from X-Forwarded-For (TRUST_PROXY=true), as behind the deployment's proxy.
 */
import { sample, scrape } from '../helpers/metrics.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { sendChecked, type RawResponse } from '../helpers/raw-http.js';
import { operationElement, SOAP_NS, soapEnvelope, XSI_XSD } from '../helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const NS = REFERENCE.namespace;
const START = Date.UTC(2026, 0, 1);
const THROTTLED = 'Too many failed security password attempts from this address; try again in 15 minutes.';
const GUESSER = '192.0.2.66';
const NEIGHBOUR = '198.51.100.7';

const responseEnvelope = (namespace: string, body: string) =>
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${namespace}" ${XSI_XSD}><soap:Body>${body}</soap:Body></soap:Envelope>`;
const FAULT_11 = responseEnvelope(
  SOAP_NS['1.1'],
  `<soap:Fault><faultcode>soap:Server</faultcode><faultstring>Server was unable to process request. ---&gt; ${THROTTLED}</faultstring><detail /></soap:Fault>`,
);
const FAULT_12 = responseEnvelope(
  SOAP_NS['1.2'],
  `<soap:Fault><soap:Code><soap:Value>soap:Receiver</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">Server was unable to process request. ---&gt; ${THROTTLED}</soap:Text></soap:Reason><soap:Detail /></soap:Fault>`,
);

const tokenCall = (password: string) => operationElement(NS, 'AuthenticateToken', { securityPassword: password, token: REFERENCE.token });

let app: TestApp;

const send = (from: string, method: string, target: string, headers: Record<string, string>, body = '') =>
  sendChecked(app.port, { method, target, headers: { 'X-Forwarded-For': from, ...headers }, body });

const soap11 = (from: string, password: string) =>
  send(
    from,
    'POST',
    '/Authentication.asmx',
    { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}AuthenticateToken"` },
    soapEnvelope('1.1', tokenCall(password)),
  );
const soap12 = (from: string, password: string) =>
  send(
    from,
    'POST',
    '/Authentication.asmx',
    { 'Content-Type': 'application/soap+xml; charset=utf-8' },
    soapEnvelope('1.2', tokenCall(password)),
  );
const query = (password: string) => new URLSearchParams({ securityPassword: password, token: REFERENCE.token }).toString();
const httpGet = (from: string, password: string) => send(from, 'GET', `/Authentication.asmx/AuthenticateToken?${query(password)}`, {});
const httpPost = (from: string, password: string) =>
  send(from, 'POST', '/Authentication.asmx/AuthenticateToken', { 'Content-Type': 'application/x-www-form-urlencoded' }, query(password));

function summary(response: RawResponse) {
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    cacheControl: response.headers.get('cache-control'),
    retryAfter: response.headers.get('retry-after'),
    body: response.body.toString('utf8'),
  };
}


beforeEach(async () => {
  app = await startTestApp({ env: { CALLER_MAX_FAILURES_PER_ADDRESS: '2', TRUST_PROXY: 'true' }, clock: () => START });
});
afterEach(() => app.close());

/** Two wrong passwords (the threshold), answered as wrong passwords, lock GUESSER. */
async function lockGuesser(): Promise<void> {
  expect((await soap11(GUESSER, 'wrong-1')).body.toString('utf8')).toContain('Invalid security password');
  const second = await httpGet(GUESSER, 'wrong-2');
  expect({ status: second.status, body: second.body.toString('utf8') }).toEqual({ status: 500, body: 'Invalid security password\n' });
}

describe('a locked address', () => {
  it('gets the SOAP 1.1 Server fault with status 500, even with the right password', async () => {
    await lockGuesser();
    expect(summary(await soap11(GUESSER, REFERENCE.password))).toEqual({
      status: 500,
      contentType: 'text/xml; charset=utf-8',
      cacheControl: 'private, max-age=0',
      retryAfter: '900',
      body: FAULT_11,
    });
  });

  it('gets the SOAP 1.2 Receiver fault with status 500', async () => {
    await lockGuesser();
    expect(summary(await soap12(GUESSER, REFERENCE.password))).toEqual({
      status: 500,
      contentType: 'application/soap+xml; charset=utf-8',
      cacheControl: 'private, max-age=0',
      retryAfter: '900',
      body: FAULT_12,
    });
  });

  it.each([
    ['HTTP GET', httpGet],
    ['HTTP POST', httpPost],
  ])('gets 429 text/plain with Retry-After over %s', async (_label, call) => {
    await lockGuesser();
    expect(summary(await call(GUESSER, REFERENCE.password))).toEqual({
      status: 429,
      contentType: 'text/plain; charset=utf-8',
      cacheControl: 'private, max-age=0',
      retryAfter: '900',
      body: `${THROTTLED}\n`,
    });
  });

  it('leaves other addresses answered as before, on every binding', async () => {
    await lockGuesser();
    expect((await soap11(NEIGHBOUR, REFERENCE.password)).body.toString('utf8')).toContain(`<AuthenticateTokenResult>${REFERENCE.memberId}</AuthenticateTokenResult>`);
    expect((await soap12(NEIGHBOUR, REFERENCE.password)).status).toBe(200);
    expect(summary(await httpGet(NEIGHBOUR, REFERENCE.password))).toMatchObject({ status: 200, retryAfter: undefined });
    expect(summary(await httpPost(NEIGHBOUR, 'wrong'))).toMatchObject({ status: 500, retryAfter: undefined, body: 'Invalid security password\n' });
  });
});

describe('log and metrics', () => {
  it('log the call as throttled with its wait and status, never the password', async () => {
    await lockGuesser();
    await soap12(GUESSER, REFERENCE.password);
    await httpPost(GUESSER, 'another-guess');
    const calls = app.logLines.filter((line) => line.message === 'call');
    expect(calls.map((line) => [line.binding, line.status, line.outcome, line.client, line.retryAfterSeconds])).toEqual([
      ['soap11', 500, 'invalid-security-password', GUESSER, undefined],
      ['httpget', 500, 'invalid-security-password', GUESSER, undefined],
      ['soap12', 500, 'throttled', GUESSER, 900],
      ['httppost', 429, 'throttled', GUESSER, 900],
    ]);
    const text = JSON.stringify(app.logLines);
    for (const secret of [REFERENCE.password, 'wrong-1', 'wrong-2', 'another-guess']) expect(text).not.toContain(secret);
  });

  it('count outcome="throttled" per binding, apart from the wrong passwords', async () => {
    await lockGuesser();
    for (const call of [soap11, soap12, httpGet, httpPost]) await call(GUESSER, REFERENCE.password);
    const text = await scrape(app.baseUrl);
    for (const binding of ['soap11', 'soap12', 'httpget', 'httppost']) {
      expect(sample(text, `asmx_calls_total{binding="${binding}",operation="AuthenticateToken",outcome="throttled"}`)).toBe(1);
    }
    expect(sample(text, 'asmx_calls_total{binding="soap11",operation="AuthenticateToken",outcome="invalid_security_password"}')).toBe(1);
    expect(sample(text, 'asmx_calls_total{binding="httpget",operation="AuthenticateToken",outcome="invalid_security_password"}')).toBe(1);
    // Only the passwords that were checked and wrong: a throttled call checks none.
    expect(sample(text, 'caller_password_failures_total')).toBe(2);
  });
});

describe('TRUST_PROXY naming the proxy', () => {
  const fresh = async (trust: string) => {
    await app.close();
    app = await startTestApp({ env: { CALLER_MAX_FAILURES_PER_ADDRESS: '2', TRUST_PROXY: trust }, clock: () => START });
  };

  it('a client reaching the instance directly cannot dodge the throttle with a new X-Forwarded-For on each call', async () => {
    await fresh('10.9.9.9');
    for (const [i, from] of ['203.0.113.1', '203.0.113.2'].entries()) {
      expect((await httpGet(from, `wrong-${i}`)).status).toBe(500);
    }
    const third = await httpGet('203.0.113.3', REFERENCE.password);
    expect({ status: third.status, retryAfter: third.headers.get('retry-after') }).toEqual({ status: 429, retryAfter: '900' });
  });

  it('through the named proxy, X-Forwarded-For still tells the clients apart', async () => {
    await fresh('127.0.0.1');
    await lockGuesser();
    expect((await httpGet(GUESSER, REFERENCE.password)).status).toBe(429);
    expect((await httpGet(NEIGHBOUR, REFERENCE.password)).status).toBe(200);
  });
});
