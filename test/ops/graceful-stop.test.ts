/**
 * Stopping the HTTP server without losing a request (src/server.ts): new connections are refused once the
 * ones already made are accepted, including one still waiting to be; for the drain window, requests on
 * keep-alive connections already open are answered with `Connection: close`, and the connections still idle
 * after it are closed, a request the event loop had not read yet answered too; requests in flight finish with
 * `Connection: close`, and the stop resolves; a request still running at the deadline, or at a forced stop,
 * is cut and the stop resolves all the same.
 */
import { jest } from '@jest/globals';
import { Agent, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { createHttpServer, DRAIN_WINDOW_MS, inFlightRequests, startServer, stopServer, type StopReport } from '../../src/server.js';
import { useFakeTimers } from '../helpers/fake-timers.js';
import { tryConnect } from '../helpers/ports.js';
import { rawRequest, requestArrival, sendPartly } from '../helpers/raw-http.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { operationElement, soapEnvelope } from '../helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { sleep, waitUntil } from '../helpers/wait.js';

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}
const deferred = (): Deferred => {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};
/** A test server: /slow answers when released, /stream sends its head at once and ends when released. */
function slowServer() {
  const release = deferred();
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/slow') {
      void release.promise.then(() => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '4' });
        res.end('done');
      });
    } else if (req.url === '/stream') {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '8' });
      res.write('half');
      void release.promise.then(() => res.end('done'));
    } else {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
      res.end('ok');
    }
  });
  return { server, release: release.resolve };
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

function get(port: number, path: string, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: agent ?? false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A connection of its own, written to by hand; closed resolves with everything that came back, or the error. */
function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', (error: NodeJS.ErrnoException) => (text += `[${error.code}]`));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  const receivedUntil = (pattern: RegExp) => new Promise<void>((resolve) => socket.on('data', () => pattern.test(text) && resolve()));
  return { socket, receivedUntil, closed };
}

/**
 * A client on a thread of its own: it connects, sends workerData.request and, once the request is out, sets
 * workerData.sent[0] to 1; then it posts back everything it received, or the error, once the connection closes.
 */
const THREAD_CLIENT = `
const { workerData, parentPort } = require('node:worker_threads');
const socket = require('node:net').connect(workerData.port, '127.0.0.1', () => {
  socket.write(workerData.request, 'latin1', () => {
    Atomics.store(workerData.sent, 0, 1);
    Atomics.notify(workerData.sent, 0);
  });
});
let text = '';
socket.setEncoding('latin1');
socket.on('data', (chunk) => (text += chunk));
socket.on('error', (error) => (text += '[' + error.code + ']'));
socket.on('close', () => parentPort.postMessage(text));
`;

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

let server: Server | undefined;
afterEach(async () => {
  jest.useRealTimers();
  if (server?.listening) await stopServer(server, { timeoutMs: 0 });
  server = undefined;
});

