/**
 * The server's deadlines on a real listening server, with short settings (HEADERS_TIMEOUT=1s,
 * REQUEST_TIMEOUT=2s, KEEP_ALIVE_TIMEOUT=1s): the served server holds them (and checks them every second, not
 * Node's default 30), and a client that stalls in its headers, one that sends its body too slowly and an idle
 * keep-alive connection are each disconnected by the server, none before its deadline, while other
 * connections are answered meanwhile. Node checks the headers and request deadlines once a second, so a
 * client is cut between its deadline and a second after it; an idle keep-alive connection is closed a second
 * after the time-out announced in its Keep-Alive header. The three slow clients run side by side, so the file
 * takes about four seconds.
 *
 * No upper bound on when a client is cut: a busy machine delays the server's checks by any amount. A
 * deadline passed too early shows (no time goes by faster under load); the settings are read off the server;
 * and a deadline never enforced leaves the client to give up (GIVE_UP_MS), which fails.
 */
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { createHttpServer } from '../src/server.js';
import { rawRequest } from './helpers/raw-http.js';
import { REFERENCE } from './helpers/reference-data.js';
import { startTestApp, type TestApp } from './helpers/test-app.js';
import { waitUntil } from './helpers/wait.js';

/** No client is kept open longer than this: a hang guard, far past any deadline here (and within the test's time-out). */
const GIVE_UP_MS = 15_000;

interface Disconnect {
  /** Time from the reference point (the connection, or the end of the response) to the close. */
  afterMs: number;
  /** Everything the server sent. */
  received: string;
  /** The client gave up before the server closed. */
  gaveUp: boolean;
}

/**
 * Opens a raw connection, hands it to `drive`, and resolves when the server closes it. `mark()` moves the
 * reference point from the connection to now (the keep-alive case measures from the end of its response).
 */
function slowClient(port: number, drive: (socket: Socket, mark: () => void) => void): Promise<Disconnect> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let from = Date.now();
    let received = '';
    let gaveUp = false;
    const giveUp = setTimeout(() => {
      gaveUp = true;
      socket.destroy();
    }, GIVE_UP_MS);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined); // a write after the server's close (EPIPE, ECONNRESET)
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ afterMs: Date.now() - from, received, gaveUp });
    });
    socket.on('connect', () => {
      from = Date.now();
      drive(socket, () => (from = Date.now()));
    });
  });
}

const httpGetCall = async () => {
  const response = await fetch(`${app.baseUrl}/Authentication.asmx/AuthenticateToken?${new URLSearchParams({ securityPassword: REFERENCE.password, token: REFERENCE.token })}`);
  return { status: response.status, body: await response.text() };
};

const openConnections = () => new Promise<number>((resolve, reject) => app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

let app: TestApp;
let halfHeaders: Promise<Disconnect>;
let slowBody: Promise<Disconnect>;
let idleKeepAlive: Promise<Disconnect>;
let meanwhile: Promise<Array<{ status: number; body: string }>>;
const timers: NodeJS.Timeout[] = [];

beforeAll(async () => {
  app = await startTestApp({ env: { HEADERS_TIMEOUT: '1s', REQUEST_TIMEOUT: '2s', KEEP_ALIVE_TIMEOUT: '1s' } });

  halfHeaders = slowClient(app.port, (socket) => {
    const request = rawRequest(app.port, { method: 'GET', target: '/healthz', headers: { 'User-Agent': 'slow' } });
    socket.write(request.subarray(0, request.lastIndexOf('\r\n\r\n'))); // the head, never ended
  });

  slowBody = slowClient(app.port, (socket) => {
    const headers = { 'Content-Type': 'text/xml; charset=utf-8' };
    socket.write(rawRequest(app.port, { method: 'POST', target: '/Authentication.asmx', headers, body: '<', contentLength: 1000 }));
    // One byte every 100 ms: always sending, never done within the request deadline.
    const drip = setInterval(() => (socket.writable ? socket.write(' ') : clearInterval(drip)), 100);
    timers.push(drip);
    socket.on('close', () => clearInterval(drip));
  });

  idleKeepAlive = slowClient(app.port, (socket, mark) => {
    socket.write(rawRequest(app.port, { method: 'GET', target: '/healthz' }));
    socket.on('data', () => mark());
  });

  // Other connections, opened while the slow ones are held: before the first deadline, and once it has cut
  // the client stalled in its headers (the slow body is held a second longer).
  meanwhile = (async () => {
    await waitUntil(async () => (await openConnections()) >= 3, 'the slow clients to connect');
    const before = await httpGetCall();
    await halfHeaders;
    return [before, await httpGetCall()];
  })();
});

afterAll(async () => {
  for (const timer of timers) clearTimeout(timer);
  await Promise.allSettled([halfHeaders, slowBody, idleKeepAlive, meanwhile]);
  await app.close();
});

it('serves with the settings, checked every second', () => {
  // Node keeps its connectionsCheckingInterval option on the server, though its types leave it out.
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval } = app.server as Server & { connectionsCheckingInterval: number };
  expect({ headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval }).toEqual({
    headersTimeout: 1000,
    requestTimeout: 2000,
    keepAliveTimeout: 1000,
    connectionsCheckingInterval: 1000,
  });
});

it('disconnects a client that stalls in its headers once HEADERS_TIMEOUT has passed, with 408 or a plain close', async () => {
  const result = await halfHeaders;
  expect(result.gaveUp).toBe(false);
  expect(result.afterMs).toBeGreaterThanOrEqual(1000 - 50);
  expect(result.received === '' || result.received.startsWith('HTTP/1.1 408 ')).toBe(true);
});

it('cuts a client whose body still trickles in once REQUEST_TIMEOUT has passed (not at the headers deadline)', async () => {
  const result = await slowBody;
  expect(result.gaveUp).toBe(false);
  expect(result.afterMs).toBeGreaterThanOrEqual(2000 - 50);
  expect(result.received === '' || result.received.startsWith('HTTP/1.1 408 ')).toBe(true);
});

it('closes an idle keep-alive connection once KEEP_ALIVE_TIMEOUT has passed, having announced it', async () => {
  const result = await idleKeepAlive;
  expect(result.gaveUp).toBe(false);
  expect(result.received).toMatch(/^HTTP\/1\.1 200 /);
  expect(result.received).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
  expect(result.afterMs).toBeGreaterThanOrEqual(1000 - 50);
});

it('answers calls on other connections meanwhile', async () => {
  const answers = await meanwhile;
  expect(answers).toEqual([
    { status: 200, body: expect.stringContaining(`>${REFERENCE.memberId}</string>`) as unknown as string },
    { status: 200, body: expect.stringContaining(`>${REFERENCE.memberId}</string>`) as unknown as string },
  ]);
});

it('takes the documented defaults when no settings are given', () => {
  const server = createHttpServer(() => undefined);
  expect({ headers: server.headersTimeout, request: server.requestTimeout, keepAlive: server.keepAliveTimeout }).toEqual({
    headers: 10_000,
    request: 30_000,
    keepAlive: 15_000,
  });
});
