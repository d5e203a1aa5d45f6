import type { MailTimers } from '../../src/mail/queue.js';

/**
 * The mail queue's timers on a clock that moves only when the test moves it. Only the queue's: the SMTP
 * client and server keep real time (jest's fake timers would stall smtp-server's greeting, which waits on one).
 */
export class ManualTimers implements MailTimers {
  #now = Date.UTC(2025, 5, 3, 12);
  #timers: Array<{ at: number; callback: () => void }> = [];

  now(): number {
    return this.#now;
  }

  after(ms: number, callback: () => void): () => void {
    const timer = { at: this.#now + ms, callback };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((other) => other !== timer);
    };
  }

  /** Timers set and not yet fired nor cancelled. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Moves the clock on by `ms`, firing each timer that comes due on the way, in order. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const next = this.#timers.filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
      if (next === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== next);
      this.#now = next.at;
      next.callback();
    }
    this.#now = until;
  }
}
