// @ts-check
/**
 * The purge at scale, measured: every session of the at-scale data set but those of its first thousand
 * members is made expired (directly in the database: the bench's own change, with the service stopped), the
 * service is started with the store's purge due 5 s later (src/ops/purge.ts), and calls on the live sessions
 * go on before, during and after the purge. The figures: how long the purge took (its log line), the longest
 * event-loop stall before and during it (nodejs_eventloop_lag_max_seconds, read every 250 ms; prom-client
 * resets it at each read), and the latency of the calls answered while it ran.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CASES } from './cases.mjs';
import { memberAt, trafficOf } from './data-set.mjs';
import { percentile, runLoad } from './load.mjs';
import { cleanups, round } from './runs.mjs';
import { launchService } from './service.mjs';

const LIVE_MEMBERS = 1000;
const POLL_MS = 250;
/** The purge runs this long after the start at most (src/ops/purge.ts: the interval or 5 s). */
const PURGE_DUE_MS = 5_000;
const GIVE_UP_MS = 10 * 60_000;
const CASE = CASES.find((c) => c.binding === 'httpget' && c.operation === 'AuthenticateToken');

/**
 * Marks every session of a member past the first LIVE_MEMBERS expired; returns how many. Member ids have one
 * length, so comparing them as text compares the members' indexes.
 * @param {'sqlite' | 'postgresql'} store @param {Record<string, string>} env
 */
async function expireSessions(store, env) {
  const sql = `UPDATE sessions SET expires_at = 1 WHERE member_id >= '${memberAt(LIVE_MEMBERS).id}'`;
  if (store === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(join(env.DATA_DIR ?? '', 'authentication.sqlite'));
    try {
      return db.prepare(sql).run().changes;
    } finally {
      db.close();
    }
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(sql)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/** @param {string} baseUrl */
async function scrape(baseUrl) {
  const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const value = (/** @type {string} */ series) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.slice(series.length + 1) ?? NaN);
  return { at: Date.now(), maxLagMs: value('nodejs_eventloop_lag_max_seconds') * 1000, purged: value('purged_total{kind="sessions"}') };
}

/**
 * @param {{ store: 'sqlite' | 'postgresql', prepared: { env: Record<string, string> }, dataSet: import('./data-set.mjs').DataSet, passwords: { password: string, wrongPassword: string }, connections: number }} options
 */
export async function measurePurge({ store, prepared, dataSet, passwords, connections }) {
  if (!CASE) throw new Error('no HTTP GET AuthenticateToken case');
  if (dataSet.members <= LIVE_MEMBERS) throw new Error(`the purge measurement needs more than ${LIVE_MEMBERS} members (BENCH_MEMBERS)`);
  const expired = await expireSessions(store, prepared.env);
  if (expired === 0) {
    console.log(`-- purge: left out, every session belongs to one of the first ${LIVE_MEMBERS} members (more BENCH_SESSIONS than that)`);
    return null;
  }
  const logFile = join(prepared.env.DATA_DIR ?? '', 'purge.log');
  const service = await launchService({ ...prepared.env, PURGE_INTERVAL: '3600', LOG_LEVEL: 'info' }, { logFile });
  cleanups.push(service.stop);
  console.log(`-- purge: ${expired.toLocaleString('en-US')} sessions expired; calls on the ${LIVE_MEMBERS} live ones until the purge has ended`);
  const traffic = trafficOf({ ...dataSet, sessions: Math.min(dataSet.sessions, LIVE_MEMBERS) }, { distribution: 'uniform', unknownShare: 0, wrongPasswordShare: 0 }, passwords);
  /** @type {Array<{ at: number, latencyMs: number }>} */
  const answers = [];
  let errors = 0;
  /** @type {Array<Awaited<ReturnType<typeof scrape>>>} */
  const scrapes = [];
  const startedAt = Date.now();
  let done = false;
  const poller = (async () => {
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const reading = await scrape(service.baseUrl);
      scrapes.push(reading);
      if (reading.purged > 0 || Date.now() - startedAt > GIVE_UP_MS) done = true;
    }
  })();
  // Short runs one after another, so that calls go on for as long as the purge takes and end soon after it.
  let afterDone = 0;
  while (afterDone < 2) {
    if (done) afterDone += 1;
    const loadRun = await runLoad({
      baseUrl: service.baseUrl,
      request: CASE.request(traffic()),
      next: () => CASE.request(traffic()),
      onAnswer: (latencyMs) => answers.push({ at: Date.now(), latencyMs }),
      connections,
      duration: 1,
    });
    errors += loadRun.non2xx + loadRun.errors;
  }
  await poller;
  await service.stop();
  cleanups.splice(cleanups.indexOf(service.stop), 1);

  const line = readFileSync(logFile, 'utf8')
    .split('\n')
    .find((l) => l.includes('"message":"purge"'));
  rmSync(logFile, { force: true });
  if (!line) throw new Error(`the service logged no purge within ${GIVE_UP_MS / 60_000} minutes of its start`);
  const logged = JSON.parse(line);
  const endedAt = Date.parse(logged.timestamp);
  const purgeMs = Number(logged.ms);
  const purgeStartedAt = endedAt - purgeMs;
  const during = answers.filter((a) => a.at >= purgeStartedAt && a.at <= endedAt);
  const sorted = Float64Array.from(during.map((a) => a.latencyMs)).sort();
  // A reading covers the POLL_MS before it: those wholly before the purge are the baseline.
  const lagBefore = scrapes.filter((s) => s.at < purgeStartedAt && s.at > startedAt + POLL_MS);
  const lagDuring = scrapes.filter((s) => s.at >= purgeStartedAt && s.at - POLL_MS <= endedAt);
  const max = (/** @type {number[]} */ values) => (values.length ? Math.max(...values) : NaN);
  const result = {
    store,
    deleted: Number(logged.sessions),
    expired,
    purgeMs,
    purgeDueMs: PURGE_DUE_MS,
    baselineMaxLagMs: round(max(lagBefore.map((s) => s.maxLagMs)), 1),
    duringMaxLagMs: round(max(lagDuring.map((s) => s.maxLagMs)), 1),
    calls: during.length,
    rps: round(during.length / Math.max(purgeMs / 1000, 0.001), 0),
    p99: round(percentile(sorted, 0.99), 2),
    p999: round(percentile(sorted, 0.999), 2),
    maxMs: round(sorted[sorted.length - 1] ?? NaN, 2),
    errors,
  };
  console.log(`   purged ${result.deleted.toLocaleString('en-US')} in ${(purgeMs / 1000).toFixed(1)} s; longest stall ${result.baselineMaxLagMs} ms before, ${result.duringMaxLagMs} ms during; ${result.calls} calls during it, slowest ${result.maxMs} ms`);
  return result;
}
