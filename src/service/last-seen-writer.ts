import type { Store } from '../store/store.js';

/**
 * How long a queued write may wait, and how many make a batch that is written at once. A move costs SQLite
 * up to about 50 µs on a large table (its row and the last_seen_at index, on pages not in the cache), and
 * SQLite's writes hold the event loop: 250 keep a batch near 10 ms there.
 */
export const LAST_SEEN_FLUSH_MS = 1000;
export const LAST_SEEN_BATCH = 250;
/** Sessions whose last write this instance remembers; past that the oldest are forgotten. */
const REMEMBERED = 10_000;

/**
 * Writes sessions' lastSeenAt in batches, so that a call which moves a session's idle deadline costs no
 * store round trip of its own: the moves queue here and are written together (Store.touchSessions) within
 * LAST_SEEN_FLUSH_MS, or at once when LAST_SEEN_BATCH are waiting. Until then this instance reads its own
 * moves through lastSeen(), so that a row read before the write (from the cache or from the store) is not
 * taken for idle nor moved again. Other instances see a move when it is written; a write lost with the
 * process (a crash, not a graceful stop, which flushes) only brings the session's idle end closer by at most
 * the time since its previous write.
 */
export class LastSeenWriter {
  readonly #pending = new Map<string, number>();
  readonly #remembered = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();

  constructor(private readonly store: Pick<Store, 'touchSessions'>) {}

  /** The later of the row's lastSeenAt and the last one this instance wrote or queued for the session. */
  lastSeen(sessionId: string, stored: number): number {
    return Math.max(stored, this.#remembered.get(sessionId) ?? stored);
  }

  queue(sessionId: string, lastSeenAt: number): void {
    this.#pending.set(sessionId, lastSeenAt);
    this.#remembered.delete(sessionId);
    this.#remembered.set(sessionId, lastSeenAt);
    if (this.#remembered.size > REMEMBERED) this.#remembered.delete(this.#remembered.keys().next().value as string);
    if (this.#pending.size >= LAST_SEEN_BATCH) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), LAST_SEEN_FLUSH_MS);
      // A queued write never keeps the process alive: a graceful stop flushes.
      this.#timer.unref();
    }
  }

  /**
   * Writes what is queued, after any write in progress; resolves when it is written. A failed write is
   * counted by the instrumented store (store_errors_total), and its moves are forgotten here, so that the
   * next call on each of those sessions queues its move again.
   */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#pending.size === 0) return this.#writing;
    const touches = [...this.#pending].map(([id, lastSeenAt]) => ({ id, lastSeenAt }));
    this.#pending.clear();
    const write = async () => {
      try {
        await this.store.touchSessions(touches);
      } catch {
        for (const { id, lastSeenAt } of touches) if (this.#remembered.get(id) === lastSeenAt) this.#remembered.delete(id);
      }
    };
    this.#writing = this.#writing.then(write);
    return this.#writing;
  }
}
