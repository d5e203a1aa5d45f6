import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, type Environment } from '../src/config/config.js';
import { serve } from '../src/main.js';
import { StartupError } from '../src/startup-error.js';
import { logCapture } from './helpers/log-capture.js';
import { freePort, tryConnect } from './helpers/ports.js';
import { describeWithPostgres, POSTGRES_TEST_URL } from './helpers/postgres.js';
import { rawRequest, requestArrival, sendPartly } from './helpers/raw-http.js';
import { REFERENCE } from './helpers/reference-data.js';
import { operationElement, soapEnvelope } from './helpers/soap-envelopes.js';
import { waitUntil } from './helpers/wait.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'asmx-main-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

/** serve() on free ports with signals from an emitter; its log lines parsed. */
async function start(env: Environment = {}) {
  const port = await freePort();
  const signals = new EventEmitter();
  const { lines, stream } = logCapture();
  const config = loadConfig({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env });
  let stopped = false;
  const serving = serve(config, { signals, logStream: stream }).finally(() => (stopped = true));
  const listening = async () => {
    if (stopped) await serving;
    return lines.some((line) => line.message === 'listening');
  };
  await waitUntil(listening, 'serve() to start', { timeoutMs: 10_000 });
  const logged = (message: string) => waitUntil(() => lines.some((line) => String(line.message).startsWith(message)), `the log line "${message}"`);
  return { port, base: `http://127.0.0.1:${port}`, signals, lines, logged, serving, isStopped: () => stopped };
}

/**
 * A SOAP call sent up to its last bytes, once the server has read its head: it is in flight. finish() sends the
 * rest; received resolves with what came back.
 */
