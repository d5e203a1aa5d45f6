import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { selfSignedCertificate, type Certificate } from './certificate.js';
import { freePort } from './ports.js';
import { POSTGRES_TEST_URL } from './postgres.js';
import { program, type Requirement } from './requirements.js';
import { waitUntil } from './wait.js';

/**
 * Real processes for the deployment tests: the built service (`node dist/cli/index.js`), the admin CLI, and
 * Debian's nginx. Everything started here is remembered, so that killLeftovers() in afterAll ends whatever a
 * failed test left running.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI_PATH = join(ROOT, 'dist', 'cli', 'index.js');
export const NGINX_PATH = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
export const NGINX_CONFIG = join(ROOT, 'deploy', 'nginx', 'authentication-asmx.conf');

const running = new Set<ChildProcess>();

/** SIGKILLs every process started here that has not exited yet (their children die with them: nginx's workers exit when the master goes). */
export function killLeftovers(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  running.clear();
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function track(child: ChildProcess): Promise<Exit> {
  running.add(child);
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// HTTP

export interface Response {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** For https: the CA to trust (the test's self-signed certificate) and the name to send as SNI and check. */
  ca?: string;
  servername?: string;
  timeoutMs?: number;
}

/**
 * One request with node:http(s), no redirects followed, no cookie jar: what was sent is what the test wrote.
 * Connections are not kept alive, so every request is a fresh one through the proxy.
 */
export function request(url: string, options: RequestOptions = {}): Promise<Response> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const body = options.body === undefined ? undefined : Buffer.from(options.body, 'utf8');
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined) headers['Content-Length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(
      target,
      {
        method: options.method ?? 'GET',
        headers,
        agent: false,
        timeout: options.timeoutMs ?? 10_000,
        ...(secure ? { ca: options.ca, servername: options.servername } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${options.timeoutMs ?? 10_000} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls until check() holds (what it throws counts as not yet), or fails with what the last attempt said. */
async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>, exited?: () => string | undefined): Promise<void> {
  let last = '';
  const ready = async () => {
    const gone = exited?.();
    if (gone) throw new Error(`${what}: ${gone}`);
    try {
      return await check();
    } catch (error) {
      last = (error as Error).message;
      return false;
    }
  };
  await waitUntil(ready, () => `${what}${last ? ` (${last})` : ''}`, { timeoutMs, intervalMs: 100 });
}

// ---------------------------------------------------------------------------------------------------------
// The service and its CLI

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built admin CLI with exactly this environment (plus PATH); rejects when it exits non-zero. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI_PATH, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      if (code !== 0) return reject(new Error(`authentication-asmx ${args.join(' ')} exited ${code}: ${stderr || stdout}`));
      resolve({ code, stdout, stderr });
    });
  });
}

