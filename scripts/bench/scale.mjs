#!/usr/bin/env node
// @ts-check
/**
 * `npm run bench:scale`: figures, not a test. The service at the size of a large association: BENCH_MEMBERS
 * members and, in turn, each of the BENCH_SESSIONS session counts, seeded through the services' bulk paths
 * (scripts/bench/seed-data-set.mjs), on the embedded store and, when DATABASE_URL is set, on PostgreSQL. Every
 * call asks about a session picked at random (uniform, and Zipf), with a share of tokens nobody holds and of
 * wrong security passwords, over each case of scripts/bench/cases.mjs; the reference server answers the same
 * traffic in the same run. Then, with every session but the first thousand expired, it measures the purge
 * while calls go on. Writes bench/results/scale.md and scale.json; exits 0 whatever the figures.
 *
 * Settings (environment; the rest as for `npm run bench`: BENCH_CONNECTIONS, BENCH_LOG_LEVEL, BENCH_CASES,
 * BENCH_SERVICE_<X>, DATABASE_URL):
 *   BENCH_MEMBERS               members (100000)
 *   BENCH_SESSIONS              session counts, comma-separated, each run in turn on one growing store (1000,100000)
 *   BENCH_DISTRIBUTION          uniform, zipf or both, comma-separated (uniform,zipf)
 *   BENCH_UNKNOWN_PERMILLE      calls per thousand with a token or cookie nobody holds (50)
 *   BENCH_WRONG_PASSWORD_PERMILLE  calls per thousand with a wrong security password (10)
 *   BENCH_DURATION              seconds per measured run (10)
 *   BENCH_WARMUP                seconds of warm-up per server and case (2)
 *   BENCH_PURGE                 0 to leave out the purge measurement (1)
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { CASES } from './cases.mjs';
import { CLOCK_TICK_US, processTicks } from './cpu-usage.mjs';
import { cookieAt, createDataSet, memberAt, memberIndexOf, tokenAt, trafficOf } from './data-set.mjs';
import { loadGenerator } from './load.mjs';
import { measurePurge } from './purge-under-load.mjs';
import { checkAnswers, cleanUp, cleanups, combine, ensureAlive, int, intSetting, machine, measure, ms, progress, round, serviceEnvOf, sessionLookups, wordsOf } from './runs.mjs';
import { launchService, prepareStore, ROOT, seedDataSet, startReference } from './service.mjs';

const RESULTS_DIR = join(ROOT, 'bench', 'results');
const STORE_LABEL = { sqlite: 'embedded store (SQLite)', postgresql: 'PostgreSQL' };

const settings = {
  members: intSetting('BENCH_MEMBERS', 100_000, 1),
  sessions: (wordsOf(process.env.BENCH_SESSIONS).length ? wordsOf(process.env.BENCH_SESSIONS) : ['1000', '100000']).map((word) => {
    const count = Number(word);
    if (!Number.isInteger(count) || count < 1) throw new Error(`BENCH_SESSIONS must list whole numbers of at least 1, not ${JSON.stringify(word)}`);
    return count;
  }),
  distributions: /** @type {Array<'uniform' | 'zipf'>} */ (wordsOf(process.env.BENCH_DISTRIBUTION).length ? wordsOf(process.env.BENCH_DISTRIBUTION) : ['uniform', 'zipf']),
  unknownShare: intSetting('BENCH_UNKNOWN_PERMILLE', 50, 0) / 1000,
  wrongPasswordShare: intSetting('BENCH_WRONG_PASSWORD_PERMILLE', 10, 0) / 1000,
  duration: intSetting('BENCH_DURATION', 10, 1),
  warmup: intSetting('BENCH_WARMUP', 2, 0),
  connections: intSetting('BENCH_CONNECTIONS', 32, 1),
  purge: process.env.BENCH_PURGE !== '0',
  logLevel: process.env.BENCH_LOG_LEVEL || 'info',
  cases: wordsOf(process.env.BENCH_CASES),
  serviceEnv: {
    // Every wrong password of the traffic comes from 127.0.0.1: the caller throttle must count them (each
    // costs its write) without ever locking the bench out.
    CALLER_MAX_FAILURES_PER_ADDRESS: '100000',
    CALLER_FAILURE_WINDOW: '60',
    ...serviceEnvOf(process.env),
  },
};
settings.sessions.sort((a, b) => a - b);
for (const distribution of settings.distributions) {
  if (distribution !== 'uniform' && distribution !== 'zipf') throw new Error(`BENCH_DISTRIBUTION must list uniform or zipf, not ${distribution}`);
}
if (settings.unknownShare + settings.wrongPasswordShare >= 1) throw new Error('BENCH_UNKNOWN_PERMILLE and BENCH_WRONG_PASSWORD_PERMILLE must leave room for known sessions');
const databaseUrl = process.env.DATABASE_URL || undefined;
/** @type {Array<'sqlite' | 'postgresql'>} */
const stores = databaseUrl ? ['sqlite', 'postgresql'] : ['sqlite'];
const selectedCases = CASES.filter((c) => settings.cases.length === 0 || settings.cases.some((word) => c.name.toLowerCase().includes(word)));
if (selectedCases.length === 0) throw new Error(`BENCH_CASES selects no case: ${settings.cases.join(', ')}`);

