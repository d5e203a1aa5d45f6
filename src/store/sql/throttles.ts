import type { Store } from '../store.js';
import type { SqlDriver } from './driver.js';
import { mapOrNull, THROTTLE_COLUMNS, type ThrottleRecord, toThrottle } from './records.js';

/**
 * One statement, so that concurrent failures on one key never lose a count. Every SET expression reads the row
 * as it was before the update; a window that ended at or before now starts again at 1. locked_until is untouched.
 */
const RECORD_FAILURE_SQL = `
  INSERT INTO throttles (${THROTTLE_COLUMNS}) VALUES ($1, 1, $2, NULL)
  ON CONFLICT (key) DO UPDATE SET
    failures = CASE WHEN throttles.window_started_at + $3 <= excluded.window_started_at
      THEN 1 ELSE throttles.failures + 1 END,
    window_started_at = CASE WHEN throttles.window_started_at + $3 <= excluded.window_started_at
      THEN excluded.window_started_at ELSE throttles.window_started_at END
  RETURNING ${THROTTLE_COLUMNS}`;

/**
 * Without a "now" to start a window at, the new count's window starts when the lock ends: the first failure
 * after the lock counts 1 either way.
 */
const LOCK_THROTTLE_SQL = `
  INSERT INTO throttles (${THROTTLE_COLUMNS}) VALUES ($1, 0, $2, $2)
  ON CONFLICT (key) DO UPDATE SET
    failures = 0, window_started_at = excluded.window_started_at, locked_until = excluded.locked_until`;

const THROTTLE_SQL = `SELECT ${THROTTLE_COLUMNS} FROM throttles WHERE key = $1`;
const DELETE_THROTTLE_SQL = 'DELETE FROM throttles WHERE key = $1';

/** Failure counts and locks, shared by every instance on the store. */
export function throttleMethods(db: SqlDriver) {
  return {
    async recordFailure(key, now, windowMs) {
      const record = await db.row<ThrottleRecord>(RECORD_FAILURE_SQL, [key, now, windowMs]);
      if (record === undefined) throw new Error(`recording a failure for throttle "${key}" returned no row`);
      return toThrottle(record);
    },

    async lockThrottle(key, until) {
      await db.changes(LOCK_THROTTLE_SQL, [key, until]);
    },

    async getThrottle(key) {
      return mapOrNull(await db.row<ThrottleRecord>(THROTTLE_SQL, [key]), toThrottle);
    },

    async clearThrottle(key) {
      await db.changes(DELETE_THROTTLE_SQL, [key]);
    },
  } satisfies Partial<Store>;
}
