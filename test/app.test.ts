/**
 * The app as a whole: request size limits, the endpoint's path (letter case, BASE_PATH, unknown paths), the
 * per-call log lines and what they must never hold, and that no response ever carries a stack trace.
 */
import { connect } from 'node:net';
import { REFERENCE } from './helpers/reference-data.js';
import { rawRequest, sendRaw, type RawResponse } from './helpers/raw-http.js';
import { soapEnvelope } from './helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from './helpers/test-app.js';
import { waitUntil } from './helpers/wait.js';

const NS = REFERENCE.namespace;
const TOKEN_PATH = '/Authentication.asmx/AuthenticateToken';

/** Every response body any test here received, checked for stack traces at the end. */
const seen: Array<{ request: string; body: string }> = [];

function record(request: Buffer, response: RawResponse): RawResponse {
  expect(response.headers.get('content-length')).toBeDefined();
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  seen.push({ request: request.subarray(0, 80).toString('latin1'), body: response.body.toString('latin1') });
  return response;
}

/** The request line, then header lines, as they go out; Host and Content-Length are added as rawRequest does. */
async function send(port: number, head: string[], body?: Buffer | string): Promise<RawResponse> {
  const [method = 'GET', target = '/'] = (head[0] ?? '').split(' ');
  const headers = head.slice(1).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const);
  const request = rawRequest(port, { method, target, headers, ...(body === undefined ? {} : { body }) });
  const response = await sendRaw(port, request, { head: method === 'HEAD' });
  return record(request, response);
}

const get = (port: number, path: string) => send(port, [`GET ${path} HTTP/1.1`]);

/**
 * How long a socket here waits for the server to close it: a hang guard, not a measure. Every answer here comes
 * at once; only a server that waits for something that never comes (a declared body: until REQUEST_TIMEOUT, 30 s)
 * keeps a connection open this long.
 */
const GIVE_UP_MS = 15_000;

/** What a socket received until the server closed it or GIVE_UP_MS passed without it closing. */
function exchange(port: number, chunks: Buffer[]): Promise<{ received: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ received, closed });
    };
    const timer = setTimeout(() => settle(false), GIVE_UP_MS);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
    });
    socket.on('end', () => settle(true));
    socket.on('close', () => settle(true));
    socket.on('error', () => settle(true));
    for (const chunk of chunks) socket.write(chunk);
  });
}

const statusOf = (raw: Buffer) => Number(raw.toString('latin1').split(' ')[1]);

/** A call whose parameters are given as markup (some tests pad them or put raw values in). */
const soap11 = (operation: string, params: string) => soapEnvelope('1.1', `<${operation} xmlns="${NS}">${params}</${operation}>`);
const soap12 = (operation: string, params: string) => soapEnvelope('1.2', `<${operation} xmlns="${NS}">${params}</${operation}>`);
const tokenParams = (password: string, token: string) => `<securityPassword>${password}</securityPassword><token>${token}</token>`;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { MAX_BODY_BYTES: '2048' } });
});
afterAll(() => app.close());

