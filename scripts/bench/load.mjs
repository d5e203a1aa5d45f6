// @ts-check
/**
 * One load run against one server: autocannon in this process, or wrk (one thread) when it is installed.
 * Latencies are kept per response at microsecond precision (autocannon's own histogram rounds to whole
 * milliseconds, too coarse for p50 on loopback). Only 2xx responses count towards throughput and latency, and
 * everything else is an error, unless the run says which statuses are answers (the at-scale traffic, whose
 * wrong security passwords are answered 500 as ASMX does). A run may send the same request every time, or a
 * new one each time (`next`, autocannon only).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
/** autocannon ships no types. @type {any} */
const autocannon = require('autocannon');

/**
 * @typedef {object} RunResult
 * @property {number} ok 2xx responses
 * @property {number} seconds how long the run lasted
 * @property {number} rps 2xx responses per second
 * @property {number} p50 ms
 * @property {number} p99 ms
 * @property {number} p999 ms
 * @property {number} non2xx responses that were not answers (with `answers`, those of another status)
 * @property {Record<string, number>} statuses responses by status (autocannon only; {} with wrk)
 * @property {number} errors connection errors and timeouts
 * @property {number} timeouts
 * @property {Float64Array | null} samples the 2xx latencies in ms, sorted (autocannon only)
 */

/**
 * @typedef {object} LoadOptions
 * @property {string} baseUrl
 * @property {import('./cases.mjs').BenchRequest} request the request, or the first one with `next`
 * @property {() => import('./cases.mjs').BenchRequest} [next] a new request for every call
 * @property {(status: number) => boolean} [answers] the statuses that are answers (2xx unless given)
 * @property {(latencyMs: number) => void} [onAnswer] told of every answer as it arrives (autocannon only)
 * @property {number} connections
 * @property {number} duration seconds
 * @property {number} [timeout] seconds before a request counts as timed out
 */

/** @param {Float64Array} sorted @param {number} q between 0 and 1 */
export function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

/** @type {{ name: 'wrk' | 'autocannon', version: string } | undefined} */
let chosen;

/**
 * wrk when `command -v wrk` finds it (unless BENCH_TOOL=autocannon), else autocannon; decided once.
 * @returns {{ name: 'wrk' | 'autocannon', version: string }}
 */
export function loadGenerator() {
  chosen ??= chooseLoadGenerator();
  return chosen;
}

