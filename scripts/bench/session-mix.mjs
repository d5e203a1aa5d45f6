// @ts-check
/**
 * The many-session mix of `npm run bench`: what a partner site's traffic looks like with the cache at its default.
 * A store with BENCH_MIX_SESSIONS sessions of BENCH_MIX_MEMBERS members, seeded through the services' bulk paths
 * (scripts/bench/seed-data-set.mjs, a transaction per 1,000 rows); each call asks about a session picked by a
 * Zipf law (exponent 1, data-set.mjs), uniformly, or among the first HOT_SESSIONS only (every lookup of a live
 * session a hit), with 5% of calls carrying a token or cookie nobody holds; each binding family in rows of its own,
 * its calls going round its cases (SOAP: 1.1 and 1.2, HTTP: GET and POST, each AuthenticateToken and
 * AuthenticateCookie). The three distributions take turns, BENCH_PAIRS rounds of each, so that what else the machine
 * does weighs on each alike. Beside each row, the share of session lookups the cache answered (cache_lookups_total);
 * from the hot and uniform rows' CPU per call and hit rates, what a hit and a miss each cost (a call's CPU taken as
 * a hit's or a miss's, linearly in the hit rate); the Zipf row is what users live with.
 *
 * With BENCH_BEFORE, the earlier checkout's service (or this one with BENCH_BEFORE_SERVICE_<X>) runs on a store of
 * its own seeded through its own services, and is measured right after this one's in every round.
 */
import { randomBytes } from 'node:crypto';
import { CASES } from './cases.mjs';
import { cookieAt, createDataSet, HOT_SESSIONS, memberAt, memberIndexOf, tokenAt, trafficOf } from './data-set.mjs';
import { checkAnswer, cleanups, combine, ensureAlive, int, intSetting, measure, ms, progress, round, sessionLookups, sleep } from './runs.mjs';
import { beforeOptions, launchService, prepareStore, ROOT, seedDataSet } from './service.mjs';

const FAMILIES = /** @type {const} */ ([
  { name: 'SOAP', bindings: ['soap11', 'soap12'] },
  { name: 'HTTP', bindings: ['httpget', 'httppost'] },
]);
const DISTRIBUTIONS = /** @type {const} */ (['zipf', 'uniform', 'hot']);
const UNKNOWN_SHARE = 0.05;
export const SESSION_MIX_NAME = 'many sessions';

export const mixSettings = {
  members: intSetting('BENCH_MIX_MEMBERS', 10_000, 1),
  sessions: intSetting('BENCH_MIX_SESSIONS', 100_000, 1),
};

/**
 * One service of the mix on its own store, seeded with the data set through a checkout's services.
 * @param {import('./service.mjs').ServiceOptions} options
 * @param {import('./data-set.mjs').DataSet} dataSet
 * @param {string} password
 */
async function startMixService(options, dataSet, password) {
  const root = options.root ?? ROOT;
  const prepared = await prepareStore(options);
  cleanups.push(prepared.cleanup);
  const seeding = await seedDataSet(prepared.env, { dataSet, members: [0, dataSet.members], sessions: [0, dataSet.sessions], caller: { name: 'bench', password } }, root);
  const service = await launchService(prepared.env, options);
  cleanups.push(service.stop);
  return { ...service, seedSeconds: seeding.seconds, cleanup: prepared.cleanup };
}

/**
 * The mix on one store: this checkout's service and, with `before`, the earlier checkout's.
 * @param {import('./service.mjs').ServiceOptions} serviceOptions
 * @param {{ duration: number, warmup: number, connections: number, pairs: number, before?: string | undefined, beforeEnv?: Record<string, string> }} settings
 */