describe('stopServer', () => {
  it('refuses new connections, closes idle keep-alive ones after the drain window, lets the request in flight finish with Connection: close, then resolves', async () => {
    useFakeTimers();
    const slow = slowServer();
    server = slow.server;
    const port = await startServer(server, { host: '127.0.0.1', port: 0 });
    const agent = new Agent({ keepAlive: true, maxSockets: 10 });
    const agents = [agent];
    try {
      // An idle keep-alive connection, as nginx keeps to its upstreams.
      const first = await get(port, '/fast', agent);
      expect(first.headers.connection).toBe('keep-alive');
      const idleSocket = (agent.freeSockets[Object.keys(agent.freeSockets)[0] ?? ''] ?? [])[0];
      expect(idleSocket).toBeDefined();
      // A request in flight, on a keep-alive connection of its own.
      const busyAgent = new Agent({ keepAlive: true });
      agents.push(busyAgent);
      const arrived = requestArrival();
      const inFlight = get(port, '/slow', busyAgent);
      await arrived;
      expect(inFlightRequests(slow.server)).toBe(1);

      let report: StopReport | undefined;
      const stopping = stopServer(slow.server, { timeoutMs: 5000 }).then((r) => (report = r));
      await waitUntil(() => !slow.server.listening, 'the listener to close');
      expect(await tryConnect(port)).toBe('ECONNREFUSED');
      await jest.advanceTimersByTimeAsync(DRAIN_WINDOW_MS - 1);
      expect((idleSocket as Socket).destroyed).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await closed(idleSocket as Socket);
      await jest.advanceTimersByTimeAsync(4999 - DRAIN_WINDOW_MS);
      expect(report).toBeUndefined(); // still waiting for /slow, up to the deadline

      slow.release();
      const answer = await inFlight;
      expect(answer).toMatchObject({ status: 200, body: 'done' });
      expect(answer.headers.connection).toBe('close');
      await stopping;
      expect(report).toEqual({ inFlight: 1, cut: 0, forced: false });
      expect(slow.server.listening).toBe(false);
    } finally {
      for (const a of agents) a.destroy();
    }
  });

  it('answers a request sent on an idle keep-alive connection during the drain window, closing that connection', async () => {
    useFakeTimers();
    const slow = slowServer();
    server = slow.server;
    const port = await startServer(server, { host: '127.0.0.1', port: 0 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await get(port, '/fast', agent)).headers.connection).toBe('keep-alive');
      const stopping = stopServer(slow.server, { timeoutMs: 5000 });
      await waitUntil(() => !slow.server.listening, 'the listener to close');
      await jest.advanceTimersByTimeAsync(DRAIN_WINDOW_MS - 1);
      // The agent reuses its idle connection: without the drain window, this request would meet a reset.
      const answer = await get(port, '/fast', agent);
      expect(answer).toMatchObject({ status: 200, body: 'ok' });
      expect(answer.headers.connection).toBe('close');
      await expect(stopping).resolves.toEqual({ inFlight: 0, cut: 0, forced: false });
    } finally {
      agent.destroy();
    }
  });

  it('answers a request that reached an idle keep-alive connection while the event loop was busy as the drain window ended', async () => {
    useFakeTimers();
    const slow = slowServer();
    server = slow.server;
    const port = await startServer(server, { host: '127.0.0.1', port: 0 });
    const fast = rawRequest(port, { method: 'GET', target: '/fast' });
    const conn = rawConnection(port);
    conn.socket.write(fast);
    await conn.receivedUntil(/\r\n\r\nok$/);
    const stopping = stopServer(slow.server, { timeoutMs: 5000 });
    await waitUntil(() => !slow.server.listening, 'the listener to close');
    await sleep(0); // on in the event loop's timers phase, where the window's timer fires
    // The request goes out, and the window's timer fires before the event loop has read it: the request waits
    // in the connection's buffer, unread, as it does when the loop was held up past the window by other work.
    conn.socket.write(fast);
    jest.advanceTimersByTime(DRAIN_WINDOW_MS);
    const received = await conn.closed;
    expect(received.split('HTTP/1.1 200 OK\r\n')).toHaveLength(3);
    expect(received).toMatch(/\r\nConnection: close\r\n[^]*\r\n\r\nok$/i);
    await expect(stopping).resolves.toEqual({ inFlight: 0, cut: 0, forced: false });
  });

  it('answers a client that had connected and sent its request before the stop, while the connection still waited to be accepted', async () => {
    const slow = slowServer();
    server = slow.server;
    const port = await startServer(server, { host: '127.0.0.1', port: 0 });
    const sent = new Int32Array(new SharedArrayBuffer(4));
    const request = rawRequest(port, { method: 'GET', target: '/fast' }).toString('latin1');
    const client = new Worker(THREAD_CLIENT, { eval: true, workerData: { port, request, sent } });
    try {
      const received = new Promise<string>((resolve) => client.once('message', resolve));
      // This thread's event loop is held until the request is out: the kernel has completed the connection, which
      // waits in the listener's queue with the request, not yet accepted, as happens when the server is busy.
      // The limits guard against a hang only: starting a thread can take seconds on a busy machine, and the
      // deadline must not pass before the queued connection is served.
      expect(Atomics.wait(sent, 0, 0, 15_000)).toBe('ok');
      const stopping = stopServer(slow.server, { timeoutMs: 60_000 });
      const answer = await received; // once the connection has closed
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nok$/);
      await expect(stopping).resolves.toEqual({ inFlight: 0, cut: 0, forced: false });
      expect(await tryConnect(port)).toBe('ECONNREFUSED');
    } finally {
      await client.terminate();
    }
  });

  it('closes a keep-alive connection whose response had already started once that response ends', async () => {
    useFakeTimers();
    const slow = slowServer();
    server = slow.server;
    // Node's own keep-alive timer runs on real time: an hour, so that only the stop closes the connection.
    slow.server.keepAliveTimeout = 3_600_000;
    const port = await startServer(server, { host: '127.0.0.1', port: 0 });
    const agent = new Agent({ keepAlive: true });
    try {
      const arrived = requestArrival();
      const streaming = get(port, '/stream', agent);
      await arrived; // the handler sent the head at once: too late for Connection: close
      const stopping = stopServer(slow.server, { timeoutMs: 5000 });
      slow.release();
      const answer = await streaming;
      expect(answer).toMatchObject({ status: 200, body: 'halfdone' });
      expect(answer.headers.connection).toBe('keep-alive');
      await waitUntil(() => !slow.server.listening, 'the listener to close');
      // The drain window passes, the deadline (5 s) does not.
      await jest.advanceTimersByTimeAsync(DRAIN_WINDOW_MS);
      await expect(stopping).resolves.toEqual({ inFlight: 1, cut: 0, forced: false });
    } finally {
      agent.destroy();
    }
  });

  it('cuts a request still running at the deadline, and resolves', async () => {
    useFakeTimers();
    const slow = slowServer();
    server = slow.server;
    const port = await startServer(server, { host: '127.0.0.1', port: 0 });
    const arrived = requestArrival();
    const inFlight = get(port, '/slow').catch((error: NodeJS.ErrnoException) => error.code ?? error.message);
    const { socket } = await arrived;
    const stopping = stopServer(slow.server, { timeoutMs: 200 });
    await jest.advanceTimersByTimeAsync(199);
    expect(socket.destroyed).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(socket.destroyed).toBe(true);
    await expect(stopping).resolves.toEqual({ inFlight: 1, cut: 1, forced: true });
    expect(await inFlight).toBe('ECONNRESET');
    slow.release();
  });

  it('a forced stop (second signal) cuts at once, long before the deadline', async () => {
    useFakeTimers();
    const slow = slowServer();
    server = slow.server;
    const port = await startServer(server, { host: '127.0.0.1', port: 0 });
    const arrived = requestArrival();
    const inFlight = get(port, '/slow').catch((error: NodeJS.ErrnoException) => error.code ?? error.message);
    await arrived;
    const force = new AbortController();
    const stopping = stopServer(slow.server, { timeoutMs: 60_000, force: force.signal });
    await waitUntil(() => !slow.server.listening, 'the listener to close'); // the stop is under way
    expect(await tryConnect(port)).toBe('ECONNREFUSED');
    force.abort();
    // The clock stands still: neither the drain window nor the deadline passes, the abort alone ends the stop.
    await expect(stopping).resolves.toEqual({ inFlight: 1, cut: 1, forced: true });
    expect(await inFlight).toBe('ECONNRESET');
    slow.release();
  });

  it('resolves at once with nothing in flight, and for a server that never listened', async () => {
    server = slowServer().server;
    await startServer(server, { host: '127.0.0.1', port: 0 });
    await expect(stopServer(server, { timeoutMs: 60_000 })).resolves.toEqual({ inFlight: 0, cut: 0, forced: false });
    await expect(stopServer(slowServer().server, { timeoutMs: 60_000 })).resolves.toEqual({ inFlight: 0, cut: 0, forced: false });
  });
});