describe('request size limit (MAX_BODY_BYTES=2048)', () => {
  const bigEnvelope = soap11('AuthenticateToken', `${tokenParams(REFERENCE.password, REFERENCE.token)}<pad>${'x'.repeat(4096)}</pad>`);
  const soapHead = ['POST /Authentication.asmx HTTP/1.1', 'Content-Type: text/xml; charset=utf-8', `SOAPAction: "${NS}AuthenticateToken"`];
  const SOAP_HEADERS: Array<[string, string]> = [
    ['Content-Type', 'text/xml; charset=utf-8'],
    ['SOAPAction', `"${NS}AuthenticateToken"`],
  ];
  const soapRequest = { method: 'POST', target: '/Authentication.asmx', headers: SOAP_HEADERS };

  async function expectStillAnswering(): Promise<void> {
    const response = await send(app.port, soapHead, soap11('AuthenticateToken', tokenParams(REFERENCE.password, REFERENCE.token)));
    expect(response.status).toBe(200);
    expect(response.body.toString()).toContain(`<AuthenticateTokenResult>${REFERENCE.memberId}</AuthenticateTokenResult>`);
  }

  test('a body over the limit with a declared Content-Length: 413, then the next request is answered', async () => {
    const response = await send(app.port, soapHead, bigEnvelope);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.body.toString()).toContain('Maximum request length exceeded.');
    expect(response.body.toString()).not.toContain(REFERENCE.memberId);
    // Refused before parsing: malformed XML over the limit is a 413, not the 400 of an XML error.
    const malformed = await send(app.port, soapHead, `<!DOCTYPE x [<!ENTITY a "b">]>${'<'.repeat(4096)}`);
    expect(malformed.status).toBe(413);
    await expectStillAnswering();
  });

  test('an HTTP POST form over the limit: 413 as well', async () => {
    const response = await send(
      app.port,
      [`POST ${TOKEN_PATH} HTTP/1.1`, 'Content-Type: application/x-www-form-urlencoded'],
      `securityPassword=${REFERENCE.password}&token=${REFERENCE.token}&pad=${'x'.repeat(4096)}`,
    );
    expect(response.status).toBe(413);
    expect(response.body.toString()).not.toContain(REFERENCE.memberId);
  });

  test('a chunked body over the limit: 413, then the next request is answered', async () => {
    const body = Buffer.from(bigEnvelope, 'utf8');
    const chunks = [body.subarray(0, 1000), body.subarray(1000, 2500), body.subarray(2500)];
    const framed = Buffer.concat([
      ...chunks.flatMap((chunk) => [Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'), chunk, Buffer.from('\r\n', 'latin1')]),
      Buffer.from('0\r\n\r\n', 'latin1'),
    ]);
    const request = rawRequest(app.port, { ...soapRequest, headers: [...SOAP_HEADERS, ['Transfer-Encoding', 'chunked']], body: framed, contentLength: false });
    const response = record(request, await sendRaw(app.port, request));
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.body.toString()).not.toContain(REFERENCE.memberId);
    await expectStillAnswering();
  });

  // body-parser refuses a declared length over the limit before reading, but answers only once it has read
  // (and dropped) the whole declared body: a client declaring 1 GB gets nothing until it sends 1 GB.
  test('a huge declared Content-Length with a small body is answered 413 or closed at once, not left waiting', async () => {
    const head = rawRequest(app.port, { ...soapRequest, contentLength: 1_000_000_000 });
    const small = Buffer.from(soap11('AuthenticateToken', tokenParams(REFERENCE.password, REFERENCE.token)), 'utf8');
    const { received, closed } = await exchange(app.port, [head, small]);
    const happened = received.length > 0 ? `answered ${statusOf(received)}` : closed ? 'closed without an answer' : `no answer within ${GIVE_UP_MS} ms, connection still open`;
    expect(['answered 413', 'closed without an answer']).toContain(happened);
    if (received.length > 0) expect(received.toString('latin1')).not.toContain(REFERENCE.memberId);
    await expectStillAnswering();
  });
});