export async function measureSessionMix(serviceOptions, settings) {
  const dataSet = createDataSet(mixSettings.members, mixSettings.sessions);
  const password = randomBytes(24).toString('base64url');
  console.log(`-- ${SESSION_MIX_NAME}: seeding ${int(dataSet.members)} members and ${int(dataSet.sessions)} sessions`);
  const service = await startMixService(serviceOptions, dataSet, password);
  const before = settings.before ? await startMixService(beforeOptions(serviceOptions, settings), dataSet, password) : undefined;
  console.log(`   seeded in ${service.seedSeconds.toFixed(1)} s${before ? ` (the earlier checkout's in ${before.seedSeconds.toFixed(1)} s)` : ''}`);
  /** @type {Array<['service' | 'before', typeof service]>} */
  const servers = [['service', service], ...(before ? [/** @type {['before', typeof service]} */ (['before', before])] : [])];
  const ours = [process.pid, ...servers.map(([, server]) => server.pid)];
  const last = dataSet.sessions - 1;
  const memberId = memberAt(memberIndexOf(dataSet, last)).id;
  const rows = [];
  for (const family of FAMILIES) {
    const cases = CASES.filter((c) => /** @type {readonly string[]} */ (family.bindings).includes(c.binding));
    for (const [label, server] of servers) {
      for (const benchCase of cases) {
        const values = { password, token: tokenAt(dataSet, last), cookie: cookieAt(dataSet, last), domain: dataSet.domain };
        await checkAnswer(`${benchCase.name}, ${SESSION_MIX_NAME}`, benchCase.request(values), server.baseUrl, { status: 200, includes: memberId }, label === 'service' ? 'the service' : "the earlier checkout's service");
      }
    }
    /** @type {Map<string, { runs: import('./runs.mjs').RunResult[], hits: number, lookups: number }>} */
    const measured = new Map();
    for (let round = 0; round < settings.pairs; round++) {
      for (const distribution of DISTRIBUTIONS) {
        const traffic = trafficOf(dataSet, { distribution, unknownShare: UNKNOWN_SHARE, wrongPasswordShare: 0 }, { password, wrongPassword: password });
        let turn = 0;
        const next = () => /** @type {import('./cases.mjs').BenchCase} */ (cases[turn++ % cases.length]).request(traffic());
        for (const [label, server] of servers) {
          const load = (/** @type {number} */ duration) => measure({ baseUrl: server.baseUrl, request: next(), next, connections: settings.connections, duration }, ours, server.pid);
          if (settings.warmup > 0) await load(settings.warmup);
          await sleep(250);
          const lookupsBefore = await sessionLookups(server.baseUrl);
          const run = await load(settings.duration);
          const lookupsAfter = await sessionLookups(server.baseUrl);
          ensureAlive(server, label);
          const key = `${label} ${distribution}`;
          const entry = measured.get(key) ?? { runs: [], hits: 0, lookups: 0 };
          const hits = lookupsAfter.hits - lookupsBefore.hits;
          entry.runs.push(run);
          entry.hits += hits;
          entry.lookups += hits + lookupsAfter.misses - lookupsBefore.misses;
          measured.set(key, entry);
          progress(`${label} ${family.name} ${distribution}`, run);
        }
      }
    }
    for (const distribution of DISTRIBUTIONS) {
      const figures = (/** @type {string} */ label) => {
        const entry = measured.get(`${label} ${distribution}`);
        return entry && { ...combine(entry.runs), hitRate: entry.lookups > 0 ? round(entry.hits / entry.lookups, 3) : null };
      };
      rows.push({ store: serviceOptions.store, family: family.name, cases: cases.map((c) => c.name), distribution, service: figures('service'), ...(before ? { before: figures('before') } : {}) });
    }
  }
  for (const [, server] of servers.reverse()) {
    await server.stop();
    await server.cleanup();
  }
  cleanups.length = 0;
  return { rows, seedSeconds: round(service.seedSeconds, 1) };
}

/**
 * What a hit and a miss each cost, from two runs at different hit rates: a call's CPU taken as
 * hit + (1 − hit rate) × (miss − hit). Null when the hit rates are too close to tell them apart.
 * @param {{ cpuMicrosPerCall: number | null, hitRate: number | null } | undefined} a
 * @param {{ cpuMicrosPerCall: number | null, hitRate: number | null } | undefined} b
 */
export function hitAndMissCost(a, b) {
  if (!a || !b || a.cpuMicrosPerCall === null || b.cpuMicrosPerCall === null || a.hitRate === null || b.hitRate === null) return null;
  if (Math.abs(a.hitRate - b.hitRate) < 0.2) return null;
  const extra = (a.cpuMicrosPerCall - b.cpuMicrosPerCall) / (b.hitRate - a.hitRate);
  const hit = a.cpuMicrosPerCall - (1 - a.hitRate) * extra;
  return { hit: round(hit, 0), miss: round(hit + extra, 0), ratio: round((hit + extra) / hit, 2) };
}

/** The target: a miss costs at most this many times a hit. */
export const TARGET_MISS_OF_HIT = 1.5;

const percent = (/** @type {number | null | undefined} */ share) => (share === null || share === undefined ? '–' : `${(share * 100).toFixed(0)}%`);

/**
 * The mix's table of one store.
 * @param {any[]} rows
 * @param {string} storeLabel
 * @param {number} seedSeconds
 * @returns {string[]}
 */
export function sessionMixLines(rows, storeLabel, seedSeconds) {
  const withBefore = rows.some((r) => r.before);
  const cell = (/** @type {any} */ f) => (f ? `${int(f.rps)} req/s, ${f.cpuMicrosPerCall ?? '–'} µs, hits ${percent(f.hitRate)}, p99 ${ms(f.p99)} ms` : '–');
  const lines = [
    '',
    `**${storeLabel}, ${SESSION_MIX_NAME}** (${int(mixSettings.sessions)} sessions of ${int(mixSettings.members)} members, seeded in ${seedSeconds} s; the cache at its default; sessions picked by a Zipf law, uniformly, or among the first ${HOT_SESSIONS} (hot), the three in turn; ${UNKNOWN_SHARE * 100}% of calls with a token or cookie nobody holds; each cell: req/s, the service's CPU per call, the share of session lookups the cache answered, p99):`,
    '',
    `| binding family | picked | service | ${withBefore ? 'before | ' : ''}errors |`,
    `|---|---|---|${withBefore ? '---|' : ''}--:|`,
    ...rows.map((r) => `| ${r.family} (${r.cases.map((/** @type {string} */ name) => name.replace(/ Authenticate(Token|Cookie)$/, '')).filter((/** @type {string} */ v, /** @type {number} */ i, /** @type {string[]} */ a) => a.indexOf(v) === i).join(', ')}) | ${r.distribution} | ${cell(r.service)} | ${withBefore ? `${cell(r.before)} | ` : ''}${r.service.errors} |`),
    '',
    `What a hit and a miss cost (from the hot and uniform rows; target: a miss at most ${TARGET_MISS_OF_HIT}× a hit):`,
    '',
    '| binding family | hit µs | miss µs | miss / hit |',
    '|---|--:|--:|--:|',
  ];
  for (const family of FAMILIES) {
    const of = (/** @type {string} */ distribution) => rows.find((r) => r.family === family.name && r.distribution === distribution)?.service;
    const cost = hitAndMissCost(of('hot'), of('uniform'));
    lines.push(`| ${family.name} | ${cost?.hit ?? '–'} | ${cost?.miss ?? '–'} | ${cost ? `${cost.ratio.toFixed(2)}${cost.ratio <= TARGET_MISS_OF_HIT ? '' : ' (above the target)'}` : 'hit rates too close to tell'} |`);
  }
  return lines;
}