async function halfSentCall(port: number) {
  const body = soapEnvelope('1.1', operationElement('http://tempuri.org/', 'AuthenticateToken', { securityPassword: 'x', token: 'y' }));
  const headers = { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '"http://tempuri.org/AuthenticateToken"' };
  const arrived = requestArrival();
  const call = sendPartly(port, rawRequest(port, { method: 'POST', target: '/Authentication.asmx', headers, body }), 50);
  await arrived;
  return call;
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

  const call = await halfSentCall(app.port);
  app.signals.emit('SIGTERM', 'SIGTERM');
  await app.logged('stopping: draining');
  // Refused once the stop has accepted the connections already made (one made in that moment is reset instead).
  await waitUntil(async () => (await tryConnect(app.port)) === 'ECONNREFUSED', 'new connections to be refused');
  expect(app.isStopped()).toBe(false);
  call.finish();
  const answer = await call.received;
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
  // The deadline is an hour away: a stop that ends within the test's time-out was cut by the second signal.
  const app = await start({ SHUTDOWN_TIMEOUT: '1h' });
  const call = await halfSentCall(app.port);
  app.signals.emit('SIGINT', 'SIGINT');
  await app.logged('stopping: draining');
  expect(app.isStopped()).toBe(false);
  app.signals.emit('SIGTERM', 'SIGTERM');
  await app.serving;
  expect(await call.received).toBe('');
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

describeWithPostgres('on PostgreSQL', () => {
  test('without SECRET_KEY and without a key file, an instance refuses to start and makes no key file of its own', async () => {
    const port = await freePort();
    const started = serve(loadConfig({ PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: POSTGRES_TEST_URL, LOG_LEVEL: 'silent' }));
    await expect(started).rejects.toThrow(/SECRET_KEY: required with DATABASE_URL/);
    expect(existsSync(join(dataDir, 'secret.key'))).toBe(false);
    expect(await tryConnect(port)).toBe('ECONNREFUSED');
  });
});

test('the start-up log names the profile and every setting with its source, secrets masked', async () => {
  const key = 'b'.repeat(64);
  const app = await start({ PROFILE: 'isgweb', SECRET_KEY: key });
  const settings = app.lines.find((line) => line.message === 'settings');
  expect(settings).toMatchObject({
    profile: 'isgweb',
    settings: {
      PROFILE: { value: 'isgweb', source: 'environment' },
      BASE_PATH: { value: '/iservices', source: 'profile' },
      SECRET_KEY: { value: '(hidden)', source: 'environment' },
      HOST: { value: '127.0.0.1', source: 'default' },
    },
  });
  expect(JSON.stringify(app.lines)).not.toContain(key);
  expect(app.lines.find((line) => line.message === 'listening')).toMatchObject({
    url: `http://127.0.0.1:${app.port}/iservices/Authentication.asmx`,
    operations: ['AuthenticateCookie', 'AuthenticateToken', 'AuthenticateUser', 'DeleteUserSession', 'Login'],
  });
  app.signals.emit('SIGTERM', 'SIGTERM');
  await app.serving;
});

test('the start-up log says why the OpenID provider is off: no PUBLIC_URL, or no client registered', async () => {
  for (const [env, reason] of [
    [{}, 'PUBLIC_URL is not set (it is the issuer)'],
    [{ PUBLIC_URL: 'https://members.example.org' }, 'no client is registered (oidc-clients add)'],
  ] as const) {
    const app = await start(env);
    try {
      expect(app.lines.filter((line) => line.message === 'oidc provider')).toEqual([expect.objectContaining({ level: 'info', state: 'off', reason })]);
    } finally {
      app.signals.emit('SIGTERM', 'SIGTERM');
      await app.serving;
    }
  }
});

test('a secret read from its file is logged masked, with the file variable as its source', async () => {
  const key = 'c'.repeat(64);
  const keyFile = join(dataDir, 'key.txt');
  await writeFile(keyFile, `${key}\n`);
  const app = await start({ SECRET_KEY_FILE: keyFile });
  expect(app.lines.find((line) => line.message === 'settings')).toMatchObject({
    settings: { SECRET_KEY: { value: '(hidden)', source: 'SECRET_KEY_FILE' }, SECRET_KEY_FILE: { value: keyFile, source: 'environment' } },
  });
  expect(JSON.stringify(app.lines)).not.toContain(key);
  app.signals.emit('SIGTERM', 'SIGTERM');
  await app.serving;
});

test('LOG_FORMAT=pretty: readable lines, and a short summary of the settings instead of the whole record', async () => {
  const key = 'd'.repeat(64);
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const port = await freePort();
  const signals = new EventEmitter();
  const config = loadConfig({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'pretty', PROFILE: 'crm4m', SECRET_KEY: key });
  const serving = serve(config, { signals, logStream: stream });
  await waitUntil(() => text.includes(' listening '), 'the listening line', { timeoutMs: 10_000 });
  signals.emit('SIGTERM', 'SIGTERM');
  await serving;

  const lines = text.trimEnd().split('\n');
  for (const line of lines) {
    expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3}Z (INFO |WARN ) \S/);
    expect(() => JSON.parse(line)).toThrow();
  }
  const settings = lines.find((line) => / INFO  settings /.test(line)) ?? '';
  expect(settings).toMatch(/ INFO  settings profile=crm4m given="[^"]+"$/);
  const given = (/given="([^"]+)"/.exec(settings)?.[1] ?? '').split(', ');
  // What was given, secrets masked; not the defaults, nor what the profile sets (its name sums that up).
  expect(given.sort()).toEqual([`DATA_DIR=${dataDir}`, 'LOG_FORMAT=pretty', 'LOG_LEVEL=info', `PORT=${port}`, 'PROFILE=crm4m', 'SECRET_KEY=(hidden)']);
  expect(text).not.toContain(key);
  expect(lines).toContainEqual(
    `${lines.find((line) => line.includes(' listening '))?.slice(0, 13)} INFO  listening url=http://127.0.0.1:${port}/DesktopModules/MX/Authentication.asmx store=sqlite resultFormat=json operations=AuthenticateToken,AuthenticateUser,DeleteUserSession,ValidateUser metrics=http://127.0.0.1:${port}/metrics`,
  );
  expect(lines.at(-1)).toMatch(/ INFO  stopped$/);
});
