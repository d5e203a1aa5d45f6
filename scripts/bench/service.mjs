// @ts-check
/**
 * The servers the benchmark drives, each in a child process of its own so that the load generator (the
 * bench process) shares an event loop with neither:
 *
 * - startService(): the real service, `node dist/cli/index.js serve`, on a fresh store (a temporary DATA_DIR,
 *   or a fresh schema in DATABASE_URL's database, dropped afterwards) seeded through the admin CLI with a
 *   caller, a member and a session, as an operator would; prepareStore() and launchService() are its two
 *   halves, for the at-scale bench, which seeds the store itself;
 * - startReference(): scripts/bench/reference-server.mjs with the same caller and the same members and sessions;
 * - startFloor(): scripts/bench/floor-server.mjs, the design card's stack answering the seeded member's result.
 */
import { execFile, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cookieAt, createDataSet, memberAt, tokenAt } from './data-set.mjs';
import { signedInResult } from './reference-server.mjs';

const run = promisify(execFile);

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The built CLI of a checkout: this one, or another (BENCH_BEFORE) built with the same node_modules. */
const cliOf = (/** @type {string} */ root) => join(root, 'dist', 'cli', 'index.js');
const SEEDER = fileURLToPath(new URL('./seed-data-set.mjs', import.meta.url));
const SEED_TIMEOUT_MS = 30 * 60_000;
const REFERENCE_SERVER = fileURLToPath(new URL('./reference-server.mjs', import.meta.url));
const FLOOR_SERVER = fileURLToPath(new URL('./floor-server.mjs', import.meta.url));
/** The namespace both servers use (the service's default). */
export const NAMESPACE = 'http://tempuri.org/';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
const CLI_TIMEOUT_MS = 60_000;

/**
 * What the servers know and the requests carry.
 * @typedef {object} Seed
 * @property {string} caller
 * @property {string} password
 * @property {{ id: string, username: string, email: string, firstName: string, lastName: string }} member
 * @property {string} memberPassword the member's password (the sign-in mix signs in with it)
 * @property {string} domain the cookie domain, as the partner sites send it
 * @property {string} cookie
 * @property {string} token
 */

/**
 * @typedef {object} ServiceOptions
 * @property {'sqlite' | 'postgresql'} store
 * @property {string} [databaseUrl] for store postgresql
 * @property {string} logLevel LOG_LEVEL of the service
 * @property {'ibridge' | 'json' | 'plain'} resultFormat RESULT_FORMAT of the service
 * @property {Record<string, string>} [extraEnv] more settings for the service (BENCH_SERVICE_* variables)
 * @property {string} [logFile] where the service's stdout (its log lines) goes; /dev/null by default
 * @property {string} [profileDir] run with --cpu-prof, writing the profile into this folder
 * @property {string} [root] the checkout whose built service runs (its dist/; this one by default)
 */

/**
 * The options of BENCH_BEFORE's service: its checkout, and its own settings (BENCH_BEFORE_SERVICE_<X>) over the others.
 * @param {ServiceOptions} options
 * @param {{ before?: string | undefined, beforeEnv?: Record<string, string> | undefined }} settings
 * @returns {ServiceOptions}
 */
export function beforeOptions(options, { before, beforeEnv }) {
  return { ...options, root: before, extraEnv: { ...options.extraEnv, ...beforeEnv } };
}

/**
 * @typedef {object} RunningServer
 * @property {string} baseUrl e.g. http://127.0.0.1:12345
 * @property {number} pid
 * @property {() => boolean} alive
 * @property {() => string} stderr what the child wrote on stderr (the last few kilobytes)
 * @property {() => Promise<{ code: number | null, signal: string | null, profile?: string }>} stop
 */

/** @returns {Promise<number>} a free TCP port on the loopback interface */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Only what a process needs to run, so that the developer's own settings (CONFIG_FILE, BASE_PATH…) stay out. */
function baseEnv() {
  /** @type {Record<string, string>} */
  const env = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'SystemRoot']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** @param {string} url @param {number} timeoutMs @param {() => boolean} alive @param {() => string} why */
async function waitUntilReady(url, timeoutMs, alive, why) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error(`the server exited before it was ready:\n${why()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server was not ready at ${url} after ${timeoutMs / 1000} s:\n${why()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} label
 * @returns {Pick<RunningServer, 'alive' | 'stderr'> & { exited: Promise<{ code: number | null, signal: string | null }> }}
 */
function watch(child, label) {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk) => {
    tail = (tail + chunk).slice(-8192);
  });
  let running = true;
  /** @type {Promise<{ code: number | null, signal: string | null }>} */
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    });
    child.once('error', (error) => {
      running = false;
      tail += `\n${label}: ${error.message}`;
      resolve({ code: null, signal: null });
    });
  });
  return { alive: () => running, stderr: () => tail, exited };
}

/**
 * SIGTERM (the service stops gracefully, which is also when --cpu-prof writes its profile), SIGKILL after
 * STOP_TIMEOUT_MS.
 * @param {import('node:child_process').ChildProcess} child
 * @param {Promise<{ code: number | null, signal: string | null }>} exited
 */
async function stopChild(child, exited) {
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A fresh schema in DATABASE_URL's database, and that URL with the schema as every connection's search_path. */
async function createSchema(/** @type {string} */ databaseUrl) {
  const { default: pg } = await import('pg');
  const schema = `asmx_bench_${randomBytes(6).toString('hex')}`;
  /** @param {string} sql */
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
    client.on('error', () => {});
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    schema,
    url: url.toString(),
    drop: () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined),
    /** The schema's tables with their indexes and TOAST, in bytes. */
    bytes: async () =>
      Number(
        (await admin(`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${schema}' AND c.relkind = 'r'`))
          .rows[0]?.bytes ?? 0,
      ),
  };
}

