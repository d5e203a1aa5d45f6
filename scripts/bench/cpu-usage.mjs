// @ts-check
/**
 * How much of the machine's CPU went to processes other than the bench's own (the load generator, the service
 * and the reference server) during a run, from /proc (Linux only; elsewhere nothing is measured). On a shared
 * machine this tells a clean run from one that competed with other work: with two cores, a test suite running
 * beside the bench can halve a server's throughput.
 */
import { readFileSync } from 'node:fs';

/** One clock tick of /proc's CPU times (USER_HZ, 100 on Linux), in microseconds. */
export const CLOCK_TICK_US = 10_000;

/**
 * @typedef {object} CpuSnapshot
 * @property {number} total every tick of every CPU
 * @property {number} busy ticks spent running processes (user and system)
 * @property {number} steal ticks the hypervisor gave to other machines
 * @property {number} ours ticks of the listed processes (all their threads)
 */

/**
 * User and system ticks of a process, with those of its children that have ended (a wrk run, for the bench
 * process); 0 when the process is gone.
 * @param {number} pid
 */
export function processTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces; the fields after it start with the state (field 3).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14 to 17
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  } catch {
    return 0;
  }
}

/** @param {number[]} pids @returns {CpuSnapshot | null} */
export function cpuSnapshot(pids) {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [, ...values] = line.trim().split(/\s+/);
    // user nice system idle iowait irq softirq steal (guest time is already counted in user). Interrupt time
    // is left out of busy: it is charged to no process (loopback networking is mostly softirq), so it would
    // look like someone else's work.
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = values.map(Number);
    return {
      total: user + nice + system + idle + iowait + irq + softirq + steal,
      busy: user + nice + system,
      steal,
      ours: pids.reduce((sum, pid) => sum + processTicks(pid), 0),
    };
  } catch {
    return null;
  }
}

/**
 * The share of the machine's CPU capacity that other processes used between two snapshots, and the share
 * the hypervisor stole; null where /proc is not there.
 * @param {CpuSnapshot | null} before
 * @param {CpuSnapshot | null} after
 * @returns {{ other: number, steal: number } | null}
 */
export function otherCpuShare(before, after) {
  if (!before || !after || after.total <= before.total) return null;
  const total = after.total - before.total;
  const other = after.busy - before.busy - (after.ours - before.ours);
  return { other: Math.max(0, other) / total, steal: (after.steal - before.steal) / total };
}
