import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { CallMetrics } from '../bindings/call-log.js';
import type { SessionEvents } from '../service/index.js';
import type { SignInAttemptOutcome, SigninMetrics } from '../signin/router.js';

/** What the background purge deletes. */
export type PurgeKind = 'sessions' | 'throttles';

/**
 * The service's Prometheus metrics, in a registry of its own (never prom-client's global one, so that two
 * apps in one process, as in the tests, do not share counters). Each part of the service is handed only the
 * sink it reports to: the call logger, the sign-in router, the services' session events, the store wrapper
 * and the purge.
 */
export interface Metrics extends CallMetrics, SigninMetrics, SessionEvents {
  readonly registry: Registry;
  storeError(operation: string): void;
  purged(kind: PurgeKind, count: number): void;
}

/** Calls take a fraction of a millisecond to a few milliseconds; the buckets resolve that range. */
export const CALL_DURATION_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const SIGNIN_OUTCOMES: Record<SignInAttemptOutcome, string> = {
  'signed-in': 'signed_in',
  invalid: 'invalid',
  throttled: 'throttled',
  incomplete: 'incomplete',
  'refused:csrf': 'refused_csrf',
};

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  // Calls are counted here and handed to prom-client when it is scraped: its inc() validates and hashes the
  // labels on every call, which cost more than the rest of the call's metrics.
  const pendingCalls = new Map<string, { labels: { binding: string; operation: string; outcome: string }; count: number }>();
  // Registered in `registers`; read only through its collect().
  new Counter({
    name: 'asmx_calls_total',
    help: 'Authentication.asmx calls, by binding, operation and outcome',
    labelNames: ['binding', 'operation', 'outcome'] as const,
    registers,
    collect() {
      for (const series of pendingCalls.values()) {
        if (series.count === 0) continue;
        this.inc(series.labels, series.count);
        series.count = 0;
      }
    },
  });
  const callDuration = new Histogram({
    name: 'asmx_call_duration_seconds',
    help: 'Time from reading an Authentication.asmx request to answering it, by binding',
    labelNames: ['binding'] as const,
    buckets: CALL_DURATION_BUCKETS,
    registers,
  });
  const signinAttempts = new Counter({
    name: 'signin_attempts_total',
    help: 'Sign-in form submissions, by outcome',
    labelNames: ['outcome'] as const,
    registers,
  });
  const sessionsCreated = new Counter({ name: 'sessions_created_total', help: 'Sessions created (sign-ins)', registers });
  const sessionsRevoked = new Counter({ name: 'sessions_revoked_total', help: 'Sessions ended by sign-out or revocation', registers });
  const callerPasswordFailures = new Counter({
    name: 'caller_password_failures_total',
    help: 'Calls refused for a wrong or missing security password',
    registers,
  });
  const storeErrors = new Counter({
    name: 'store_errors_total',
    help: 'Store operations that failed, by operation',
    labelNames: ['operation'] as const,
    registers,
  });
  const purged = new Counter({
    name: 'purged_total',
    help: 'Rows deleted by the background purge, by kind',
    labelNames: ['kind'] as const,
    registers,
  });
  // Series that exist from the start, so that rate() and alerts see 0 rather than nothing.
  for (const outcome of Object.values(SIGNIN_OUTCOMES)) signinAttempts.inc({ outcome }, 0);
  for (const kind of ['sessions', 'throttles'] satisfies PurgeKind[]) purged.inc({ kind }, 0);

  const countCall = (binding: string, operation: string, outcome: string) => {
    const key = `${binding} ${operation} ${outcome}`;
    const series = pendingCalls.get(key);
    if (series) series.count += 1;
    else pendingCalls.set(key, { labels: { binding, operation, outcome }, count: 1 });
  };

  return {
    registry,
    call({ binding, operation, outcome, seconds }) {
      countCall(binding, operation ?? 'none', outcome);
      callDuration.observe({ binding }, seconds);
      if (outcome === 'invalid_security_password') callerPasswordFailures.inc();
    },
    signinAttempt(outcome) {
      signinAttempts.inc({ outcome: SIGNIN_OUTCOMES[outcome] });
    },
    sessionsCreated(count) {
      sessionsCreated.inc(count);
    },
    sessionsRevoked(count) {
      sessionsRevoked.inc(count);
    },
    storeError(operation) {
      storeErrors.inc({ operation });
    },
    purged(kind, count) {
      purged.inc({ kind }, count);
    },
  };
}
