import { jest } from '@jest/globals';

/**
 * Jest's modern fake timers for what the code under test schedules and reads: setTimeout, setInterval, Date
 * and performance. process.nextTick, setImmediate and queueMicrotask stay real: streams, sockets and the logger
 * run on them. Move the clock with jest.advanceTimersByTimeAsync, which lets promises settle after each timer it
 * fires; jest.useRealTimers() ends it. Real waits (test/helpers/wait.ts) still pass real time meanwhile.
 */
export function useFakeTimers(): void {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask'] });
}