describe('the endpoint path', () => {
  test('matches case-insensitively, as on IIS', async () => {
    const response = await get(app.port, '/authentication.ASMX?wsdl');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(response.body.toString()).toContain('<wsdl:definitions ');
  });

  test.each(['/nope', '/Authentication.asmxx', '/Authentication.asmx.bak', '/x/Authentication.asmx', '/Authentication.aspx'])(
    '%s is a 404 with a Content-Length',
    async (path) => {
      const response = await get(app.port, path);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(Number(response.headers.get('content-length'))).toBe(response.body.length);
    },
  );

  test('a POST to an unknown path is a 404 too', async () => {
    const response = await send(app.port, ['POST /nope HTTP/1.1', 'Content-Type: text/xml'], '<x/>');
    expect(response.status).toBe(404);
  });

  test('HEAD on an unknown path: 404 headers with a Content-Length and no body', async () => {
    const request = rawRequest(app.port, { method: 'HEAD', target: '/nope', headers: { Connection: 'close' } });
    const { received, closed } = await exchange(app.port, [request]);
    expect(closed).toBe(true);
    const text = received.toString('latin1');
    const split = text.indexOf('\r\n\r\n');
    expect(split).toBeGreaterThan(0);
    expect(statusOf(received)).toBe(404);
    expect(text.slice(0, split)).toMatch(/\r\nContent-Length: [1-9]\d*\r\n/i);
    expect(received.length).toBe(split + 4);
  });

  describe('BASE_PATH=/webservices', () => {
    let mounted: TestApp;
    beforeAll(async () => {
      mounted = await startTestApp({ env: { BASE_PATH: '/webservices' } });
    });
    afterAll(() => mounted.close());

    test('the endpoint is at /webservices/Authentication.asmx and the WSDL addresses say so', async () => {
      const response = await get(mounted.port, '/webservices/Authentication.asmx?wsdl');
      expect(response.status).toBe(200);
      const wsdl = response.body.toString();
      const addresses = [...wsdl.matchAll(/<(?:soap|soap12|http):address location="([^"]*)" \/>/g)].map((m) => m[1]);
      expect(addresses).toEqual(Array(4).fill(`http://127.0.0.1:${mounted.port}/webservices/Authentication.asmx`));
    });

    test('calls work under the base path', async () => {
      const soap = await send(
        mounted.port,
        ['POST /webservices/Authentication.asmx HTTP/1.1', 'Content-Type: text/xml; charset=utf-8', `SOAPAction: "${NS}AuthenticateToken"`],
        soap11('AuthenticateToken', tokenParams(REFERENCE.password, REFERENCE.token)),
      );
      expect(soap.status).toBe(200);
      expect(soap.body.toString()).toContain(`<AuthenticateTokenResult>${REFERENCE.memberId}</AuthenticateTokenResult>`);
      const http = await get(mounted.port, `/webservices${TOKEN_PATH}?securityPassword=${REFERENCE.password}&token=${REFERENCE.token}`);
      expect(http.status).toBe(200);
      expect(http.body.toString()).toContain(`>${REFERENCE.memberId}</string>`);
    });

    test('/Authentication.asmx alone is a 404', async () => {
      expect((await get(mounted.port, '/Authentication.asmx?wsdl')).status).toBe(404);
      expect((await get(mounted.port, `${TOKEN_PATH}?securityPassword=${REFERENCE.password}&token=${REFERENCE.token}`)).status).toBe(404);
    });
  });
});

