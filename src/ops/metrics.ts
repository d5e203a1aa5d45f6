import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { SIGN_IN_ATTEMPT_OUTCOMES, type SignInAttemptOutcome } from '../log/signin-outcomes.js';
import { MAIL_KINDS } from '../mail/mail.js';
import { MAIL_RESULTS, type MailMetrics } from '../mail/queue.js';
import { STORE_UNAVAILABLE_REASONS, type CacheLookups, type CallPathCache, type SessionEvents } from '../service/index.js';
import type { EventLossCause, EventWriteMetrics } from './event-writes.js';
import type { StoreAvailabilityMetrics } from './store-availability.js';

/** What the background purge deletes. */
export type PurgeKind = 'sessions' | 'throttles' | 'oidc' | 'recovery_tokens' | 'saml' | 'events';

/**
 * The service's Prometheus metrics, in a registry of its own (never prom-client's global one, so that two
 * apps in one process, as in the tests, do not share counters). Each part of the service is handed only the
 * sink it reports to: the call logger, the sign-in router, the services' session events, the store wrapper
 * and the purge. The sinks' types belong to those parts; the app checks that these methods fit them.
 */
export interface Metrics extends SessionEvents, StoreAvailabilityMetrics, MailMetrics, EventWriteMetrics {
  readonly registry: Registry;
  /** An Authentication.asmx call: binding, operation (undefined before one was chosen), outcome, duration. */
  call(entry: { binding: string; operation: string | undefined; outcome: string; seconds: number }): void;
  /** A sign-in form submission and how it ended ('signed-in', 'refused:csrf', …). */
  signinAttempt(outcome: SignInAttemptOutcome): void;
  storeError(operation: string): void;
  /** A request refused before it reached a binding (400, 408, 413, 431): its status. */
  refusal(status: number): void;
  purged(kind: PurgeKind, count: number): void;
  /** A back-channel logout token sent to an OpenID client: delivered, retried after a failure, or given up (failed). */
  backchannelLogout(outcome: string): void;
  /** A sign-in to a SAML service provider: signed-in, no-passive (IsPassive, not signed in) or refused. */
  samlSignIn(outcome: string): void;
  /**
   * A SAML logout step: signed-out (an SP's LogoutRequest ended sessions), front-channel (an SP told through the
   * browser), delivered, retried or failed (told over SOAP), no-back-channel (no SOAP endpoint: told through the
   * browser when the member signed out in one, else not at all), refused.
   */
  samlLogout(outcome: string): void;
  /** Where the call-path caches' counts are read from when the metrics are scraped. */
  watchCaches(lookups: () => Record<CallPathCache, CacheLookups>): void;
}

