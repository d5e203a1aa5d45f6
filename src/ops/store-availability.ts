import type { Logger } from '../log/logger.js';
import { StoreUnavailableError, type StoreUnavailableReason } from '../service/index.js';

/** How long no store call may fail for its cause, once a failed operation worked again, before the recovery is logged. */
export const RECOVERY_QUIET_MS = 30_000;

/** Where the failures are counted, by cause (src/ops/metrics.ts's store_unavailable_total). */
export interface StoreAvailabilityMetrics {
  storeUnavailable(reason: StoreUnavailableReason): void;
}

/** What the instrumented store (src/store/instrumented.ts) reports of each call. */
export interface StoreAvailability {
  failed(operation: string, error: unknown): void;
  succeeded(operation: string): void;
}

/** One cause's failures, from the first one until the store has worked for the quiet period. */
interface Burst {
  readonly error: StoreUnavailableError;
  readonly startedAt: number;
  failures: number;
  /** The operations that failed: the cause is gone once one of them works again. */
  readonly failed: Set<string>;
  /** Set once a failed operation worked again; cleared by the next failure. */
  recovery: NodeJS.Timeout | undefined;
}

/**
 * Logs the store becoming unavailable (a full disk, a read-only or locked database, …) once per burst rather than
 * once per request: the first failure of a cause at error, with the database and what to do; the next ones are only
 * counted, until an operation that failed works again and no call fails for that cause for the quiet period; then
 * one info line, with how many failed. Every failure is counted by cause in the metrics. Other errors are not
 * this watcher's.
 */
export function watchStoreAvailability(options: { logger: Logger; metrics?: StoreAvailabilityMetrics | undefined }): StoreAvailability {
  const { logger, metrics } = options;
  const bursts = new Map<StoreUnavailableReason, Burst>();

  const recovered = (burst: Burst) => {
    bursts.delete(burst.error.reason);
    const { reason, database } = burst.error;
    logger.info('store available again', { reason, database, failures: burst.failures, seconds: Math.round((Date.now() - burst.startedAt) / 1000) });
  };

  return {
    failed(operation, error) {
      if (!(error instanceof StoreUnavailableError)) return;
      const { reason, database, message } = error;
      metrics?.storeUnavailable(reason);
      const burst = bursts.get(reason);
      if (burst) {
        burst.failures += 1;
        burst.failed.add(operation);
        clearTimeout(burst.recovery);
        burst.recovery = undefined;
        return;
      }
      bursts.set(reason, { error, startedAt: Date.now(), failures: 1, failed: new Set([operation]), recovery: undefined });
      logger.error('store unavailable', { reason, database, operation, error: message });
    },

    succeeded(operation) {
      for (const burst of bursts.values()) {
        if (burst.recovery !== undefined || !burst.failed.has(operation)) continue;
        burst.recovery = setTimeout(() => recovered(burst), RECOVERY_QUIET_MS);
        // A recovery not yet logged never keeps the process alive.
        burst.recovery.unref();
      }
    },
  };
}
