import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, type Environment } from '../src/config/config.js';
import { serve } from '../src/main.js';
import { StartupError } from '../src/startup-error.js';
import { freePort, tryConnect } from './helpers/ports.js';
import { REFERENCE } from './helpers/reference-data.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'asmx-main-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));



/** serve() on free ports with signals from an emitter; its log lines parsed. */
async function start(env: Environment = {}) {
  const port = await freePort();
  const signals = new EventEmitter();
  const lines: Array<Record<string, unknown>> = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env });
  let stopped = false;
  const serving = serve(config, { signals, logStream }).finally(() => (stopped = true));
  const deadline = Date.now() + 10_000;
  while (!lines.some((line) => line.message === 'listening')) {
    if (stopped) await serving;
    if (Date.now() > deadline) throw new Error('serve() did not start');
    await sleep(10);
  }
  return { port, base: `http://127.0.0.1:${port}`, signals, lines, serving, isStopped: () => stopped };
}

/** A SOAP call sent up to its last bytes; finish() sends them, answer resolves with what came back. */
function halfSentCall(port: number) {
  const body = Buffer.from(
    `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><AuthenticateToken xmlns="http://tempuri.org/"><securityPassword>x</securityPassword><token>y</token></AuthenticateToken></soap:Body></soap:Envelope>`,
  );
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  socket.on('error', () => undefined);
  const answer = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  socket.write(
    `POST /Authentication.asmx HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: "http://tempuri.org/AuthenticateToken"\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  socket.write(body.subarray(0, 50));
  return { answer, finish: () => socket.write(body.subarray(50)) };
}

test('serve() refuses a port in use with a StartupError that says so', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as AddressInfo).port;
  try {
    const started = serve(loadConfig({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    await expect(started).rejects.toBeInstanceOf(StartupError);
    await expect(started).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: the address is already in use (set PORT or HOST)`);
  } finally {
    blocker.close();
  }
});

test('serve() refuses a METRICS_PORT in use, and releases the main port', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const metricsPort = (blocker.address() as AddressInfo).port;
  const port = await freePort();
  try {
    const started = serve(loadConfig({ PORT: String(port), METRICS_PORT: String(metricsPort), DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    await expect(started).rejects.toThrow(`cannot listen for metrics on 127.0.0.1:${metricsPort}: the address is already in use (set METRICS_PORT or HOST)`);
    expect(await tryConnect(port)).toBe('ECONNREFUSED');
  } finally {
    blocker.close();
  }
});

test('SIGTERM: a call in flight is answered, new connections are refused, and serve() resolves', async () => {
  const metricsPort = await freePort();
  const app = await start({ METRICS_PORT: String(metricsPort), SHUTDOWN_TIMEOUT: '10s' });
  expect((await fetch(`${app.base}/readyz`)).status).toBe(200);
  expect((await fetch(`${app.base}/metrics`)).status).toBe(404);
  expect(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).toContain('asmx_calls_total');
  expect(app.lines.find((line) => line.message === 'listening')).toMatchObject({ metrics: `http://127.0.0.1:${metricsPort}/metrics` });

  const call = halfSentCall(app.port);
  await sleep(50);
  app.signals.emit('SIGTERM', 'SIGTERM');
  await sleep(50);
  expect(app.isStopped()).toBe(false);
  expect(await tryConnect(app.port)).toBe('ECONNREFUSED');
  call.finish();
  const answer = await call.answer;
  expect(answer).toMatch(/^HTTP\/1\.1 500 /); // a wrong security password, answered as ASMX does
  expect(answer).toContain('Invalid security password');
  expect(answer).toMatch(/\r\nConnection: close\r\n/i);
  await app.serving;
  expect(await tryConnect(metricsPort)).toBe('ECONNREFUSED');
  expect(app.lines.map((line) => line.message).filter((m) => String(m).startsWith('stop'))).toEqual([
    'stopping: draining (readyz answers 503, no new connections)',
    'stopping: every request finished',
    'stopping: purge stopped',
    'stopping: metrics listener closed',
    'stopping: store closed',
    'stopped',
  ]);
  expect(app.lines.find((line) => String(line.message).startsWith('stopping: draining'))).toMatchObject({ signal: 'SIGTERM', inFlight: 1, timeoutSeconds: 10 });
  expect(app.lines.find((line) => line.message === 'stopping: every request finished')).toMatchObject({ inFlight: 1, cut: 0, forced: false });
});

test('a second signal cuts what is still in flight at once', async () => {
  const app = await start({ SHUTDOWN_TIMEOUT: '1h' });
  const call = halfSentCall(app.port);
  await sleep(50);
  const started = Date.now();
  app.signals.emit('SIGINT', 'SIGINT');
  await sleep(50);
  expect(app.isStopped()).toBe(false);
  app.signals.emit('SIGTERM', 'SIGTERM');
  await app.serving;
  expect(Date.now() - started).toBeLessThan(3000);
  expect(await call.answer).toBe('');
  expect(app.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'stopping: second signal, cutting the requests in flight', signal: 'SIGTERM' }));
  expect(app.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'stopping: requests cut', cut: 1, forced: true }));
  expect(app.signals.listenerCount('SIGTERM') + app.signals.listenerCount('SIGINT')).toBe(0);
});

test('the store is closed and opens again for the next start', async () => {
  const first = await start();
  first.signals.emit('SIGTERM');
  await first.serving;
  const second = await start();
  try {
    const res = await fetch(`${second.base}/Authentication.asmx/AuthenticateToken?securityPassword=${REFERENCE.password}&token=x`);
    expect(res.status).toBe(500); // no caller registered: the store answers
    expect((await fetch(`${second.base}/readyz`)).status).toBe(200);
  } finally {
    second.signals.emit('SIGTERM');
    await second.serving;
  }
});
