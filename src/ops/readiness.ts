import type { Logger } from '../log/logger.js';

/** Why an instance is not ready: draining (stopping), or the store did not answer its ping (or not in time). */
export type NotReadyReason = 'draining' | 'unreachable' | 'timeout';

export type Readiness = { ready: true } | { ready: false; reason: NotReadyReason };

export interface ReadinessProbe {
  /** Whether the instance should get traffic now: not draining, and the store answered a ping in time. */
  check(): Promise<Readiness>;
  /** From now on the instance is not ready (a stop has begun); there is no way back. */
  drain(): void;
  readonly draining: boolean;
}

/** A ping that takes longer than this counts as a store that cannot be reached. */
const PING_TIMEOUT_MS = 1000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Readiness for /readyz. Store problems are logged when the answer changes, not on every probe, so that an
 * outage polled every few seconds writes two lines (down, up), not thousands.
 */
export function createReadiness(options: { store: { ping(): Promise<unknown> }; logger?: Logger; timeoutMs?: number }): ReadinessProbe {
  const timeoutMs = options.timeoutMs ?? PING_TIMEOUT_MS;
  let draining = false;
  let lastReason: NotReadyReason | null = null;

  const ping = async (): Promise<{ readiness: Readiness; error?: unknown }> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<{ readiness: Readiness }>((resolve) => {
      timer = setTimeout(() => resolve({ readiness: { ready: false, reason: 'timeout' } }), timeoutMs);
      timer.unref();
    });
    const pinged = Promise.resolve()
      .then(() => options.store.ping())
      .then(
        () => ({ readiness: { ready: true } as const }),
        (error: unknown) => ({ readiness: { ready: false, reason: 'unreachable' } as const, error }),
      );
    try {
      return await Promise.race([pinged, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async check() {
      if (draining) return { ready: false, reason: 'draining' };
      const { readiness, error } = await ping();
      const reason = readiness.ready ? null : readiness.reason;
      if (reason !== lastReason) {
        if (reason === 'unreachable') options.logger?.warn('not ready: the store cannot be reached', { error: messageOf(error) });
        else if (reason === 'timeout') options.logger?.warn('not ready: the store did not answer in time', { timeoutMs });
        else if (reason === null) options.logger?.info('ready: the store answers again');
        lastReason = reason;
      }
      return readiness;
    },
    drain() {
      draining = true;
    },
    get draining() {
      return draining;
    },
  };
}
