import type { Logger } from '../log/logger.js';
import type { Clock } from '../service/clock.js';
import { StoreUnavailableError } from '../service/index.js';
import type { PurgeKind } from './metrics.js';

export interface PurgePolicy {
  /** How long ended sessions are kept (sessions list --all) before they are deleted. */
  sessionRetentionMs: number;
  /** SESSION_IDLE_TIMEOUT: a session also ends this long after it was last seen. */
  sessionIdleMs: number;
  /** The longest failure window and lockout of the throttles (SIGNIN_*, CALLER_*): a record older than both counts for nothing. */
  throttleWindowMs: number;
  throttleLockoutMs: number;
  /** OIDC_TOKEN_LIFETIME: a signing key of the OpenID provider retired longer ago signed no token still checked. */
  oidcKeyRetentionMs: number;
  /** EVENTS_RETENTION_DAYS: how long the events are kept. */
  eventRetentionMs: number;
}

export interface PurgeCutoffs {
  /** Sessions that expired or were revoked at or before this time are deleted. */
  endedBefore: number;
  /** Sessions last seen at or before this time are deleted: they went idle at least the retention ago. */
  idleBefore: number;
  /** Throttle records whose window began and whose lock ended at or before this time are deleted. */
  throttlesBefore: number;
  /** The OpenID provider's records (codes, tokens, sessions, grants) that expired at or before this time are deleted. */
  oidcExpiredBefore: number;
  /** And its signing keys retired at or before this time, no longer published. */
  oidcKeysRetiredBefore: number;
  /** Password recovery tokens that expired at or before this time are deleted: their links no longer work. */
  recoveryTokensBefore: number;
  /** The SAML identity provider's pending requests that expired at or before this time are deleted. */
  samlExpiredBefore: number;
  /** And its signing keys retired at or before this time: no longer published, they are kept as long as ended sessions, for saml-keys list. */
  samlKeysRetiredBefore: number;
  /** Events recorded at or before this time are deleted. */
  eventsBefore: number;
}

/**
 * What a run at `now` deletes. A session ends at the first of: its expiry, its revocation, or idleness
 * (lastSeenAt + idle timeout). It is deleted only once it has been over for the whole retention:
 *
 * - expired or revoked at or before now − retention;
 * - or last seen at or before now − retention − idle, i.e. idle since now − retention at the latest.
 *
 * A live session has expiresAt > now, no revocation and lastSeenAt > now − idle, so it matches none of these
 * while the retention is positive: nothing live is ever purged, whatever the retention. (An instance whose
 * clock runs ahead of the others by more than the retention could; the default of 7 days leaves room.)
 * Throttle records are kept for the longer of the failure window and the lockout: a window that began
 * earlier has ended, and the store also keeps any record whose lock still runs. The OpenID provider's records
 * go when they expire; its retired keys once no token they signed is still checked. Recovery tokens go when they
 * expire. The SAML identity provider's pending requests go when they expire (a request ID is a replay only while
 * its request is kept); its retired keys, which no longer sign nor are published, after the session retention. Events go after their
 * own retention.
 */
export function purgeCutoffs(now: number, policy: PurgePolicy): PurgeCutoffs {
  const endedBefore = now - policy.sessionRetentionMs;
  return {
    endedBefore,
    idleBefore: endedBefore - policy.sessionIdleMs,
    throttlesBefore: now - Math.max(policy.throttleWindowMs, policy.throttleLockoutMs),
    oidcExpiredBefore: now,
    oidcKeysRetiredBefore: now - policy.oidcKeyRetentionMs,
    recoveryTokensBefore: now,
    samlExpiredBefore: now,
    samlKeysRetiredBefore: endedBefore,
    eventsBefore: now - policy.eventRetentionMs,
  };
}

export interface PurgeResult {
  sessions: number | null;
  throttles: number | null;
  oidc: number | null;
  recoveryTokens: number | null;
  saml: number | null;
  events: number | null;
}

export interface PurgeScheduler {
  /** Runs a purge now, or joins the one already running: runs never overlap. */
  runNow(): Promise<PurgeResult>;
  /** No further runs; resolves once a run in progress has finished. */
  stop(): Promise<void>;
}

