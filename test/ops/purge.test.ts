/**
 * The background purge: what a run deletes (ended sessions once past the retention, stale throttle
 * records), that no live session is ever deleted, and how runs are scheduled: never overlapping, errors
 * logged, stopped on shutdown.
 */
import { jest } from '@jest/globals';
import { createLogger } from '../../src/log/logger.js';
import { purgeCutoffs, startPurge, type PurgePolicy, type PurgeScheduler } from '../../src/ops/purge.js';
import { StoreUnavailableError } from '../../src/service/index.js';
import type { SessionRow, Store } from '../../src/store/store.js';
import { useFakeTimers } from '../helpers/fake-timers.js';
import { logCapture } from '../helpers/log-capture.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { nextTurn } from '../helpers/wait.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2025, 5, 1, 12);

const POLICY: PurgePolicy = {
  sessionRetentionMs: 7 * DAY,
  sessionIdleMs: 30 * MINUTE,
  throttleWindowMs: 15 * MINUTE,
  throttleLockoutMs: 15 * MINUTE,
  oidcKeyRetentionMs: 10 * MINUTE,
  eventRetentionMs: 90 * DAY,
};
const ABSOLUTE = 12 * HOUR;

/** The logger writes the lines of one turn of the event loop at its end. */
const logsWritten = nextTurn;

function capture() {
  const { lines, stream } = logCapture();
  return { lines, logger: createLogger('debug', stream) };
}

let counter = 0;
function session(id: string, times: { createdAt: number; lastSeenAt?: number; revokedAt?: number | null; expiresAt?: number }): SessionRow {
  counter += 1;
  return {
    id,
    memberId: 'm1',
    cookieDomain: 'example.org',
    cookieHash: `cookie-${counter}`,
    tokenHash: `token-${counter}`,
    tokenSealed: 'sealed',
    cookieSealed: null,
    createdAt: times.createdAt,
    lastSeenAt: times.lastSeenAt ?? times.createdAt,
    expiresAt: times.expiresAt ?? times.createdAt + ABSOLUTE,
    revokedAt: times.revokedAt ?? null,
    clientAddress: null,
    userAgent: null,
  };
}

/** Live by the service's own rule (src/service/sessions.ts). */
const isLive = (row: SessionRow, now: number, idleMs: number) => row.revokedAt === null && now < row.expiresAt && now < row.lastSeenAt + idleMs;

async function withStore(fn: (store: Store) => Promise<void>): Promise<void> {
  const temp = await tempSqliteStore();
  try {
    await temp.store.createMember({
      id: 'm1',
      username: 'ada',
      email: 'ada@example.org',
      firstName: 'Ada',
      lastName: 'L',
      enabled: true,
      createdAt: 0,
      attributes: {},
    });
    await fn(temp.store);
  } finally {
    await temp.cleanup();
  }
}

const ids = async (store: Store) => (await store.listSessions()).map((s) => s.id).sort();

describe('purgeCutoffs', () => {
  it('ended sessions are kept for the retention; idle ones for the retention after they went idle', () => {
    expect(purgeCutoffs(NOW, POLICY)).toEqual({
      endedBefore: NOW - 7 * DAY,
      idleBefore: NOW - 7 * DAY - 30 * MINUTE,
      throttlesBefore: NOW - 15 * MINUTE,
      oidcExpiredBefore: NOW,
      oidcKeysRetiredBefore: NOW - 10 * MINUTE,
      recoveryTokensBefore: NOW,
      samlExpiredBefore: NOW,
      samlKeysRetiredBefore: NOW - 7 * DAY,
      eventsBefore: NOW - 90 * DAY,
    });
  });

  it('throttle records are kept for the longer of window and lockout', () => {
    expect(purgeCutoffs(NOW, { ...POLICY, throttleLockoutMs: 2 * HOUR }).throttlesBefore).toBe(NOW - 2 * HOUR);
    expect(purgeCutoffs(NOW, { ...POLICY, throttleWindowMs: 3 * HOUR }).throttlesBefore).toBe(NOW - 3 * HOUR);
  });
});