/** Calls take a fraction of a millisecond to a few milliseconds; the buckets resolve that range. */
const CALL_DURATION_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** A sign-in outcome as a label value: the log's word with _ for - and :. */
const signinLabel = (outcome: SignInAttemptOutcome) => outcome.replace(/[-:]/g, '_');

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
  const storeUnavailable = new Counter({
    name: 'store_unavailable_total',
    help: 'Store operations that failed because the database could not be written or reached (a full disk, read-only, locked, …), by cause',
    labelNames: ['reason'] as const,
    registers,
  });
  const refusals = new Counter({
    name: 'http_refusals_total',
    help: 'Requests refused before they reached a binding (malformed, too large, too slow), by status',
    labelNames: ['status'] as const,
    registers,
  });
  const purged = new Counter({
    name: 'purged_total',
    help: 'Rows deleted by the background purge, by kind',
    labelNames: ['kind'] as const,
    registers,
  });
  const mailSent = new Counter({
    name: 'mail_sent_total',
    help: 'Mail to members, by kind and result: sent; retried (an attempt failed, another follows); failed (refused for good); expired (undelivered at its maximum age); dropped (queue full, or the service stopped)',
    labelNames: ['kind', 'result'] as const,
    registers,
  });
  const backchannelLogouts = new Counter({
    name: 'oidc_backchannel_logouts_total',
    help: 'Back-channel logout tokens sent to OpenID clients, by outcome: delivered, retried (an attempt failed, another follows) or failed (given up)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const samlSignIns = new Counter({
    name: 'saml_signins_total',
    help: 'Sign-ins to SAML service providers, by outcome: signed_in, no_passive (a passive request, the member not signed in) or refused',
    labelNames: ['outcome'] as const,
    registers,
  });
  const samlLogouts = new Counter({
    name: 'saml_logouts_total',
    help: 'SAML single logout steps, by outcome: signed_out (an SP asked), front_channel (an SP told through the browser), delivered, retried or failed (over SOAP), no_back_channel (no SOAP endpoint: told only through a browser that signs out here), refused',
    labelNames: ['outcome'] as const,
    registers,
  });
  const eventsWritten = new Counter({ name: 'events_written_total', help: 'Events (sign-ins, sign-outs, changes…) written to the store', registers });
  const eventsLost = new Counter({
    name: 'events_lost_total',
    help: 'Events not written, by cause: store (the store refused their batch) or queue_full (too many waited for the store)',
    labelNames: ['cause'] as const,
    registers,
  });
  let cacheLookups: (() => Record<CallPathCache, CacheLookups>) | undefined;
  // The caches count for themselves (a field increment per lookup); the counter takes their totals at scrape.
  new Counter({
    name: 'cache_lookups_total',
    help: 'Lookups of the call-path caches (CACHE_TTL_MS), by cache and result: hit (answered from memory) or miss (read from the store)',
    labelNames: ['cache', 'result'] as const,
    registers,
    collect() {
      if (!cacheLookups) return;
      this.reset();
      for (const [cache, { hits, misses }] of Object.entries(cacheLookups())) {
        this.inc({ cache, result: 'hit' }, hits);
        this.inc({ cache, result: 'miss' }, misses);
      }
    },
  });
  // Series that exist from the start, so that rate() and alerts see 0 rather than nothing.
  for (const outcome of SIGN_IN_ATTEMPT_OUTCOMES) signinAttempts.inc({ outcome: signinLabel(outcome) }, 0);
  for (const kind of ['sessions', 'throttles', 'oidc', 'recovery_tokens', 'saml', 'events'] satisfies PurgeKind[]) purged.inc({ kind }, 0);
  for (const status of ['400', '408', '413', '431']) refusals.inc({ status }, 0);
  for (const outcome of ['delivered', 'retried', 'failed']) backchannelLogouts.inc({ outcome }, 0);
  for (const outcome of ['signed_in', 'no_passive', 'refused']) samlSignIns.inc({ outcome }, 0);
  for (const outcome of ['signed_out', 'front_channel', 'delivered', 'retried', 'failed', 'no_back_channel', 'refused']) samlLogouts.inc({ outcome }, 0);
  for (const cause of ['store', 'queue_full'] satisfies EventLossCause[]) eventsLost.inc({ cause }, 0);
  for (const reason of STORE_UNAVAILABLE_REASONS) storeUnavailable.inc({ reason }, 0);
  for (const kind of MAIL_KINDS) for (const result of MAIL_RESULTS) mailSent.inc({ kind, result }, 0);

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
      signinAttempts.inc({ outcome: signinLabel(outcome) });
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
    storeUnavailable(reason) {
      storeUnavailable.inc({ reason });
    },
    refusal(status) {
      refusals.inc({ status: String(status) });
    },
    purged(kind, count) {
      purged.inc({ kind }, count);
    },
    backchannelLogout(outcome) {
      backchannelLogouts.inc({ outcome });
    },
    samlSignIn(outcome) {
      samlSignIns.inc({ outcome: outcome.replace(/-/g, '_') });
    },
    samlLogout(outcome) {
      samlLogouts.inc({ outcome: outcome.replace(/-/g, '_') });
    },
    mailSent(kind, result) {
      mailSent.inc({ kind, result });
    },
    eventsWritten(count) {
      eventsWritten.inc(count);
    },
    eventsLost(cause, count) {
      eventsLost.inc({ cause }, count);
    },
    watchCaches(lookups) {
      cacheLookups = lookups;
    },
  };
}
