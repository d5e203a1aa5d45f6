// @ts-check
/**
 * What both benchmarks (run.mjs, one seeded session; scale.mjs, the at-scale data set) share: their
 * settings, the check that the service answers as the reference does, load runs with the CPU other processes
 * took meanwhile, how runs combine into a row's figures, the machine, number formats, and stopping the
 * servers when the bench is interrupted or fails.
 */
import os from 'node:os';
import { CLOCK_TICK_US, cpuSnapshot, otherCpuShare, processTicks } from './cpu-usage.mjs';
import { percentile, runLoad } from './load.mjs';

/** @param {string} name @param {number} fallback @param {number} min */
export function intSetting(name, fallback, min) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}, not ${JSON.stringify(raw)}`);
  return value;
}

export const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const median = (/** @type {number[]} */ values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
};
export const round = (/** @type {number} */ value, /** @type {number} */ digits) => Number(value.toFixed(digits));

/**
 * One request, and what of its answer the checks compare.
 * @param {string} baseUrl
 * @param {import('./cases.mjs').BenchRequest} request
 */
async function ask(baseUrl, request) {
  const response = await fetch(baseUrl + request.path, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    cacheControl: response.headers.get('cache-control'),
    contentLength: response.headers.get('content-length'),
    body,
  };
}

/**
 * Asks both servers once with the same request and fails loudly unless the service answers as the reference
 * does, apart from the session token (TOKEN="…" in iBridge, pa_token in JSON), which differs when the
 * service issued its own; the reference must give the expected answer (`expect`: its status, and a text the
 * body holds, such as the member id of a signed-in answer).
 * @param {string} name the case, for the message
 * @param {import('./cases.mjs').BenchRequest} request
 * @param {string} serviceUrl
 * @param {string} referenceUrl
 * @param {{ status: number, includes: string }} expect
 */
export async function checkAnswers(name, request, serviceUrl, referenceUrl, expect) {
  const mask = (/** @type {string} */ body) => body.replace(/TOKEN="[^"]*"/g, 'TOKEN="…"').replace(/"pa_token":"[^"]*"/g, '"pa_token":"…"');
  const service = await ask(serviceUrl, request);
  const reference = await ask(referenceUrl, request);
  const problems = [];
  if (reference.status !== expect.status || !reference.body.includes(expect.includes)) {
    problems.push(`the reference did not answer ${expect.status} with "${expect.includes}" (${reference.status}: ${reference.body})`);
  }
  if (service.status !== reference.status) problems.push(`status ${service.status}, the reference ${reference.status}`);
  if (service.contentType !== reference.contentType) problems.push(`Content-Type ${service.contentType}, the reference ${reference.contentType}`);
  if (service.cacheControl !== reference.cacheControl) problems.push(`Cache-Control ${service.cacheControl}, the reference ${reference.cacheControl}`);
  if (mask(service.body) !== mask(reference.body)) problems.push(`body:\n  service:   ${service.body}\n  reference: ${reference.body}`);
  else if (service.contentLength !== reference.contentLength) problems.push(`Content-Length ${service.contentLength}, the reference ${reference.contentLength}`);
  if (problems.length > 0) throw new Error(`${name}: the service's answer is not the reference's:\n${problems.join('\n')}`);
}

/**
 * Asks a server once and fails loudly unless it answers the expected status with the expected text: the floor
 * (node-soap's envelope declares other namespaces than ASMX's, and its answers carry no Cache-Control), or a
 * service with no reference to compare with.
 * @param {string} name the case, for the message
 * @param {import('./cases.mjs').BenchRequest} request
 * @param {string} baseUrl
 * @param {{ status: number, includes: string }} expect
 * @param {string} server which, for the message
 */
export async function checkAnswer(name, request, baseUrl, expect, server) {
  const answer = await ask(baseUrl, request);
  if (answer.status !== expect.status || !answer.body.includes(expect.includes)) {
    throw new Error(`${name}: ${server} did not answer ${expect.status} with "${expect.includes}" (${answer.status}: ${answer.body})`);
  }
}

/** A series' value in the service's /metrics text, 0 when it has none yet. @param {string} text @param {string} series @returns {number} */
export function sample(text, series) {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** The session cache's hits and misses so far, from the service's /metrics. @param {string} baseUrl */
export async function sessionLookups(baseUrl) {
  const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  return { hits: sample(text, 'cache_lookups_total{cache="sessions",result="hit"}'), misses: sample(text, 'cache_lookups_total{cache="sessions",result="miss"}') };
}

/**
 * @typedef {import('./load.mjs').RunResult & { otherCpu: number | null, steal: number | null, cpuMicrosPerCall: number | null }} RunResult
 * @typedef {{ rps: number, p50: number, p99: number, p999: number, ok: number, non2xx: number, errors: number, timeouts: number, otherCpuPercent: number | null, stealPercent: number | null, cpuMicrosPerCall: number | null }} RunFigures
 */

/**
 * One load run, how much of the machine's CPU other processes took meanwhile, and the CPU the server took per
 * response (user and system time: unlike throughput, it hardly moves when other work shares the machine).
 * @param {import('./load.mjs').LoadOptions} options
 * @param {number[]} ours the bench's own processes
 * @param {number} [server] the process of the server the run drives
 * @returns {Promise<RunResult>}
 */
export async function measure(options, ours, server) {
  const before = cpuSnapshot(ours);
  const ticksBefore = server === undefined ? 0 : processTicks(server);
  const run = await runLoad(options);
  const ticks = server === undefined ? 0 : processTicks(server) - ticksBefore;
  const share = otherCpuShare(before, cpuSnapshot(ours));
  const calls = run.ok + run.non2xx;
  const cpuMicrosPerCall = server !== undefined && calls > 0 ? (ticks * CLOCK_TICK_US) / calls : null;
  return { ...run, otherCpu: share?.other ?? null, steal: share?.steal ?? null, cpuMicrosPerCall };
}

const percent = (/** @type {number | null} */ share) => (share === null ? null : round(share * 100, 1));

/** @param {RunResult} run @returns {RunFigures} */
const figuresOf = (run) => ({
  rps: round(run.rps, 1),
  p50: round(run.p50, 3),
  p99: round(run.p99, 3),
  p999: round(run.p999, 3),
  ok: run.ok,
  non2xx: run.non2xx,
  errors: run.errors,
  timeouts: run.timeouts,
  otherCpuPercent: percent(run.otherCpu),
  stealPercent: percent(run.steal),
  cpuMicrosPerCall: run.cpuMicrosPerCall === null ? null : round(run.cpuMicrosPerCall, 0),
});

/**
 * Several runs as one: the median throughput and CPU per call, and latency percentiles over every response of
 * every run (with wrk, which gives no samples, the median of each run's percentiles).
 * @param {RunResult[]} runs
 */
export function combine(runs) {
  const samples = runs.map((r) => r.samples);
  let p50, p99, p999;
  if (samples.every((s) => s !== null)) {
    const all = new Float64Array(samples.reduce((n, s) => n + (s?.length ?? 0), 0));
    let at = 0;
    for (const s of samples) {
      if (!s) continue;
      all.set(s, at);
      at += s.length;
    }
    all.sort();
    [p50, p99, p999] = [percentile(all, 0.5), percentile(all, 0.99), percentile(all, 0.999)];
  } else {
    [p50, p99, p999] = [median(runs.map((r) => r.p50)), median(runs.map((r) => r.p99)), median(runs.map((r) => r.p999))];
  }
  const errors = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
  const others = runs.map((r) => r.otherCpu).filter((share) => share !== null);
  const otherCpuPercent = others.length > 0 ? percent(Math.max(...others)) : null;
  const cpu = runs.map((r) => r.cpuMicrosPerCall).filter((micros) => micros !== null);
  const cpuMicrosPerCall = cpu.length > 0 ? round(median(cpu), 0) : null;
  return { otherCpuPercent, cpuMicrosPerCall, rps: round(median(runs.map((r) => r.rps)), 1), p50: round(p50, 3), p99: round(p99, 3), p999: round(p999, 3), errors, runs: runs.map(figuresOf) };
}

/** One line of progress. @param {string} what @param {RunResult} run */
export function progress(what, run) {
  const bad = run.non2xx + run.errors;
  const other = run.otherCpu !== null && run.otherCpu >= 0.02 ? `  (other processes: ${(run.otherCpu * 100).toFixed(0)}% CPU)` : '';
  const cpu = run.cpuMicrosPerCall === null ? '' : `  CPU ${run.cpuMicrosPerCall.toFixed(0)} µs/call`;
  console.log(`  ${what.padEnd(22)} ${run.rps.toFixed(0).padStart(7)} req/s  p50 ${run.p50.toFixed(2)} ms  p99 ${run.p99.toFixed(2)} ms  p99.9 ${run.p999.toFixed(2)} ms${cpu}${bad ? `  ERRORS ${bad}` : ''}${other}`);
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryGiB: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}

/** @param {number} ms */
export const ms = (ms) => (ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
export const int = (/** @type {number} */ n) => Math.round(n).toLocaleString('en-US');

/** The BENCH_SERVICE_<X> variables (or those of another prefix), as the service's settings <X>. */
export function serviceEnvOf(/** @type {NodeJS.ProcessEnv} */ env, prefix = 'BENCH_SERVICE_') {
  return Object.fromEntries(
    Object.entries(env)
      .filter(([name, value]) => name.startsWith(prefix) && value !== undefined)
      .map(([name, value]) => [name.slice(prefix.length), String(value)]),
  );
}

/** BENCH_BEFORE's own settings (BENCH_BEFORE_SERVICE_<X>) for a report's text: empty when there are none. */
export const beforeEnvNote = (/** @type {Record<string, string>} */ env) =>
  Object.keys(env).length > 0 ? ` with ${Object.entries(env).map(([name, value]) => `${name}=${value}`).join(', ')}` : '';

/** A comma-separated setting as its lower-case words. @param {string | undefined} raw */
export const wordsOf = (raw) =>
  (raw ?? '')
    .split(',')
    .map((word) => word.trim().toLowerCase())
    .filter(Boolean);

/** Whatever is running, stopped in reverse order when the bench is interrupted or fails. */
/** @type {Array<() => Promise<unknown>>} */
export const cleanups = [];
export async function cleanUp() {
  while (cleanups.length > 0) await cleanups.pop()?.().catch((error) => console.error(`bench: cleanup: ${error.message}`));
}
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(signal, () => {
    console.error(`\nbench: ${signal}, stopping the servers`);
    cleanUp().finally(() => process.exit(130));
  });
}

/**
 * @param {import('./service.mjs').RunningServer} server
 * @param {string} label
 */
export function ensureAlive(server, label) {
  if (!server.alive()) throw new Error(`the ${label} exited during the bench:\n${server.stderr()}`);
}