export interface ServiceProcess {
  readonly name: string;
  readonly port: number;
  /** http://127.0.0.1:port */
  readonly baseUrl: string;
  readonly child: ChildProcess;
  /** Its stdout, one parsed JSON log line each, as they arrive. */
  readonly logLines: Array<Record<string, unknown>>;
  /** Its stderr and any stdout line that was not JSON. */
  readonly otherOutput: string[];
  readonly exited: Promise<Exit>;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/**
 * Starts `node dist/cli/index.js serve` (or the CLI at cliPath) on 127.0.0.1 and an ephemeral port (PORT=0
 * unless env says otherwise; the port is read from the "listening" log line) and resolves once it answers
 * /healthz (or, where there is none, ?wsdl).
 */
export async function startService(name: string, env: Record<string, string>, options: { readyTimeoutMs?: number; cliPath?: string } = {}): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [options.cliPath ?? CLI_PATH, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = track(child);
  let exit: Exit | undefined;
  void exited.then((value) => (exit = value));
  const logLines: Array<Record<string, unknown>> = [];
  const otherOutput: string[] = [];
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      try {
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        otherOutput.push(line);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => otherOutput.push(chunk));
  const exitedEarly = () => (exit ? `exited (${exit.code ?? exit.signal}) before it was ready: ${otherOutput.join('').slice(0, 2000)}` : undefined);

  let port = 0;
  await waitFor(`instance ${name}`, options.readyTimeoutMs ?? 20_000, async () => {
    const listening = logLines.find((line) => line.message === 'listening');
    if (!listening) return false;
    port = Number(new URL(String(listening.url)).port);
    const health = await request(`http://127.0.0.1:${port}/healthz`);
    if (health.status === 200) return true;
    if (health.status !== 404) return false;
    return (await request(`http://127.0.0.1:${port}/Authentication.asmx?wsdl`)).status === 200;
  }, exitedEarly);

  return {
    name,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    logLines,
    otherOutput,
    exited,
    stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (exit === undefined) child.kill(signal);
      return exited;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// PostgreSQL

/**
 * A database of its own for one run of the deployment tests, on the server the PostgreSQL store's tests use
 * (POSTGRES_TEST_URL, test/helpers/postgres.ts). CREATE DATABASE rather than a schema: the store takes its
 * schema from DATABASE_URL's default, as an operator's instances do.
 */
export interface TestDatabase {
  /** DATABASE_URL for the instances and the CLI. */
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the POSTGRES_TEST_URL server, for one run; drop() removes it, connected sessions and all. */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_TEST_URL);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

// ---------------------------------------------------------------------------------------------------------
// TLS and nginx

/** Debian's nginx, which the deployment tests run (test/helpers/requirements.ts: CI fails where it is missing). */
export const NGINX: Requirement = program('nginx', NGINX_PATH, 'apt-get install nginx');

export interface NginxPorts {
  /** The instances, in the order of the upstream's server lines. */
  upstreams: number[];
  http: number;
  https: number;
}

/**
 * deploy/nginx/authentication-asmx.conf as the test runs it: loopback listeners on the given ports instead of
 * 80 and 443 (no IPv6), the test's instances as the upstream servers, localhost and 127.0.0.1 as the server
 * names, the test certificate, the HTTPS redirect with the test's port, and the access log in dir. Everything
 * else is the file as an operator installs it. Each substitution must apply, so that the test notices when the
 * file's shape changes.
 */
export function renderNginxConfig(source: string, ports: NginxPorts, certificate: Certificate, dir: string): string {
  let text = source;
  const replace = (pattern: RegExp, replacement: string | ((match: string, ...groups: string[]) => string)) => {
    if (!pattern.test(text)) throw new Error(`${NGINX_CONFIG} no longer has ${pattern}`);
    pattern.lastIndex = 0;
    text = text.replace(pattern, replacement as string);
  };
  const serverLines = [...text.matchAll(/^(\s*server\s+)127\.0\.0\.1:\d+(.*)$/gm)];
  if (serverLines.length !== ports.upstreams.length) {
    throw new Error(`${NGINX_CONFIG} has ${serverLines.length} upstream servers, the test starts ${ports.upstreams.length}`);
  }
  let index = 0;
  replace(/^(\s*server\s+)127\.0\.0\.1:\d+/gm, (_match, head: string) => `${head}127.0.0.1:${ports.upstreams[index++]}`);
  replace(/^\s*listen\s+\[::\]:.*\n/gm, '');
  replace(/^(\s*listen\s+)80\b/gm, (_match, head: string) => `${head}127.0.0.1:${ports.http}`);
  replace(/^(\s*listen\s+)443\b/gm, (_match, head: string) => `${head}127.0.0.1:${ports.https}`);
  replace(/^(\s*server_name\s+)(?!_;)[^;]+;/gm, (_match, head: string) => `${head}localhost 127.0.0.1;`);
  replace(/^(\s*ssl_certificate\s+)\S+;/gm, (_match, head: string) => `${head}${certificate.certPath};`);
  replace(/^(\s*ssl_certificate_key\s+)\S+;/gm, (_match, head: string) => `${head}${certificate.keyPath};`);
  replace(/return 308 https:\/\/\$host\$request_uri;/g, `return 308 https://$host:${ports.https}$request_uri;`);
  replace(/^(\s*access_log\s+)\/var\/log\/nginx\/\S+/gm, (_match, head: string) => `${head}${join(dir, 'access.log')}`);
  return text;
}

export interface NginxProcess {
  readonly dir: string;
  readonly ports: NginxPorts;
  readonly certificate: Certificate;
  readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  /** http://127.0.0.1:<http port> and https://localhost:<https port> (connect with ca and servername 'localhost'). */
  readonly httpUrl: string;
  readonly httpsUrl: string;
  /** Its error log and the site's access log, so far. */
  errorLog(): Promise<string>;
  accessLog(): Promise<string>;
  /** Ends nginx (SIGQUIT: graceful) and removes its temporary directory. */
  stop(): Promise<void>;
}

/**
 * Debian's nginx in the foreground with the rendered deploy/nginx config, a self-signed certificate, and its
 * logs, pid file and temporary files in a fresh temporary directory:
 * `nginx -p <tmp> -c <tmp>/nginx.conf -g 'daemon off; pid <tmp>/nginx.pid; error_log <tmp>/error.log;'`.
 */
export async function startNginx(upstreams: number[]): Promise<NginxProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'authentication-asmx-nginx-'));
  // nginx's workers run as nobody when the master is root: they must reach the temporary directories, which
  // nginx creates (and gives to them) itself.
  await chmod(dir, 0o755);
  const certificate = selfSignedCertificate(dir);
  const ports: NginxPorts = { upstreams, http: await freePort(), https: await freePort() };
  const site = renderNginxConfig(await readFile(NGINX_CONFIG, 'utf8'), ports, certificate, dir);
  await writeFile(join(dir, 'authentication-asmx.conf'), site);
  // The parts of Debian's /etc/nginx/nginx.conf the site relies on, with every path in the temporary directory.
  const main = [
    'worker_processes 1;',
    'events { worker_connections 512; }',
    'http {',
    `  access_log ${join(dir, 'http-access.log')};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((temp) => `  ${temp}_temp_path ${join(dir, temp)};`),
    `  include ${join(dir, 'authentication-asmx.conf')};`,
    '}',
    '',
  ].join('\n');
  const confPath = join(dir, 'nginx.conf');
  await writeFile(confPath, main);

  const globals = `daemon off; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'error.log')} warn;`;
  const checked = spawnSync(NGINX_PATH, ['-t', '-q', '-p', dir, '-c', confPath, '-g', globals], { encoding: 'utf8' });
  if (checked.status !== 0) throw new Error(`nginx -t refused the rendered configuration:\n${checked.stderr}\n${site}`);

  const child = spawn(NGINX_PATH, ['-p', dir, '-c', confPath, '-g', globals], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = track(child);
  let exit: Exit | undefined;
  void exited.then((value) => (exit = value));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const errorLog = () => readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
  const accessLog = () => readFile(join(dir, 'access.log'), 'utf8').catch(() => '');

  const httpUrl = `http://127.0.0.1:${ports.http}`;
  const httpsUrl = `https://localhost:${ports.https}`;
  await waitFor(
    'nginx',
    10_000,
    async () => {
      const [plain, tls] = await Promise.all([
        request(`${httpUrl}/Authentication.asmx?wsdl`),
        request(`https://127.0.0.1:${ports.https}/Authentication.asmx?wsdl`, { ca: certificate.cert, servername: 'localhost', headers: { Host: `localhost:${ports.https}` } }),
      ]);
      return plain.status === 200 && tls.status === 200;
    },
    () => (exit ? `exited (${exit.code ?? exit.signal}): ${stderr}` : undefined),
  );

  return {
    dir,
    ports,
    certificate,
    child,
    exited,
    httpUrl,
    httpsUrl,
    errorLog,
    accessLog,
    async stop() {
      if (exit === undefined) {
        child.kill('SIGQUIT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A request to nginx's HTTPS listener as a client of https://localhost:<port> would send it: to 127.0.0.1
 * (localhost may resolve to ::1, where the test's nginx does not listen), with SNI and Host localhost, and the
 * test certificate trusted.
 */
export function requestTls(nginx: NginxProcess, path: string, options: RequestOptions = {}): Promise<Response> {
  return request(`https://127.0.0.1:${nginx.ports.https}${path}`, {
    ...options,
    ca: nginx.certificate.cert,
    servername: 'localhost',
    headers: { Host: `localhost:${nginx.ports.https}`, ...options.headers },
  });
}
