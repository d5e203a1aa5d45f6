// @ts-check
/**
 * One member's history among many events, as the staff console reads it, on one store: BENCH_MEMBERS members and
 * the events seeded through the bulk paths (scripts/bench/seed-data-set.mjs: the events through Store.insertEvents,
 * spread over 90 days, event k member k mod the member count's), and a staff member signed in with a second
 * factor. Then the store's query alone (Store.listEvents, the member's newest HISTORY_LENGTH, in a process of its
 * own: scripts/bench/history-query.mjs), and the console's page of that member (GET /Admin/member, which reads the
 * member, the sessions, the second factor and the history) over HTTP from the running service. `npm run bench`
 * runs it after the cases of each store (scripts/bench/run.mjs), `npm run bench:history` alone
 * (scripts/bench/event-history.mjs).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cookieAt, createDataSet, memberAt, tokenAt } from './data-set.mjs';
import { checkAnswer, cleanups, ensureAlive, int, intSetting, measure, ms, progress, round, serviceEnvOf } from './runs.mjs';
import { launchService, prepareStore, ROOT } from './service.mjs';

const run = promisify(execFile);
const SEEDER = join(ROOT, 'scripts', 'bench', 'seed-data-set.mjs');
const QUERY = join(ROOT, 'scripts', 'bench', 'history-query.mjs');
const CHILD_TIMEOUT_MS = 30 * 60_000;
const STORE_LABEL = { sqlite: 'embedded store (SQLite)', postgresql: 'PostgreSQL' };
/** As many events as the console's member page shows (src/admin/router.ts). */
const HISTORY_LENGTH = 50;
/** Member 0 is the staff member; member 1 the one whose history is read, a member like any other. */
const STAFF_INDEX = 0;
const MEMBER_INDEX = 1;
/** The console is asked on this host: the staff member's session was opened for it. */
const HOST = '127.0.0.1';

/** The case's name in the tables, and the word BENCH_CASES selects it by. */
export const HISTORY_CASE = "one member's history";

/**
 * What the history's runs take, from the environment: `prefix` names its settings (BENCH_ for `bench:history`,
 * BENCH_HISTORY_ within `npm run bench`, whose BENCH_CONNECTIONS and BENCH_DURATION are the cases').
 * @param {string} prefix
 */
export function historySettings(prefix) {
  return {
    events: intSetting(`${prefix}EVENTS`, 1_000_000, 1),
    members: intSetting(`${prefix}MEMBERS`, 10_000, 2),
    repeats: intSetting(`${prefix}REPEATS`, 200, 1),
    connections: intSetting(`${prefix}CONNECTIONS`, 4, 1),
    duration: intSetting(`${prefix}DURATION`, 10, 1),
    warmup: intSetting(`${prefix}WARMUP`, 2, 0),
    logLevel: process.env.BENCH_LOG_LEVEL || 'info',
    serviceEnv: serviceEnvOf(process.env),
  };
}
/** @typedef {ReturnType<typeof historySettings>} HistorySettings */

/**
 * One of the bench's child processes on the service's settings; its last line of output, as JSON.
 * @param {string} script @param {Record<string, string>} env
 */