describe('call logging', () => {
  const WRONG_PASSWORD = 'not-the-Pa55word';
  type Binding = 'soap11' | 'soap12' | 'httpget' | 'httppost';
  const CASES = [
    { label: 'success', password: REFERENCE.password, token: REFERENCE.token, outcome: 'signed-in', caller: 'reference-client' },
    { label: 'not signed in', password: REFERENCE.password, token: 'stale-token-1234', outcome: 'not-signed-in:unknown', caller: 'reference-client' },
    { label: 'bad password', password: WRONG_PASSWORD, token: REFERENCE.token, outcome: 'invalid-security-password', caller: undefined },
  ] as const;

  function call(binding: Binding, password: string, token: string): Promise<RawResponse> {
    switch (binding) {
      case 'soap11':
        return send(
          app.port,
          ['POST /Authentication.asmx HTTP/1.1', 'Content-Type: text/xml; charset=utf-8', `SOAPAction: "${NS}AuthenticateToken"`],
          soap11('AuthenticateToken', tokenParams(password, token)),
        );
      case 'soap12':
        return send(app.port, ['POST /Authentication.asmx HTTP/1.1', 'Content-Type: application/soap+xml; charset=utf-8'], soap12('AuthenticateToken', tokenParams(password, token)));
      case 'httpget':
        return get(app.port, `${TOKEN_PATH}?securityPassword=${encodeURIComponent(password)}&token=${encodeURIComponent(token)}`);
      case 'httppost':
        return send(
          app.port,
          [`POST ${TOKEN_PATH} HTTP/1.1`, 'Content-Type: application/x-www-form-urlencoded'],
          `securityPassword=${encodeURIComponent(password)}&token=${encodeURIComponent(token)}`,
        );
    }
  }

  const isCallLine = (line: Record<string, unknown>) => line.message === 'call';

  async function callLines(from: number, count: number): Promise<Array<Record<string, unknown>>> {
    // The logger writes through a stream: its lines arrive after the response.
    await waitUntil(() => app.logLines.slice(from).filter(isCallLine).length >= count, `${count} call log lines`);
    return app.logLines.slice(from).filter(isCallLine);
  }

  const BINDINGS: Binding[] = ['soap11', 'soap12', 'httpget', 'httppost'];

  test.each(BINDINGS)('%s: one line per call with binding, operation, caller, outcome, latency and client', async (binding) => {
    const from = app.logLines.length;
    for (const c of CASES) {
      const response = await call(binding, c.password, c.token);
      expect(response.status).toBe(c.outcome === 'invalid-security-password' ? 500 : 200);
    }
    const lines = await callLines(from, CASES.length);
    expect(lines).toHaveLength(CASES.length);
    lines.forEach((line, i) => {
      const expected = CASES[i];
      expect(line).toMatchObject({ binding, operation: 'AuthenticateToken', outcome: expected?.outcome, client: '127.0.0.1' });
      expect(typeof line.latencyMs).toBe('number');
      expect(line.latencyMs as number).toBeGreaterThanOrEqual(0);
      if (expected?.caller === undefined) expect(line.caller).toBeUndefined();
      else expect(line.caller).toBe(expected.caller);
    });
    // Nothing else was logged at a level above info for these calls.
    expect(app.logLines.slice(from).filter((l) => !isCallLine(l))).toEqual([]);
  });

  test('the signed-in member is logged by id, and no line holds a password, token or cookie', async () => {
    const from = app.logLines.length;
    await get(app.port, `/Authentication.asmx/AuthenticateCookie?securityPassword=${REFERENCE.password}&loginCookie=${REFERENCE.cookie}&cookieDomain=${REFERENCE.domain}`);
    await get(app.port, `/Authentication.asmx/AuthenticateCookie?securityPassword=${WRONG_PASSWORD}&loginCookie=${REFERENCE.cookie}&cookieDomain=${REFERENCE.domain}`);
    await send(
      app.port,
      ['POST /Authentication.asmx HTTP/1.1', 'Content-Type: text/xml; charset=utf-8', `SOAPAction: "${NS}AuthenticateCookie"`],
      soap11('AuthenticateCookie', `<securityPassword>${WRONG_PASSWORD}</securityPassword><loginCookie>${REFERENCE.cookie}</loginCookie><cookieDomain>${REFERENCE.domain}</cookieDomain>`),
    );
    const lines = await callLines(from, 3);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ binding: 'httpget', operation: 'AuthenticateCookie', outcome: 'signed-in', member: REFERENCE.memberId });

    const everything = JSON.stringify(app.logLines);
    for (const secret of [REFERENCE.password, REFERENCE.token, REFERENCE.cookie, WRONG_PASSWORD, 'stale-token-1234']) {
      expect(everything).not.toContain(secret);
    }
  });
});

test('no response to any request here carries a stack trace or a source path', () => {
  expect(seen.length).toBeGreaterThan(20);
  for (const { request, body } of seen) {
    expect({ request, frames: body.match(/\n\s*at \S/g) ?? [], paths: body.match(/\/src\/|\.ts:\d+|node_modules|file:\/\//g) ?? [] }).toEqual({
      request,
      frames: [],
      paths: [],
    });
  }
});
