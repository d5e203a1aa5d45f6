import { readdirSync, readFileSync } from 'node:fs';
import { waitUntil } from './wait.js';

/**
 * The CPU time Linux's scheduler counts for a Node process's threads (/proc): the work they did, which the
 * rest of the machine does not add to (it makes them wait, which this leaves out). serviceCpuMs is the CPU
 * time of the process's own work: its main thread (the event loop: all its JavaScript) and libuv's worker pool
 * (password hashes, crypto, files). V8's helper threads (concurrent compiling and garbage collection, whose
 * share varies with what ran before) are left out. Where libuv does not name its threads (before libuv 1.50)
 * they cannot be told apart, and every thread of the process counts.
 */

const POOL_THREAD = 'libuv-worker';

interface Thread {
  tid: string;
  name: string;
  /** R running or ready to, S sleeping, … */
  state: string;
  ranMs: number;
}

/** The milliseconds a thread has run on a CPU (its schedstat's first field, in ns); the main thread's id is the process's. */
export function threadRanMs(pid: number, tid: number | string = pid): number {
  return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

function thread(pid: number, tid: string): Thread {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const nameEnd = stat.lastIndexOf(')');
  return { tid, name: stat.slice(stat.indexOf('(') + 1, nameEnd), state: stat.charAt(nameEnd + 2), ranMs: threadRanMs(pid, tid) };
}

function serviceThreads(pid: number): Thread[] {
  const threads = readdirSync(`/proc/${pid}/task`).map((tid) => thread(pid, tid));
  if (!threads.some((t) => t.name === POOL_THREAD)) return threads;
  return threads.filter((t) => t.tid === String(pid) || t.name === POOL_THREAD);
}

const ranMs = (threads: Thread[]) => threads.reduce((sum, t) => sum + t.ranMs, 0);

/** The milliseconds of CPU the process's own work has taken so far. */
export function serviceCpuMs(pid: number): number {
  return ranMs(serviceThreads(pid));
}

/**
 * serviceCpuMs once the process is idle: its threads asleep (an event loop waits in epoll, the pool for work)
 * and not run since the check before, so that what a request left to do (a log line, closing a socket) counts.
 */
export async function idleServiceCpuMs(pid: number): Promise<number> {
  let last = -1;
  await waitUntil(
    () => {
      const threads = serviceThreads(pid);
      const before = last;
      last = ranMs(threads);
      return last === before && threads.every((t) => t.state === 'S');
    },
    `process ${pid} to fall idle`,
    { timeoutMs: 10_000, intervalMs: 1 },
  );
  return last;
}

/** The milliseconds of CPU time this process (every thread of it) has used: getrusage's, exact to the microsecond. */
function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * The CPU time this process takes for each of `works` (its JavaScript, libuv's pool: a password hash, crypto),
 * the cheapest of `samples` rounds, each round running every work once in turn (`work(round)`), so that what
 * else runs on the machine, which varies from moment to moment, weighs on all of them alike. A run can also pay
 * for a garbage collection or a compilation that an earlier one left, which the cheapest escapes; other work
 * makes a run wait, which CPU time leaves out. (serviceCpuMs reads the scheduler's per-thread counts, which lag
 * by up to a scheduler tick for a thread that is running, as this process's main thread is when it reads them.)
 */
export async function cheapestCpuMs<const W extends ReadonlyArray<(round: number) => Promise<unknown>>>(
  samples: number,
  works: W,
): Promise<{ -readonly [K in keyof W]: number }> {
  const cheapest = works.map(() => Infinity);
  for (let round = 0; round < samples; round++) {
    for (const [index, work] of works.entries()) {
      const start = processCpuMs();
      await work(round);
      cheapest[index] = Math.min(cheapest[index] ?? Infinity, processCpuMs() - start);
    }
  }
  return cheapest as { -readonly [K in keyof W]: number };
}