async function child(script, env) {
  const { stdout } = await run(process.execPath, [script], { env, cwd: ROOT, timeout: CHILD_TIMEOUT_MS, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
}

/**
 * The history's figures on one store (a fresh one, removed afterwards).
 * @param {'sqlite' | 'postgresql'} store @param {HistorySettings} settings @param {string | undefined} databaseUrl
 */
export async function measureHistory(store, settings, databaseUrl) {
  console.log(`\n== ${STORE_LABEL[store]}: ${int(settings.members)} members, ${int(settings.events)} events`);
  const prepared = await prepareStore({ store, databaseUrl, logLevel: settings.logLevel, resultFormat: 'ibridge', extraEnv: settings.serviceEnv });
  cleanups.push(prepared.cleanup);
  const dataSet = createDataSet(settings.members, 0);
  const staff = { memberIndex: STAFF_INDEX, cookieDomain: HOST, cookie: cookieAt(dataSet, 0), token: tokenAt(dataSet, 0) };
  /** @type {import('./seed-data-set.mjs').SeedRequest} */
  const seedRequest = { dataSet, members: [0, settings.members], sessions: [0, 0], caller: null, events: { count: settings.events, end: Date.now() }, staff };
  const seeding = await child(SEEDER, { ...prepared.env, BENCH_SEED: JSON.stringify(seedRequest) });
  const databaseBytes = await prepared.bytes();
  console.log(`   seeded ${int(seeding.members)} members and ${int(seeding.events)} events in ${seeding.seconds.toFixed(1)} s; database ${int(databaseBytes / 2 ** 20)} MiB`);

  const member = memberAt(MEMBER_INDEX);
  const query = await child(QUERY, { ...prepared.env, BENCH_HISTORY: JSON.stringify({ memberId: member.id, limit: HISTORY_LENGTH, repeats: settings.repeats }) });
  console.log(`   Store.listEvents, member ${member.id}'s newest ${HISTORY_LENGTH} (${query.rows} rows): first ${ms(query.firstMs)} ms, then p50 ${ms(query.p50Ms)} ms, p99 ${ms(query.p99Ms)} ms, slowest ${ms(query.maxMs)} ms of ${settings.repeats}`);

  const service = await launchService(prepared.env);
  cleanups.push(service.stop);
  /** @type {import('./cases.mjs').BenchRequest} */
  const request = { method: 'GET', path: `/Admin/member?id=${encodeURIComponent(member.id)}`, headers: { Cookie: `.ASPXAUTH=${staff.cookie}` } };
  // The page as staff see it: the member, and the history's first refusal with its reason.
  await checkAnswer('the member page', request, service.baseUrl, { status: 200, includes: 'wrong-password' }, 'the staff console');
  await checkAnswer('the member page', request, service.baseUrl, { status: 200, includes: member.username }, 'the staff console');
  const ours = [process.pid, service.pid];
  const load = (/** @type {number} */ duration) => measure({ baseUrl: service.baseUrl, request, connections: settings.connections, duration }, ours, service.pid);
  if (settings.warmup > 0) await load(settings.warmup);
  const page = await load(settings.duration);
  ensureAlive(service, 'service');
  progress('member page', page);
  const exit = await service.stop();
  if (exit.code !== 0) console.warn(`bench: the service exited with ${exit.code ?? exit.signal}:\n${service.stderr()}`);
  cleanups.splice(cleanups.indexOf(service.stop), 1);
  await prepared.cleanup();
  cleanups.length = 0;
  return {
    store,
    seedSeconds: round(seeding.seconds, 1),
    databaseBytes,
    query: { rows: query.rows, firstMs: round(query.firstMs, 3), p50Ms: round(query.p50Ms, 3), p99Ms: round(query.p99Ms, 3), maxMs: round(query.maxMs, 3) },
    page: {
      rps: round(page.rps, 1),
      p50: round(page.p50, 3),
      p99: round(page.p99, 3),
      p999: round(page.p999, 3),
      cpuMicrosPerCall: page.cpuMicrosPerCall === null ? null : round(page.cpuMicrosPerCall, 0),
      errors: page.non2xx + page.errors,
      otherCpuPercent: page.otherCpu === null ? null : round(page.otherCpu * 100, 1),
    },
  };
}

/** The member whose history is read: how many events it has (those seeded, and its member-created). @param {HistorySettings} settings */
export function memberEventCount(settings) {
  return Math.floor(settings.events / settings.members) + (MEMBER_INDEX < settings.events % settings.members ? 1 : 0) + 1;
}

/** What the history's table measured, as its paragraph says it. @param {HistorySettings} s */
export function historyNote(s) {
  return `${int(s.events)} events over 90 days among ${int(s.members)} members (and each member's member-created), the history of one member (${memberEventCount(s)} events) read ${HISTORY_LENGTH} newest first; the query ${s.repeats} times after the first, in a process of its own; the member's page in the staff console over HTTP at ${s.connections} connections, ${s.duration} s after ${s.warmup} s of warm-up`;
}

export const HISTORY_HEADER = [
  '| store | seeded in | database | query: first / p50 / p99 / slowest ms | page req/s | page p50 / p99 / p99.9 ms | page CPU µs/call | errors | other CPU |',
  '|---|--:|--:|--:|--:|--:|--:|--:|--:|',
];

/** @param {any} r */
export function historyRow(r) {
  return `| ${STORE_LABEL[/** @type {'sqlite' | 'postgresql'} */ (r.store)]} | ${r.seedSeconds} s | ${int(r.databaseBytes / 2 ** 20)} MiB | ${[r.query.firstMs, r.query.p50Ms, r.query.p99Ms, r.query.maxMs].map(ms).join(' / ')} | ${int(r.page.rps)} | ${[r.page.p50, r.page.p99, r.page.p999].map(ms).join(' / ')} | ${r.page.cpuMicrosPerCall ?? '–'} | ${r.page.errors} | ${r.page.otherCpuPercent === null ? '–' : `${r.page.otherCpuPercent.toFixed(0)}%`} |`;
}