describe('a run', () => {
  it('deletes sessions that ended more than the retention ago and keeps live and recently ended ones', async () => {
    await withStore(async (store) => {
      const rows = [
        session('live-new', { createdAt: NOW - MINUTE }),
        session('live-busy', { createdAt: NOW - 11 * HOUR, lastSeenAt: NOW - 29 * MINUTE }),
        session('idle-recently', { createdAt: NOW - 2 * HOUR, lastSeenAt: NOW - 31 * MINUTE }),
        session('idle-6-days', { createdAt: NOW - 6 * DAY - HOUR, lastSeenAt: NOW - 6 * DAY }),
        session('idle-over-retention', { createdAt: NOW - 8 * DAY, lastSeenAt: NOW - 7 * DAY - 31 * MINUTE }),
        session('revoked-yesterday', { createdAt: NOW - DAY - HOUR, lastSeenAt: NOW - DAY - HOUR, revokedAt: NOW - DAY }),
        session('revoked-8-days', { createdAt: NOW - 8 * DAY - MINUTE, revokedAt: NOW - 8 * DAY }),
        session('expired-8-days', { createdAt: NOW - 8 * DAY - ABSOLUTE, lastSeenAt: NOW - 8 * DAY - MINUTE }),
        session('expired-6-days', { createdAt: NOW - 6 * DAY - ABSOLUTE, lastSeenAt: NOW - 6 * DAY - MINUTE }),
      ];
      for (const row of rows) await store.createSession(row);
      const { lines, logger } = capture();
      const purged: Array<[string, number]> = [];
      const purge = startPurge({ store, logger, policy: POLICY, intervalMs: HOUR, firstRunAfterMs: HOUR, clock: () => NOW, onPurged: (kind, n) => purged.push([kind, n]) });
      try {
        await expect(purge.runNow()).resolves.toEqual({ sessions: 3, throttles: 0, oidc: 0, recoveryTokens: 0, saml: 0, events: 0 });
      } finally {
        await purge.stop();
      }
      expect(await ids(store)).toEqual(['expired-6-days', 'idle-6-days', 'idle-recently', 'live-busy', 'live-new', 'revoked-yesterday']);
      expect(purged).toEqual([
        ['sessions', 3],
        ['throttles', 0],
        ['oidc', 0],
        ['recovery_tokens', 0],
        ['saml', 0],
        ['events', 0],
      ]);
      await logsWritten();
      expect(lines).toEqual([expect.objectContaining({ level: 'info', message: 'purge', sessions: 3, throttles: 0 })]);
      expect(lines[0]).not.toHaveProperty('requestId');
    });
  });

  it('never deletes a live session, even with a retention of one millisecond, at the very edge of idleness and expiry', async () => {
    await withStore(async (store) => {
      const policy = { ...POLICY, sessionRetentionMs: 1 };
      const idle = policy.sessionIdleMs;
      const rows = [
        session('last-seen-just-in-time', { createdAt: NOW - 2 * HOUR, lastSeenAt: NOW - idle + 1 }),
        session('expires-next-ms', { createdAt: NOW - ABSOLUTE + 1, lastSeenAt: NOW - MINUTE }),
        ...Array.from({ length: 50 }, (_, i) => {
          const lastSeenAt = NOW - Math.floor(Math.random() * idle);
          return session(`random-${i}`, { createdAt: lastSeenAt - Math.floor(Math.random() * (ABSOLUTE - idle)), lastSeenAt });
        }),
        session('idle-by-one-ms', { createdAt: NOW - 2 * HOUR, lastSeenAt: NOW - idle - 1 - 1 }),
      ];
      for (const row of rows) await store.createSession(row);
      const live = rows.filter((row) => isLive(row, NOW, idle)).map((row) => row.id);
      expect(live).toHaveLength(rows.length - 1);
      const purge = startPurge({ store, logger: capture().logger, policy, intervalMs: HOUR, firstRunAfterMs: HOUR, clock: () => NOW });
      await purge.runNow();
      await purge.stop();
      expect(await ids(store)).toEqual([...live].sort());
    });
  });

  it('deletes throttle records whose window and lock are over, and keeps running windows and locks', async () => {
    await withStore(async (store) => {
      const window = POLICY.throttleWindowMs;
      await store.recordFailure('account:old', NOW - HOUR, window);
      await store.recordFailure('account:recent', NOW - 5 * MINUTE, window);
      await store.recordFailure('address:locked', NOW - HOUR, window);
      await store.lockThrottle('address:locked', NOW + 10 * MINUTE);
      await store.recordFailure('address:lock-over', NOW - HOUR, window);
      await store.lockThrottle('address:lock-over', NOW - 20 * MINUTE);
      const purge = startPurge({ store, logger: capture().logger, policy: POLICY, intervalMs: HOUR, firstRunAfterMs: HOUR, clock: () => NOW });
      await expect(purge.runNow()).resolves.toEqual({ sessions: 0, throttles: 2, oidc: 0, recoveryTokens: 0, saml: 0, events: 0 });
      await purge.stop();
      expect(await store.getThrottle('account:old')).toBeNull();
      expect(await store.getThrottle('address:lock-over')).toBeNull();
      expect(await store.getThrottle('account:recent')).not.toBeNull();
      expect(await store.getThrottle('address:locked')).not.toBeNull();
    });
  });

  it('deletes the events recorded more than EVENTS_RETENTION_DAYS ago and keeps the others', async () => {
    await withStore(async (store) => {
      const event = (id: string, time: number) => ({ id, time, type: 'signin-failed', actorKind: 'anonymous', actorId: null, memberId: null, clientAddress: null, device: null, via: null, requestId: null, outcome: null, reason: 'unknown-login' });
      await store.insertEvents([event('old', NOW - 90 * DAY - 1), event('at-the-edge', NOW - 90 * DAY), event('kept', NOW - 90 * DAY + 1)]);
      const purge = startPurge({ store, logger: capture().logger, policy: POLICY, intervalMs: HOUR, firstRunAfterMs: HOUR, clock: () => NOW });
      await expect(purge.runNow()).resolves.toMatchObject({ events: 2 });
      await purge.stop();
      expect((await store.listEvents({ limit: 10 })).map((row) => row.id)).toEqual(['kept']);
    });
  });

  it('logs a failing purge and goes on with the other; the next run tries again', async () => {
    let fail = true;
    const store = {
      purgeSessions: async () => {
        if (fail) throw new Error('database is locked');
        return 4;
      },
      purgeThrottles: async () => 1,
      purgeOidc: async () => 0,
      purgeRecoveryTokens: async () => 0,
      purgeSaml: async () => 0,
      purgeEvents: async () => 0,
    };
    const { lines, logger } = capture();
    const purge = startPurge({ store, logger, policy: POLICY, intervalMs: HOUR, firstRunAfterMs: HOUR });
    await expect(purge.runNow()).resolves.toEqual({ sessions: null, throttles: 1, oidc: 0, recoveryTokens: 0, saml: 0, events: 0 });
    fail = false;
    await expect(purge.runNow()).resolves.toEqual({ sessions: 4, throttles: 1, oidc: 0, recoveryTokens: 0, saml: 0, events: 0 });
    await purge.stop();
    await logsWritten();
    expect(lines.map((l) => [l.level, l.message, l.kind ?? null, l.error ?? null])).toEqual([
      ['error', 'purge failed', 'sessions', 'database is locked'],
      ['info', 'purge', null, null],
      ['info', 'purge', null, null],
    ]);
  });

  it('leaves the store unavailable (a full disk) to the store watcher\'s one line per burst, logging no failure of its own', async () => {
    const full = () => Promise.reject(new StoreUnavailableError('disk-full', '/data/authentication.sqlite', 'SQLITE_FULL'));
    const { lines, logger } = capture();
    const purge = startPurge({ store: { purgeSessions: full, purgeThrottles: full, purgeOidc: full, purgeRecoveryTokens: full, purgeSaml: full, purgeEvents: full }, logger, policy: POLICY, intervalMs: HOUR, firstRunAfterMs: HOUR });
    await expect(purge.runNow()).resolves.toEqual({ sessions: null, throttles: null, oidc: null, recoveryTokens: null, saml: null, events: null });
    await purge.stop();
    await logsWritten();
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });
});

