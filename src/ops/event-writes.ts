import type { Logger } from '../log/logger.js';
import type { EventWriteOutcomes } from '../service/index.js';

/** Why events were lost: the store refused their batch, or too many waited for it (events_lost_total's `cause`). */
export type EventLossCause = 'store' | 'queue_full';

/** Where the events are counted (src/ops/metrics.ts's events_written_total and events_lost_total). */
export interface EventWriteMetrics {
  eventsWritten(count: number): void;
  eventsLost(cause: EventLossCause, count: number): void;
}

/**
 * Counts the events written and lost, and logs a loss once per burst rather than once per batch: the first batch
 * lost at warn, with why (a store that cannot be used is the error line of its own burst, src/ops/store-availability.ts,
 * and the service still answers); the next ones are only counted, until a batch is written again, which logs one info
 * line with how many were lost meanwhile. A sign-in never waits for any of this: the writer tells it after.
 */
export function watchEventWrites(options: { logger: Logger; metrics?: EventWriteMetrics | undefined }): EventWriteOutcomes {
  const { logger, metrics } = options;
  let burst: { lost: number; startedAt: number } | null = null;
  return {
    written(count) {
      metrics?.eventsWritten(count);
      if (!burst) return;
      logger.info('events written again', { lost: burst.lost, seconds: Math.round((Date.now() - burst.startedAt) / 1000) });
      burst = null;
    },
    lost(count, cause) {
      metrics?.eventsLost(cause === 'queue-full' ? 'queue_full' : 'store', count);
      if (burst) {
        burst.lost += count;
        return;
      }
      burst = { lost: count, startedAt: Date.now() };
      const why = cause === 'queue-full' ? 'too many events waiting for the store' : cause.error instanceof Error ? cause.error.message : String(cause.error);
      logger.warn('events not written', { events: count, error: why });
    },
  };
}