/** @param {number} pid @returns {number} resident set size in bytes, 0 when the process is gone */
function rssOf(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
    return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * The service's answers are checked against the reference's once per case: for a live session, a token or
 * cookie nobody holds, and a wrong security password.
 * @param {import('./cases.mjs').BenchCase} benchCase
 * @param {import('./data-set.mjs').DataSet} dataSet
 * @param {{ password: string, wrongPassword: string }} passwords
 * @param {string} serviceUrl @param {string} referenceUrl
 */
async function checkCase(benchCase, dataSet, passwords, serviceUrl, referenceUrl) {
  const last = dataSet.sessions - 1;
  const values = (/** @type {number} */ index, /** @type {string} */ password) => ({ password, token: tokenAt(dataSet, index), cookie: cookieAt(dataSet, index), domain: dataSet.domain });
  const memberId = memberAt(memberIndexOf(dataSet, last)).id;
  await checkAnswers(`${benchCase.name} (live session)`, benchCase.request(values(last, passwords.password)), serviceUrl, referenceUrl, { status: 200, includes: memberId });
  await checkAnswers(`${benchCase.name} (unknown)`, benchCase.request(values(last + 1, passwords.password)), serviceUrl, referenceUrl, { status: 200, includes: 'Invalid' });
  await checkAnswers(`${benchCase.name} (wrong password)`, benchCase.request(values(0, passwords.wrongPassword)), serviceUrl, referenceUrl, { status: 500, includes: 'Invalid security password' });
}

/** ASMX answers a wrong security password with status 500: an answer here, not an error. */
const answers = (/** @type {number} */ status) => status === 200 || status === 500;

/**
 * One size: the service started on the store as seeded, the reference on the same data set, every case and
 * distribution measured.
 * @param {'sqlite' | 'postgresql'} store
 * @param {Awaited<ReturnType<typeof prepareStore>>} prepared
 * @param {import('./data-set.mjs').DataSet} dataSet
 * @param {{ password: string, wrongPassword: string }} passwords
 */
async function benchSize(store, prepared, dataSet, passwords) {
  const service = await launchService(prepared.env);
  cleanups.push(service.stop);
  const readyRss = rssOf(service.pid);
  const reference = await startReference({ resultFormat: 'ibridge', password: passwords.password, sessions: { dataSet } });
  cleanups.push(reference.stop);
  const size = { store, sessions: dataSet.sessions, members: dataSet.members, readyMs: round(service.readyMs, 0), readyRssBytes: readyRss, databaseBytes: await prepared.bytes() };
  console.log(`-- ${int(dataSet.sessions)} sessions: ready in ${int(size.readyMs)} ms, RSS ${int(readyRss / 2 ** 20)} MiB, database ${int(size.databaseBytes / 2 ** 20)} MiB`);
  const rows = [];
  for (const benchCase of selectedCases) {
    await checkCase(benchCase, dataSet, passwords, service.baseUrl, reference.baseUrl);
    console.log(`   ${benchCase.name} (answers checked)`);
    /** @type {number | undefined} */
    let referenceRps;
    for (const distribution of settings.distributions) {
      const traffic = trafficOf(dataSet, { distribution, unknownShare: settings.unknownShare, wrongPasswordShare: settings.wrongPasswordShare }, passwords);
      const load = (/** @type {string} */ baseUrl, /** @type {number} */ duration) =>
        measure({ baseUrl, request: benchCase.request(traffic()), next: () => benchCase.request(traffic()), answers, connections: settings.connections, duration }, [process.pid, service.pid, reference.pid]);
      if (settings.warmup > 0) await load(service.baseUrl, settings.warmup);
      const lookupsBefore = await sessionLookups(service.baseUrl);
      const ticksBefore = processTicks(service.pid);
      const serviceRun = await load(service.baseUrl, settings.duration);
      const ticks = processTicks(service.pid) - ticksBefore;
      const lookupsAfter = await sessionLookups(service.baseUrl);
      ensureAlive(service, 'service');
      progress(`service ${distribution}`, serviceRun);
      // The reference's cost does not depend on how sessions are picked: one run per case and size.
      if (referenceRps === undefined) {
        if (settings.warmup > 0) await load(reference.baseUrl, settings.warmup);
        const referenceRun = await load(reference.baseUrl, settings.duration);
        ensureAlive(reference, 'reference');
        progress('reference', referenceRun);
        referenceRps = referenceRun.rps;
      }
      const calls = serviceRun.ok + serviceRun.non2xx;
      const hits = lookupsAfter.hits - lookupsBefore.hits;
      const lookups = hits + lookupsAfter.misses - lookupsBefore.misses;
      rows.push({
        store,
        sessions: dataSet.sessions,
        case: benchCase.name,
        binding: benchCase.binding,
        distribution,
        service: combine([serviceRun]),
        statuses: serviceRun.statuses,
        referenceRps: round(referenceRps, 1),
        ratio: round(serviceRun.rps / referenceRps, 3),
        cpuMicrosPerCall: calls > 0 ? round((ticks * CLOCK_TICK_US) / calls, 0) : null,
        sessionCacheHitRate: lookups > 0 ? round(hits / lookups, 3) : null,
        rssBytes: rssOf(service.pid),
      });
    }
  }
  await reference.stop();
  const exit = await service.stop();
  if (exit.code !== 0) console.warn(`bench: the service exited with ${exit.code ?? exit.signal}:\n${service.stderr()}`);
  cleanups.splice(cleanups.indexOf(service.stop), 1);
  cleanups.splice(cleanups.indexOf(reference.stop), 1);
  return { size, rows };
}

/** @param {'sqlite' | 'postgresql'} store */
async function benchStore(store) {
  console.log(`\n== ${STORE_LABEL[store]}: ${int(settings.members)} members, sessions ${settings.sessions.map(int).join(' then ')}`);
  const prepared = await prepareStore({ store, databaseUrl, logLevel: settings.logLevel, resultFormat: 'ibridge', extraEnv: settings.serviceEnv });
  cleanups.push(prepared.cleanup);
  const largest = settings.sessions[settings.sessions.length - 1] ?? 0;
  const dataSet = createDataSet(settings.members, largest);
  const passwords = { password: randomBytes(24).toString('base64url'), wrongPassword: randomBytes(24).toString('base64url') };
  const sizes = [];
  const rows = [];
  let seeded = 0;
  for (const count of settings.sessions) {
    const seeding = await seedDataSet(prepared.env, {
      dataSet,
      members: seeded === 0 ? [0, settings.members] : [0, 0],
      sessions: [seeded, count],
      caller: seeded === 0 ? { name: 'bench', password: passwords.password } : null,
    });
    console.log(`   seeded ${int(seeding.members)} members and ${int(seeding.sessions)} sessions in ${seeding.seconds.toFixed(1)} s`);
    seeded = count;
    const result = await benchSize(store, prepared, { ...dataSet, sessions: count }, passwords);
    sizes.push({ ...result.size, seedSeconds: round(seeding.seconds, 1), seeded: { members: seeding.members, sessions: seeding.sessions } });
    rows.push(...result.rows);
  }
  const purge = settings.purge ? await measurePurge({ store, prepared, dataSet: { ...dataSet, sessions: largest }, passwords, connections: settings.connections }) : null;
  await prepared.cleanup();
  cleanups.length = 0;
  return { sizes, rows, purge };
}

/** @param {number} bytes */
const mib = (bytes) => int(bytes / 2 ** 20);
const percentOf = (/** @type {number | null} */ share) => (share === null ? '–' : `${(share * 100).toFixed(0)}%`);

/** @param {any} report @returns {string} */
function markdown(report) {
  const m = report.machine;
  const s = report.settings;
  const lines = [
    `Machine: ${m.cpuModel}, ${m.cpuCount} CPUs, ${m.totalMemoryGiB} GiB, ${m.os}, Node ${m.node}; ${s.loadGenerator} in the bench's own process on the same machine.`,
    `Run ${report.date}: ${int(s.members)} members; ${s.connections} connections; one ${s.duration} s run per case, size and distribution after ${s.warmup} s of warm-up; ${s.unknownPermille}‰ of calls with a token or cookie nobody holds and ${s.wrongPasswordPermille}‰ with a wrong security password; service with RESULT_FORMAT=ibridge, LOG_LEVEL=${s.logLevel}, ${Object.entries(s.serviceEnv).map(([k, v]) => `${k}=${v}`).join(', ')}.`,
    'req/s counts every answer (a wrong password is answered with status 500, as ASMX does). CPU is the service process\'s, per call; "cache hits" is the share of session lookups answered from the in-process cache (CACHE_TTL_MS); RSS is the service\'s after the run.',
    '',
    '| store | sessions | seeded in | ready in | RSS at ready | database |',
    '|---|--:|--:|--:|--:|--:|',
    ...report.sizes.map(
      (/** @type {any} */ z) =>
        `| ${z.store} | ${int(z.sessions)} | ${z.seedSeconds} s (${int(z.seeded.members)} members, ${int(z.seeded.sessions)} sessions) | ${int(z.readyMs)} ms | ${mib(z.readyRssBytes)} MiB | ${mib(z.databaseBytes)} MiB |`,
    ),
  ];
  for (const store of report.stores) {
    lines.push(
      '',
      `**${STORE_LABEL[/** @type {'sqlite' | 'postgresql'} */ (store)]}**`,
      '',
      '| case | picked | sessions | req/s | reference req/s | ratio | p50 ms | p99 ms | p99.9 ms | CPU µs/call | cache hits | RSS MiB | errors |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
      ...report.rows
        .filter((/** @type {any} */ r) => r.store === store)
        .map(
          (/** @type {any} */ r) =>
            `| ${r.case} | ${r.distribution} | ${int(r.sessions)} | ${int(r.service.rps)} | ${int(r.referenceRps)} | ${(r.ratio * 100).toFixed(0)}% | ${ms(r.service.p50)} | ${ms(r.service.p99)} | ${ms(r.service.p999)} | ${r.cpuMicrosPerCall ?? '–'} | ${percentOf(r.sessionCacheHitRate)} | ${mib(r.rssBytes)} | ${r.service.errors} |`,
        ),
    );
  }
  const smallest = report.settings.sessions[0];
  const largest = report.settings.sessions[report.settings.sessions.length - 1];
  if (smallest !== largest) {
    lines.push('', `**Cost as the store grows**: CPU per call and throughput at ${int(largest)} sessions against ${int(smallest)}, and PostgreSQL's throughput against SQLite's at ${int(largest)}.`, '');
    lines.push('| case | picked | store | CPU µs/call | change | req/s | change | PostgreSQL/SQLite req/s |', '|---|---|---|--:|--:|--:|--:|--:|');
    const find = (/** @type {any} */ r, /** @type {string} */ store, /** @type {number} */ sessions) =>
      report.rows.find((/** @type {any} */ x) => x.store === store && x.sessions === sessions && x.case === r.case && x.distribution === r.distribution);
    for (const r of report.rows.filter((/** @type {any} */ x) => x.sessions === largest)) {
      const small = find(r, r.store, smallest);
      if (!small) continue;
      const sqlite = find(r, 'sqlite', largest);
      const change = (/** @type {number} */ a, /** @type {number} */ b) => `${a >= b ? '+' : '−'}${Math.abs((a / b - 1) * 100).toFixed(0)}%`;
      lines.push(
        `| ${r.case} | ${r.distribution} | ${r.store} | ${small.cpuMicrosPerCall} → ${r.cpuMicrosPerCall} | ${change(r.cpuMicrosPerCall, small.cpuMicrosPerCall)} | ${int(small.service.rps)} → ${int(r.service.rps)} | ${change(r.service.rps, small.service.rps)} | ${r.store === 'postgresql' && sqlite ? `${((r.service.rps / sqlite.service.rps) * 100).toFixed(0)}%` : ''} |`,
      );
    }
  }
  const purges = report.purges.filter((/** @type {any} */ p) => p !== null);
  if (purges.length > 0) {
    lines.push(
      '',
      '**Purge at scale**: every session but the first thousand expired, the service started with a purge due 5 s later, and calls on the live sessions (HTTP GET AuthenticateToken, uniform) going on before, during and after it.',
      '',
      '| store | sessions deleted | purge took | longest event-loop stall: before / during | calls during the purge | their p99 / p99.9 / slowest ms | errors |',
      '|---|--:|--:|--:|--:|--:|--:|',
      ...purges.map(
        (/** @type {any} */ p) =>
          `| ${p.store} | ${int(p.deleted)} | ${(p.purgeMs / 1000).toFixed(1)} s | ${ms(p.baselineMaxLagMs)} / ${ms(p.duringMaxLagMs)} ms | ${int(p.calls)} (${int(p.rps)}/s) | ${ms(p.p99)} / ${ms(p.p999)} / ${ms(p.maxMs)} | ${p.errors} |`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}

async function benchmark() {
  const tool = loadGenerator();
  if (tool.name !== 'autocannon') throw new Error('the at-scale traffic needs autocannon: run with BENCH_TOOL=autocannon');
  console.log(`bench:scale: ${int(settings.members)} members, sessions ${settings.sessions.map(int).join(', ')}, ${settings.distributions.join(' and ')}; stores: ${stores.join(', ')}`);
  const date = new Date().toISOString();
  const sizes = [];
  const rows = [];
  const purges = [];
  for (const store of stores) {
    const result = await benchStore(store);
    sizes.push(...result.sizes);
    rows.push(...result.rows);
    purges.push(result.purge);
  }
  const report = {
    date,
    machine: machine(),
    loadAverage: os.loadavg().map((n) => round(n, 2)),
    settings: {
      loadGenerator: tool.version,
      members: settings.members,
      sessions: settings.sessions,
      distributions: settings.distributions,
      unknownPermille: settings.unknownShare * 1000,
      wrongPasswordPermille: settings.wrongPasswordShare * 1000,
      connections: settings.connections,
      duration: settings.duration,
      warmup: settings.warmup,
      logLevel: settings.logLevel,
      serviceEnv: settings.serviceEnv,
    },
    stores,
    sizes,
    rows,
    purges,
  };
  const table = markdown(report);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'scale.md'), `# Benchmark at scale: latest run\n\nWritten by \`npm run bench:scale\` (scripts/bench/scale.mjs); figures, not a test.\n\n${table}`);
  writeFileSync(join(RESULTS_DIR, 'scale.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${table}`);
  console.log('written: bench/results/scale.md, bench/results/scale.json');
}

try {
  await benchmark();
} catch (error) {
  console.error(`\nbench:scale failed: ${error instanceof Error ? error.message : String(error)}`);
  await cleanUp();
  process.exitCode = 1;
}