describe('the schedule', () => {
  /** A store whose purges wait until released, counting the calls. */
  function slowStore() {
    const calls = { sessions: 0, throttles: 0, inFlight: 0, maxInFlight: 0 };
    let release: () => void = () => undefined;
    let gate = new Promise<void>((resolve) => (release = resolve));
    const store = {
      purgeSessions: async () => {
        calls.sessions += 1;
        calls.inFlight += 1;
        calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
        await gate;
        calls.inFlight -= 1;
        return 0;
      },
      purgeThrottles: async () => {
        calls.throttles += 1;
        return 0;
      },
      purgeOidc: async () => 0,
      purgeRecoveryTokens: async () => 0,
      purgeSaml: async () => 0,
      purgeEvents: async () => 0,
    };
    return {
      store,
      calls,
      open() {
        release();
        gate = Promise.resolve();
      },
    };
  }

  let purge: PurgeScheduler | undefined;
  beforeEach(() => useFakeTimers());
  afterEach(async () => {
    await purge?.stop();
    jest.useRealTimers();
  });

  it('runs first shortly after the start, then every interval', async () => {
    const { store, calls, open } = slowStore();
    open();
    purge = startPurge({ store, logger: capture().logger, policy: POLICY, intervalMs: 30, firstRunAfterMs: 5 });
    await jest.advanceTimersByTimeAsync(4);
    expect(calls.sessions).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls.sessions).toBe(1);
    await jest.advanceTimersByTimeAsync(29);
    expect(calls.sessions).toBe(1);
    await jest.advanceTimersByTimeAsync(1 + 30);
    expect(calls.sessions).toBe(3);
    expect(calls.throttles).toBe(calls.sessions);
  });

  it('never overlaps: a slow run delays the next one, and runNow joins the run in progress', async () => {
    const { store, calls, open } = slowStore();
    purge = startPurge({ store, logger: capture().logger, policy: POLICY, intervalMs: 10, firstRunAfterMs: 0 });
    await jest.advanceTimersByTimeAsync(85); // eight and a half intervals, all during the first, stuck run
    expect(calls).toMatchObject({ sessions: 1, maxInFlight: 1 });
    const joined = purge.runNow();
    expect(calls.sessions).toBe(1);
    open();
    await joined;
    await jest.advanceTimersByTimeAsync(9);
    expect(calls.sessions).toBe(1);
    await jest.advanceTimersByTimeAsync(1); // an interval after the slow run ended
    expect(calls.sessions).toBe(2);
    expect(calls.maxInFlight).toBe(1);
  });

  it('stop() waits for the run in progress and no run follows', async () => {
    const { store, calls, open } = slowStore();
    purge = startPurge({ store, logger: capture().logger, policy: POLICY, intervalMs: 10, firstRunAfterMs: 0 });
    await jest.advanceTimersByTimeAsync(20);
    let stopped = false;
    const stopping = purge.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(20);
    expect(stopped).toBe(false);
    open();
    await stopping;
    const after = calls.sessions;
    await jest.advanceTimersByTimeAsync(50);
    expect(calls.sessions).toBe(after);
  });

  it('does not keep the process alive (the timer is unref\'d)', () => {
    jest.useRealTimers(); // Node itself tells which timers hold the event loop
    const { store } = slowStore();
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    purge = startPurge({ store, logger: capture().logger, policy: POLICY, intervalMs: HOUR });
    // An unref'd timer is not an active resource that holds the event loop.
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before);
  });
});
