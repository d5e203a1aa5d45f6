import { performance } from 'node:perf_hooks';
import { setImmediate, setTimeout } from 'node:timers/promises';

/**
 * Waiting on real time. Node's own timers and clock, imported here, are not the globals that jest's fake
 * timers replace: these waits hold under fake timers too (test/helpers/fake-timers.ts).
 */

/** Resolves after `ms` of real time. */
export const sleep = (ms: number): Promise<void> => setTimeout(ms);

/** Resolves at the end of this turn of the event loop, once what it scheduled with setImmediate has run. */
export const nextTurn = (): Promise<void> => setImmediate();

export interface WaitOptions {
  /**
   * How long the condition has to come true (default 10 000 ms): a guard against a wait that never ends, not a
   * measure of how fast anything is, so far past what any wait takes on a loaded machine.
   */
  timeoutMs?: number;
  /** The pause between two checks (default 10 ms). */
  intervalMs?: number;
}

/**
 * Checks `condition` until it holds, pausing between checks. Rejects with "timed out after … waiting for
 * <what>" once timeoutMs have passed, or with what the condition throws.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string | (() => string), options: WaitOptions = {}): Promise<void> {
  const { timeoutMs = 10_000, intervalMs = 10 } = options;
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(intervalMs);
  }
}