/**
 * Seeds a caller, a member with a password and a session through the admin CLI, as an operator would.
 * @param {Record<string, string>} env the service's settings (DATA_DIR or DATABASE_URL)
 * @param {string} root the checkout whose CLI runs
 * @returns {Promise<Seed>}
 */
async function seedThroughCli(env, root) {
  /** @param {string[]} args */
  const cli = async (args) => {
    const { stdout } = await run(process.execPath, [cliOf(root), ...args, '--json'], { env, cwd: root, timeout: CLI_TIMEOUT_MS });
    return JSON.parse(stdout);
  };
  const password = randomBytes(24).toString('base64url');
  const member = { id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' };
  const domain = '.example.org';
  await cli(['callers', 'add', 'bench', '--password', password]);
  await cli(['members', 'add', '--id', member.id, '--username', member.username, '--email', member.email, '--first-name', member.firstName, '--last-name', member.lastName]);
  const memberPassword = randomBytes(12).toString('base64url');
  await cli(['members', 'set-password', member.id, '--password', memberPassword]);
  const session = await cli(['sessions', 'create', member.id, '--domain', domain]);
  if (typeof session.cookie !== 'string' || typeof session.token !== 'string') {
    throw new Error(`sessions create --json printed no cookie and token: ${JSON.stringify(Object.keys(session))}`);
  }
  return { caller: 'bench', password, member, memberPassword, domain, cookie: session.cookie, token: session.token };
}

/**
 * Seeds what the request names through a checkout's services (this one's unless `root` names another), in a
 * child process on the service's settings (scripts/bench/seed-data-set.mjs).
 * @param {Record<string, string>} env
 * @param {import('./seed-data-set.mjs').SeedRequest} request
 * @param {string} [root]
 * @returns {Promise<{ members: number, sessions: number, seconds: number }>}
 */
export async function seedDataSet(env, request, root = ROOT) {
  const { stdout } = await run(process.execPath, [SEEDER], {
    env: { ...env, BENCH_SEED: JSON.stringify(request), BENCH_SEED_ROOT: root },
    cwd: root,
    timeout: SEED_TIMEOUT_MS,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
}

/**
 * An earlier checkout's store (BENCH_BEFORE), seeded through its services' bulk paths as the data set's first
 * member and session: its admin CLI may spell the commands otherwise, and it answers only the session cases.
 * @param {Record<string, string>} env
 * @param {string} root
 * @returns {Promise<Seed>}
 */
async function seedEarlierCheckout(env, root) {
  const password = randomBytes(24).toString('base64url');
  const dataSet = createDataSet(1, 1);
  await seedDataSet(env, { dataSet, members: [0, 1], sessions: [0, 1], caller: { name: 'bench', password } }, root);
  return { caller: 'bench', password, member: memberAt(0), memberPassword: '', domain: dataSet.domain, cookie: cookieAt(dataSet, 0), token: tokenAt(dataSet, 0) };
}

/**
 * A fresh store for the service and the settings that point at it: a temporary DATA_DIR, and with the
 * postgresql store a fresh schema in DATABASE_URL's database (dropped by cleanup) and a SECRET_KEY.
 * @param {ServiceOptions} options
 * @returns {Promise<PreparedStore>}
 *
 * @typedef {object} PreparedStore
 * @property {Record<string, string>} env the service's settings (its CLI's too)
 * @property {() => Promise<number>} bytes the store's size on disk: the SQLite files, or the schema's tables and indexes
 * @property {() => Promise<void>} cleanup
 */
export async function prepareStore(options) {
  const dataDir = mkdtempSync(join(tmpdir(), 'asmx-bench-'));
  /** @type {Awaited<ReturnType<typeof createSchema>> | undefined} */
  let schema;
  const cleanup = async () => {
    if (schema) await schema.drop().catch((error) => console.error(`bench: could not drop the schema: ${error.message}`));
    schema = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    /** @type {Record<string, string>} */
    const env = {
      ...baseEnv(),
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      LOG_LEVEL: options.logLevel,
      RESULT_FORMAT: options.resultFormat,
      SOAP_NAMESPACE: NAMESPACE,
      ...options.extraEnv,
    };
    if (options.store === 'postgresql') {
      if (!options.databaseUrl) throw new Error('the postgresql store needs DATABASE_URL');
      schema = await createSchema(options.databaseUrl);
      env.DATABASE_URL = schema.url;
      // Instances on PostgreSQL share one key, which they must be given.
      env.SECRET_KEY = randomBytes(32).toString('base64');
    }
    const bytes = async () => {
      if (schema) return schema.bytes();
      return readdirSync(dataDir).reduce((sum, name) => sum + statSync(join(dataDir, name)).size, 0);
    };
    return { env, bytes, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * Starts `serve` on a prepared store and waits until /readyz answers.
 * @param {Record<string, string>} env
 * @param {Pick<ServiceOptions, 'logFile' | 'profileDir' | 'root'>} options
 * @returns {Promise<RunningServer & { readyMs: number }>}
 */
export async function launchService(env, options = {}) {
  const logFd = openSync(options.logFile ?? '/dev/null', 'a');
  /** @type {string[]} */
  const nodeArgs = [];
  /** @type {string | undefined} */
  let profile;
  if (options.profileDir) {
    profile = `service-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`;
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', options.profileDir, '--cpu-prof-name', profile);
  }
  const startedAt = performance.now();
  const root = options.root ?? ROOT;
  const child = spawn(process.execPath, [...nodeArgs, cliOf(root), 'serve'], { env, cwd: root, stdio: ['ignore', logFd, 'pipe'] });
  closeSync(logFd);
  const watched = watch(child, 'service');
  const baseUrl = `http://${env.HOST}:${env.PORT}`;
  const stop = async () => {
    const exit = await stopChild(child, watched.exited);
    return profile && options.profileDir ? { ...exit, profile: join(options.profileDir, profile) } : exit;
  };
  try {
    await waitUntilReady(`${baseUrl}/readyz`, START_TIMEOUT_MS, watched.alive, watched.stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, pid: child.pid ?? 0, alive: watched.alive, stderr: watched.stderr, stop, readyMs: performance.now() - startedAt };
}

/**
 * Starts the service on a fresh store seeded through the admin CLI.
 * @param {ServiceOptions} options
 * @returns {Promise<RunningServer & { seed: Seed, store: string, cleanup: () => Promise<void> }>}
 */
export async function startService(options) {
  const prepared = await prepareStore(options);
  try {
    const root = options.root ?? ROOT;
    const seed = root === ROOT ? await seedThroughCli(prepared.env, root) : await seedEarlierCheckout(prepared.env, root);
    const service = await launchService(prepared.env, options);
    return { ...service, seed, store: options.store, cleanup: prepared.cleanup };
  } catch (error) {
    await prepared.cleanup();
    throw error;
  }
}

/**
 * The reference server's settings for the one seeded caller, member and session.
 * @param {Seed} seed
 * @param {'ibridge' | 'json' | 'plain'} resultFormat
 * @returns {Omit<import('./reference-server.mjs').ReferenceConfig, 'port' | 'namespace'>}
 */
export function referenceOfSeed(seed, resultFormat) {
  const { id, email, firstName, lastName } = seed.member;
  return { resultFormat, password: seed.password, sessions: { one: { token: seed.token, cookie: seed.cookie, domain: seed.domain, member: { id, email, firstName, lastName } } } };
}

/**
 * Starts the reference server.
 * @param {Omit<import('./reference-server.mjs').ReferenceConfig, 'port' | 'namespace'>} settings
 * @returns {Promise<RunningServer>}
 */
export function startReference(settings) {
  return startChild('reference', REFERENCE_SERVER, 'BENCH_REFERENCE', { port: 0, namespace: NAMESPACE, ...settings });
}

/**
 * Starts the floor server on the WSDL the service serves, answering every call with the seeded member's result.
 * @param {RunningServer} service
 * @param {Seed} seed
 * @param {'ibridge' | 'json' | 'plain'} resultFormat
 * @returns {Promise<RunningServer>}
 */
export async function startFloor(service, seed, resultFormat) {
  const response = await fetch(`${service.baseUrl}/Authentication.asmx?wsdl`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`the service's ?wsdl answered ${response.status}`);
  const sessions = referenceOfSeed(seed, resultFormat).sessions;
  if (!('one' in sessions)) throw new Error('the floor answers for one seeded session');
  /** @type {import('./floor-server.mjs').FloorConfig} */
  const config = { port: 0, namespace: NAMESPACE, wsdl: await response.text(), result: signedInResult(resultFormat, sessions.one) };
  return startChild('floor', FLOOR_SERVER, 'BENCH_FLOOR', config);
}

/**
 * Forks one of the bench's own servers with its settings as JSON in an environment variable, and waits for
 * the port it reports.
 * @param {string} label
 * @param {string} script
 * @param {string} variable
 * @param {{ port: number }} config
 * @returns {Promise<RunningServer>}
 */
async function startChild(label, script, variable, config) {
  const child = fork(script, [], {
    env: { ...baseEnv(), [variable]: JSON.stringify(config) },
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const watched = watch(child, label);
  /** @type {number} */
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ${label} server did not start:\n${watched.stderr()}`)), START_TIMEOUT_MS);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(/** @type {{ port: number }} */ (message).port);
    });
    watched.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the ${label} server exited:\n${watched.stderr()}`));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    alive: watched.alive,
    stderr: watched.stderr,
    stop: () => stopChild(child, watched.exited),
  };
}
