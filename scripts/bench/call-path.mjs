#!/usr/bin/env node
// @ts-check
/**
 * `node scripts/bench/call-path.mjs <checkout>…`: the CPU one AuthenticateToken or AuthenticateCookie costs the
 * service alone, without HTTP, in several checkouts (each built, with the same node_modules) in one process, their
 * rounds alternating, so that other work on the machine weighs on each alike. Each checkout's services run on a
 * store of their own (a temporary SQLite store, or with BENCH_PG=1 a fresh schema in DATABASE_URL's database,
 * dropped at the end) seeded with one caller, member and session; figures, not a test.
 *
 * Settings (environment):
 *   BENCH_OPERATION     token or cookie (token)
 *   BENCH_CACHE_TTL_MS  the services' CACHE_TTL_MS (0: every call reads the store)
 *   BENCH_CALLS         calls per round (20000)
 *   BENCH_ROUNDS        rounds per checkout (5)
 *   BENCH_PG=1          on PostgreSQL (DATABASE_URL), instead of SQLite
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { intSetting, median } from './runs.mjs';

const roots = process.argv.slice(2).map((root) => resolve(root));
if (roots.length === 0) {
  console.error('usage: node scripts/bench/call-path.mjs <checkout> [<checkout>…]');
  process.exit(2);
}
const operation = process.env.BENCH_OPERATION === 'cookie' ? 'cookie' : 'token';
const calls = intSetting('BENCH_CALLS', 20_000, 1);
const rounds = intSetting('BENCH_ROUNDS', 5, 1);
const databaseUrl = process.env.BENCH_PG === '1' ? process.env.DATABASE_URL : undefined;
if (process.env.BENCH_PG === '1' && !databaseUrl) throw new Error('BENCH_PG=1 needs DATABASE_URL');
const context = { clientAddress: '192.0.2.10', cookieDomain: () => 'example.org' };

/** A PostgreSQL schema of its own, and how to drop it. @param {string} url */
async function schemaIn(url) {
  const { default: pg } = await import('pg');
  const schema = `asmx_call_path_${randomBytes(6).toString('hex')}`;
  const admin = async (/** @type {string} */ sql) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  return { url: withSchema.toString(), drop: () => admin(`DROP SCHEMA ${schema} CASCADE`) };
}

/**
 * One checkout's services on their own store, seeded, held open until `stop`.
 * @param {string} root
 */
async function checkout(root) {
  /** @type {{ createCliContext: (env: Record<string, string | undefined>) => { withServices: (fn: (services: any) => Promise<unknown>) => Promise<unknown> } }} */
  const { createCliContext } = await import(pathToFileURL(join(root, 'dist', 'cli', 'context.js')).href);
  const dataDir = mkdtempSync(join(tmpdir(), 'asmx-call-path-'));
  const schema = databaseUrl ? await schemaIn(databaseUrl) : undefined;
  const env = {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CACHE_TTL_MS: process.env.BENCH_CACHE_TTL_MS ?? '0',
    ...(schema ? { DATABASE_URL: schema.url, SECRET_KEY: randomBytes(32).toString('base64') } : {}),
  };
  /** @type {() => void} */
  let stop = () => {};
  const stopped = new Promise((resolve) => (stop = () => resolve(undefined)));
  /** @type {(call: () => Promise<{ kind: string }>) => void} */
  let ready = () => {};
  const call = new Promise((resolve) => (ready = resolve));
  const closed = createCliContext(env).withServices(async (services) => {
    const { password } = await services.callers.add('bench');
    await services.members.add({ id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
    const { token, cookie } = await services.sessions.create('10042', 'example.org');
    const { authentication } = services;
    ready(
      operation === 'token'
        ? () => authentication.authenticateToken({ securityPassword: password, token }, context)
        : () => authentication.authenticateCookie({ securityPassword: password, loginCookie: cookie, cookieDomain: 'example.org' }, context),
    );
    await stopped;
  });
  const ask = await call;
  const answer = await ask();
  if (answer.kind !== 'member') throw new Error(`${root}: the seeded session did not answer as a member (${answer.kind})`);
  return {
    root,
    ask,
    /** @type {number[]} */
    micros: [],
    close: async () => {
      stop();
      await closed;
      await schema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const checkouts = [];
for (const root of roots) checkouts.push(await checkout(root));
for (const { ask } of checkouts) for (let i = 0; i < Math.min(calls, 3000); i++) await ask();
for (let round = 0; round < rounds; round++) {
  for (const measured of checkouts) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) await measured.ask();
    const used = process.cpuUsage(start);
    measured.micros.push((used.user + used.system) / calls);
  }
}
console.log(`Authenticate${operation === 'token' ? 'Token' : 'Cookie'}, ${databaseUrl ? 'PostgreSQL' : 'SQLite'}, CACHE_TTL_MS=${process.env.BENCH_CACHE_TTL_MS ?? '0'}: CPU µs per call, median of ${rounds} rounds of ${calls} (each round)`);
for (const { root, micros, close } of checkouts) {
  console.log(`  ${median(micros).toFixed(1).padStart(7)}  ${root}  (${micros.map((m) => m.toFixed(1)).join(' ')})`);
  await close();
}