/** @returns {{ name: 'wrk' | 'autocannon', version: string }} */
function chooseLoadGenerator() {
  const forced = process.env.BENCH_TOOL;
  if (forced !== 'autocannon') {
    try {
      const path = execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim();
      if (path) {
        let version = '';
        try {
          version = execFileSync(path, ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        } catch (error) {
          // wrk -v prints its version and exits with status 1
          version = String(/** @type {{ stdout?: string }} */ (error).stdout ?? '');
        }
        return { name: 'wrk', version: version.split('\n')[0]?.trim() ?? '' };
      }
    } catch {
      // not installed
    }
    if (forced === 'wrk') throw new Error('BENCH_TOOL=wrk, but wrk is not installed');
  }
  const { version } = require('autocannon/package.json');
  return { name: 'autocannon', version: `autocannon ${version}` };
}

/** @param {LoadOptions} options @returns {Promise<RunResult>} */
export function runLoad(options) {
  if (loadGenerator().name === 'autocannon') return runAutocannon(options);
  if (options.next || options.answers || options.onAnswer) throw new Error('the at-scale traffic needs autocannon: run with BENCH_TOOL=autocannon');
  return runWrk(options);
}

/** @param {number} status */
const is2xx = (status) => status >= 200 && status <= 299;

/** @param {LoadOptions} options @returns {Promise<RunResult>} */
async function runAutocannon({ baseUrl, request, next, answers = is2xx, onAnswer, connections, duration, timeout = 5 }) {
  let samples = new Float64Array(1 << 16);
  let count = 0;
  let non2xx = 0;
  /** @type {Record<string, number>} */
  const statuses = {};
  const instance = autocannon({
    url: baseUrl + request.path,
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(next ? { requests: [{ setupRequest: (/** @type {object} */ raw) => ({ ...raw, ...next() }) }] } : {}),
    connections,
    duration,
    timeout,
    pipelining: 1,
  });
  instance.on('response', (/** @type {unknown} */ _client, /** @type {number} */ statusCode, /** @type {number} */ _bytes, /** @type {number} */ responseTime) => {
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    if (!answers(statusCode)) {
      non2xx += 1;
      return;
    }
    if (count === samples.length) {
      const bigger = new Float64Array(samples.length * 2);
      bigger.set(samples);
      samples = bigger;
    }
    samples[count++] = responseTime;
    onAnswer?.(responseTime);
  });
  // Bounded: a run that does not end by itself is stopped.
  const guard = setTimeout(() => instance.stop(), (duration + timeout + 30) * 1000);
  /** @type {any} */
  let result;
  try {
    result = await instance;
  } finally {
    clearTimeout(guard);
  }
  const sorted = samples.slice(0, count).sort();
  const seconds = Number(result.duration) || duration;
  return {
    ok: count,
    seconds,
    rps: count / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    p999: percentile(sorted, 0.999),
    non2xx,
    statuses,
    errors: (Number(result.errors) || 0) + (Number(result.resets) || 0),
    timeouts: Number(result.timeouts) || 0,
    samples: sorted,
  };
}

/** @param {string} text @returns {string} a Lua string literal */
function luaString(text) {
  return `"${text.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
}

/**
 * wrk with one thread (the machine's other core serves), the request set in a Lua script whose done() prints
 * the figures as one JSON line. wrk's latencies are in microseconds.
 * @param {LoadOptions} options @returns {Promise<RunResult>}
 */
async function runWrk({ baseUrl, request, connections, duration, timeout = 5 }) {
  const dir = mkdtempSync(join(tmpdir(), 'asmx-bench-wrk-'));
  try {
    const script = join(dir, 'request.lua');
    const headers = Object.entries(request.headers)
      .map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`)
      .join('\n');
    writeFileSync(
      script,
      [
        `wrk.method = "${request.method}"`,
        request.body === undefined ? '' : `wrk.body = ${luaString(request.body)}`,
        headers,
        'done = function(summary, latency, requests)',
        '  local e = summary.errors',
        '  io.write(string.format(\'BENCH_JSON {"requests":%d,"duration_us":%d,"p50":%d,"p99":%d,"p999":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n\',',
        '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency:percentile(99.9),',
        '    e.connect, e.read, e.write, e.status, e.timeout))',
        'end',
        '',
      ].join('\n'),
    );
    const threads = process.env.BENCH_WRK_THREADS ?? '1';
    const args = ['-t', threads, '-c', String(connections), '-d', `${duration}s`, '--timeout', `${timeout}s`, '-s', script, baseUrl + request.path];
    const stdout = await new Promise((resolve, reject) => {
      execFile('wrk', args, { timeout: (duration + timeout + 30) * 1000, maxBuffer: 1 << 20 }, (error, out, err) => {
        if (error) reject(new Error(`wrk failed: ${error.message}\n${err}`));
        else resolve(out);
      });
    });
    const line = String(stdout)
      .split('\n')
      .find((l) => l.startsWith('BENCH_JSON '));
    if (!line) throw new Error(`wrk printed no figures:\n${stdout}`);
    const w = JSON.parse(line.slice('BENCH_JSON '.length));
    const seconds = w.duration_us / 1e6;
    const ok = w.requests - w.status;
    return {
      ok,
      seconds,
      rps: ok / seconds,
      p50: w.p50 / 1000,
      p99: w.p99 / 1000,
      p999: w.p999 / 1000,
      non2xx: w.status,
      statuses: {},
      errors: w.connect + w.read + w.write + w.timeout,
      timeouts: w.timeout,
      samples: null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