export interface PurgeOptions {
  /** What the purge asks of the store (src/store/store.ts documents them). */
  store: {
    purgeSessions(endedBefore: number, idleBefore: number): Promise<number>;
    purgeThrottles(before: number): Promise<number>;
    purgeOidc(expiredBefore: number, keysRetiredBefore: number): Promise<number>;
    purgeRecoveryTokens(before: number): Promise<number>;
    purgeSaml(expiredBefore: number, keysRetiredBefore: number): Promise<number>;
    purgeEvents(before: number): Promise<number>;
  };
  policy: PurgePolicy;
  logger: Logger;
  intervalMs: number;
  /** Delay of the first run after the start; default the interval or 5 s, whichever is shorter. */
  firstRunAfterMs?: number;
  clock?: Clock;
  /** Rows deleted, by kind (purged_total). Failures are counted by the instrumented store. */
  onPurged?: (kind: PurgeKind, count: number) => void;
}

/**
 * Deletes ended sessions, stale throttle records, the OpenID provider's expired records, expired recovery
 * tokens, the SAML identity provider's expired requests and old events in the background,
 * every `intervalMs`. The next run is scheduled when the previous one has finished, so runs never overlap; the
 * timer is unref'd, so it never keeps the process alive. The store paces each purge, in one place for every
 * dialect (src/store/sql/purge.ts): it deletes in batches sized to take about 10 ms, each followed by a pause as
 * long, until a batch comes back short, so that a request waits for one batch at most (on SQLite, whose calls hold
 * the event loop), never for the whole purge. Every instance sharing a store purges; the deletes are idempotent,
 * so that costs nothing but a query.
 */
export function startPurge(options: PurgeOptions): PurgeScheduler {
  const clock = options.clock ?? (() => Date.now());
  const { logger, store } = options;
  let running: Promise<PurgeResult> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const attempt = async (kind: PurgeKind, purge: () => Promise<number>): Promise<number | null> => {
    try {
      const count = await purge();
      options.onPurged?.(kind, count);
      return count;
    } catch (error) {
      // The store unavailable (a full disk, …) is logged once per burst where its calls are watched (store-availability.ts).
      if (!(error instanceof StoreUnavailableError)) logger.error('purge failed', { kind, error: error instanceof Error ? error.message : String(error) });
      return null;
    }
  };

  const run = async (): Promise<PurgeResult> => {
    const startedAt = performance.now();
    const cutoffs = purgeCutoffs(clock(), options.policy);
    const sessions = await attempt('sessions', () => store.purgeSessions(cutoffs.endedBefore, cutoffs.idleBefore));
    const throttles = await attempt('throttles', () => store.purgeThrottles(cutoffs.throttlesBefore));
    const oidc = await attempt('oidc', () => store.purgeOidc(cutoffs.oidcExpiredBefore, cutoffs.oidcKeysRetiredBefore));
    const recoveryTokens = await attempt('recovery_tokens', () => store.purgeRecoveryTokens(cutoffs.recoveryTokensBefore));
    const saml = await attempt('saml', () => store.purgeSaml(cutoffs.samlExpiredBefore, cutoffs.samlKeysRetiredBefore));
    const events = await attempt('events', () => store.purgeEvents(cutoffs.eventsBefore));
    const deleted = (sessions ?? 0) + (throttles ?? 0) + (oidc ?? 0) + (recoveryTokens ?? 0) + (saml ?? 0) + (events ?? 0);
    logger.log(deleted > 0 ? 'info' : 'debug', 'purge', { sessions, throttles, oidc, recoveryTokens, saml, events, ms: Math.round(performance.now() - startedAt) });
    return { sessions, throttles, oidc, recoveryTokens, saml, events };
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      void runNow().finally(() => schedule(options.intervalMs));
    }, delayMs);
    timer.unref();
  };

  const runNow = (): Promise<PurgeResult> => {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  };

  schedule(options.firstRunAfterMs ?? Math.min(options.intervalMs, 5_000));

  return {
    runNow,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running?.catch(() => undefined);
    },
  };
}
