import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../store.js';
import type { SqlDriver } from './driver.js';

/**
 * The purges' pacing, for every dialect. A purge deletes in batches and leaves the store to the calls between
 * them. On SQLite that matters most: its calls are synchronous, so one statement over a million ended sessions
 * would hold every request for a minute; on PostgreSQL a batch holds a pooled connection and its rows' locks. A
 * deleted session costs from a few to about 90 microseconds (its seven indexes, on pages in the cache or not),
 * so the batch size follows what the last batch cost: each aims at PURGE_BATCH_TARGET_MS, between
 * PURGE_BATCH_MIN and PURGE_BATCH_MAX rows. After each batch the purge waits as long as the batch took, so that
 * it never takes more than half of the store from the calls: a purge of a million sessions then takes minutes
 * instead of one, in the background.
 */
const PURGE_BATCH_TARGET_MS = 10;
const PURGE_BATCH_MIN = 16;
const PURGE_BATCH_MAX = 2048;
const PURGE_BATCH_FIRST = 128;

/** Runs one batch after another, paced as above, until one comes back short; returns how many rows they deleted. */
export async function inPacedBatches(batch: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  let limit = PURGE_BATCH_FIRST;
  for (;;) {
    const startedAt = performance.now();
    const deleted = await batch(limit);
    total += deleted;
    if (deleted < limit) return total;
    const took = performance.now() - startedAt;
    if (took > PURGE_BATCH_TARGET_MS * 1.5) limit = Math.max(PURGE_BATCH_MIN, Math.floor(limit / 2));
    else if (took < PURGE_BATCH_TARGET_MS / 2) limit = Math.min(PURGE_BATCH_MAX, limit * 2);
    await sleep(Math.ceil(took));
  }
}

/**
 * DELETE … LIMIT is neither PostgreSQL's nor every SQLite build's; a primary-key subquery limits the batch in
 * both. Ended sessions and stale throttles are rows no request still writes, so a batch waits for no one and
 * blocks no one. The conditions are served by indexes of their own (the migrations' purge indexes).
 */
const PURGE_SESSIONS_SQL = `DELETE FROM sessions WHERE id IN (
    SELECT id FROM sessions WHERE expires_at <= $1 OR revoked_at <= $1 OR last_seen_at <= $2 LIMIT $3)`;
const PURGE_THROTTLES_SQL = `DELETE FROM throttles WHERE key IN (
    SELECT key FROM throttles WHERE window_started_at <= $1 AND (locked_until IS NULL OR locked_until <= $1) LIMIT $2)`;

/** The background purge's deletes (src/ops/purge.ts schedules them). */
export function purgeMethods(db: SqlDriver) {
  return {
    purgeSessions(endedBefore, idleBefore) {
      return inPacedBatches((limit) => db.changes(PURGE_SESSIONS_SQL, [endedBefore, idleBefore, limit]));
    },

    purgeThrottles(before) {
      return inPacedBatches((limit) => db.changes(PURGE_THROTTLES_SQL, [before, limit]));
    },
  } satisfies Partial<Store>;
}
