/**
 * Requests refused before any binding takes them: an oversized body is refused without being read (no
 * `100 Continue`, no reading of a chunked body past the limit), and every refusal (400, 408, 413, 431) is
 * logged and counted: as a refused call of the operation the request named (its SOAPAction here), in the call
 * log and asmx_calls_total, or, when it named none, as a refusal before any binding (http_refusals_total).
 */
import { connect, type Socket } from 'node:net';
import { sample, scrape } from './helpers/metrics.js';
import { REFERENCE } from './helpers/reference-data.js';
import { operationElement, soapEnvelope } from './helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from './helpers/test-app.js';
import { nextTurn, waitUntil } from './helpers/wait.js';

const NS = REFERENCE.namespace;
const UNNAMED_HEAD = ['POST /Authentication.asmx HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: text/xml; charset=utf-8'];
const SOAP_HEAD = [...UNNAMED_HEAD, `SOAPAction: "${NS}AuthenticateToken"`];

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { MAX_BODY_BYTES: '4096', HEADERS_TIMEOUT: '1' } });
});
afterAll(() => app.close());

/** A raw connection: what it has received so far, and whether the server has closed it. */
function open(): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = connect(app.port, '127.0.0.1');
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;

async function refusalsLogged(status: number, from: number): Promise<Array<Record<string, unknown>>> {
  await waitUntil(() => app.logLines.slice(from).some((line) => line.message === 'refused' && line.status === status), `a refused ${status} log line`);
  return app.logLines.slice(from).filter((line) => line.message === 'refused');
}

/** A counter's count so far: its series is written once first counted, so before that it is 0. */
const count = async (series: string) => sample(await scrape(app.baseUrl), series) ?? 0;
const refusalCount = (status: number) => count(`http_refusals_total{status="${status}"}`);
const refusedCalls = () => count('asmx_calls_total{binding="soap11",operation="AuthenticateToken",outcome="refused"}');

async function callLogged(outcome: string, from: number): Promise<Record<string, unknown>> {
  const find = () => app.logLines.slice(from).find((line) => line.message === 'call' && line.outcome === outcome);
  await waitUntil(() => find() !== undefined, `a call line with ${outcome}`);
  return find() ?? {};
}

test('Expect: 100-continue with a declared body over the limit: 413 at once, never 100 Continue', async () => {
  const conn = open();
  conn.socket.write(head([...SOAP_HEAD, 'Content-Length: 100000', 'Expect: 100-continue']));
  await waitUntil(() => conn.received().includes('\r\n\r\n'), 'an answer');
  expect(conn.received()).toMatch(/^HTTP\/1\.1 413 /);
  expect(conn.received()).not.toContain('100 Continue');
  conn.socket.destroy();
});

test('Expect: 100-continue with a body within the limit: 100 Continue, then the answer', async () => {
  const body = soapEnvelope('1.1', operationElement(NS, 'AuthenticateToken', { securityPassword: REFERENCE.password, token: REFERENCE.token }));
  const conn = open();
  conn.socket.write(head([...SOAP_HEAD, `Content-Length: ${Buffer.byteLength(body)}`, 'Expect: 100-continue']));
  await waitUntil(() => conn.received().startsWith('HTTP/1.1 100 Continue'), '100 Continue');
  conn.socket.write(body);
  await waitUntil(() => conn.received().includes(REFERENCE.memberId), 'the result');
  conn.socket.destroy();
});

test('a chunked body that outgrows the limit: 413 with Connection: close at once, and the connection closed while the client still sends', async () => {
  const from = app.logLines.length;
  const before = await refusedCalls();
  const conn = open();
  conn.socket.write(head([...SOAP_HEAD, 'Transfer-Encoding: chunked']));
  const chunk = `400\r\n${'x'.repeat(0x400)}\r\n`;
  // A kilobyte a turn of the event loop, so that the server reads each as it comes, until the connection is
  // closed or 1 MB is sent.
  let sent = 0;
  while (sent < 1024 && !conn.socket.destroyed) {
    conn.socket.write(chunk);
    sent += 1;
    await nextTurn();
  }
  // Closed while the client still sent, within a few kilobytes past the limit (4 KB here).
  expect(sent).toBeLessThan(16);
  await conn.closed;
  expect(conn.received()).toMatch(/^HTTP\/1\.1 413 /);
  expect(conn.received()).toMatch(/\r\nConnection: close\r\n/i);
  expect(await callLogged('refused:REQUEST_TOO_LARGE', from)).toMatchObject({ binding: 'soap11', operation: 'AuthenticateToken', status: 413 });
  expect(await refusedCalls()).toBe(before + 1);
});

test.each([
  ['a malformed request', 400, 'GET / HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n'],
  ['headers over 16 KB', 431, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`],
  ['headers that never end (HEADERS_TIMEOUT=1s)', 408, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'],
])('%s: answered %i as Node answers it, logged and counted', async (_name, status, request) => {
  const from = app.logLines.length;
  const before = await refusalCount(status);
  const conn = open();
  conn.socket.write(request);
  await conn.closed;
  expect(conn.received()).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect((await refusalsLogged(status, from)).at(-1)).toMatchObject({ status, client: expect.stringMatching(/127\.0\.0\.1/) });
  expect(await refusalCount(status)).toBe(before + 1);
});

/** What a 413 is recorded as: a call line and a refused call, or a refused line and a refusal before any binding. */
async function recorded413(from: number): Promise<Record<string, unknown>> {
  await waitUntil(() => app.logLines.slice(from).some((line) => line.status === 413), 'a log line of the 413');
  const line = app.logLines.slice(from).find((l) => l.status === 413) ?? {};
  return { ...line, counts: [await refusedCalls(), await refusalCount(413)] };
}

test('a declared length over the limit is logged and counted as a 413 too: under the operation the request named, or before any binding', async () => {
  const sendTooLarge = async (lines: string[]) => {
    const from = app.logLines.length;
    const conn = open();
    conn.socket.write(head([...lines, 'Content-Length: 100000']));
    await conn.closed;
    expect(conn.received()).toMatch(/^HTTP\/1\.1 413 /);
    return recorded413(from);
  };
  const [calls, refusals] = [await refusedCalls(), await refusalCount(413)];
  expect(await sendTooLarge(SOAP_HEAD)).toMatchObject({
    message: 'call',
    binding: 'soap11',
    operation: 'AuthenticateToken',
    outcome: 'refused:REQUEST_TOO_LARGE',
    counts: [calls + 1, refusals],
  });
  expect(await sendTooLarge(UNNAMED_HEAD)).toMatchObject({
    message: 'refused',
    reason: 'REQUEST_TOO_LARGE',
    path: '/Authentication.asmx',
    counts: [calls + 1, refusals + 1],
  });
});

test.each([
  ['refused', UNNAMED_HEAD],
  ['call', SOAP_HEAD],
])('behind a trusted proxy, the %s line names the client the proxy forwarded', async (message, lines) => {
  const proxied = await startTestApp({ env: { MAX_BODY_BYTES: '4096', TRUST_PROXY: '127.0.0.1' } });
  try {
    const socket = connect(proxied.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.resume();
    socket.write(head([...lines, 'X-Forwarded-For: 203.0.113.9', 'Content-Length: 100000']));
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await waitUntil(() => proxied.logLines.some((line) => line.message === message), `a ${message} log line`);
    expect(proxied.logLines.find((line) => line.message === message)).toMatchObject({ status: 413, client: '203.0.113.9' });
  } finally {
    await proxied.close();
  }
});
