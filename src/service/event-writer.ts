import type { EventRow, Store } from '../store/store.js';

/**
 * How long a recorded event may wait, and how many make a batch that is written at once: as the last-seen writer's
 * (src/service/last-seen-writer.ts), a batch of 250 inserts keeps SQLite's write, which holds the event loop, near 10 ms.
 */
export const EVENT_FLUSH_MS = 1000;
export const EVENT_BATCH = 250;
/**
 * The most events waiting while the store is slow to take them (a write in progress, no answer yet); past that,
 * new ones are lost and counted rather than held in memory without bound.
 */
export const EVENT_QUEUE_LIMIT = 10_000;

/**
 * Told what became of the events (compose counts them in the metrics and logs a loss once per burst): `lost` when
 * the store refused a batch (`error`) or the queue was full; `written` after each batch the store took.
 */
export interface EventWriteOutcomes {
  written(count: number): void;
  lost(count: number, cause: { error: unknown } | 'queue-full'): void;
}

/**
 * Writes the events in batches, so that recording one costs the request no store round trip: they queue here and
 * are written together (Store.insertEvents) within EVENT_FLUSH_MS, or at once when EVENT_BATCH are waiting. A batch
 * the store cannot take is lost, never retried nor thrown: the request that recorded it has answered long since.
 * Events still queued when the process dies (a crash, not a graceful stop, which flushes) are lost too.
 */
export class EventWriter {
  #pending: EventRow[] = [];
  /** Queued or being written: what EVENT_QUEUE_LIMIT bounds. */
  #held = 0;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<Store, 'insertEvents'>,
    private readonly outcomes?: EventWriteOutcomes,
  ) {}

  queue(event: EventRow): void {
    if (this.#held >= EVENT_QUEUE_LIMIT) {
      this.outcomes?.lost(1, 'queue-full');
      return;
    }
    this.#pending.push(event);
    this.#held += 1;
    if (this.#pending.length >= EVENT_BATCH) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), EVENT_FLUSH_MS);
      // A queued event never keeps the process alive: a graceful stop flushes.
      this.#timer.unref();
    }
  }

  /** Writes what is queued, after any write in progress; resolves when it is written or lost, never rejects. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#pending.length === 0) return this.#writing;
    const batch = this.#pending;
    this.#pending = [];
    const write = async () => {
      try {
        await this.store.insertEvents(batch);
        this.outcomes?.written(batch.length);
      } catch (error) {
        this.outcomes?.lost(batch.length, { error });
      } finally {
        this.#held -= batch.length;
      }
    };
    this.#writing = this.#writing.then(write);
    return this.#writing;
  }
}