describe('startServer', () => {
  it('reports a port in use as a StartupError naming the setting', async () => {
    server = slowServer().server;
    const port = await startServer(server, { host: '127.0.0.1', port: 0 });
    const other = slowServer().server;
    await expect(startServer(other, { host: '127.0.0.1', port, what: 'listen for metrics', portSetting: 'METRICS_PORT' })).rejects.toThrow(
      `cannot listen for metrics on 127.0.0.1:${port}: the address is already in use (set METRICS_PORT or HOST)`,
    );
  });
});

describe('the whole app', () => {
  let app: TestApp;
  afterEach(() => {
    jest.useRealTimers();
    return app.close();
  });

  it('a SOAP call whose body is half sent when the stop begins is still answered, then the stop resolves', async () => {
    useFakeTimers();
    app = await startTestApp();
    const body = soapEnvelope('1.1', operationElement(REFERENCE.namespace, 'AuthenticateToken', { securityPassword: REFERENCE.password, token: REFERENCE.token }));
    const headers = {
      'Content-Type': 'text/xml; charset=utf-8',
      SOAPAction: `"${REFERENCE.namespace}AuthenticateToken"`,
      'X-Request-Id': 'draining-call',
    };
    const request = rawRequest(app.port, { method: 'POST', target: '/Authentication.asmx', headers, body });
    const arrived = requestArrival();
    const call = sendPartly(app.port, request, Buffer.byteLength(body) >> 1);
    await arrived;
    expect(inFlightRequests(app.server)).toBe(1);

    app.readiness.drain();
    let report: StopReport | undefined;
    const stopping = stopServer(app.server, { timeoutMs: 5000 }).then((r) => (report = r));
    await waitUntil(() => !app.server.listening, 'the listener to close');
    expect(await tryConnect(app.port)).toBe('ECONNREFUSED');
    await jest.advanceTimersByTimeAsync(4999);
    expect(report).toBeUndefined(); // still waiting for the rest of the body, up to the deadline

    call.finish();
    const received = await call.received; // the server closes the connection after the answer
    await stopping;
    expect(report).toEqual({ inFlight: 1, cut: 0, forced: false });
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).toMatch(/\r\nConnection: close\r\n/i);
    expect(received).toMatch(/\r\nX-Request-Id: draining-call\r\n/i);
    expect(received).toContain(`<AuthenticateTokenResult>${REFERENCE.memberId}</AuthenticateTokenResult>`);
    expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'call', outcome: 'signed-in', requestId: 'draining-call' }));
  });
});
