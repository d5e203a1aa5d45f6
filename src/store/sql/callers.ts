import type { Store } from '../store.js';
import { rethrowConflict, type SqlDriver } from './driver.js';
import {
  CALLER_COLUMNS,
  CALLER_ORIGIN_COLUMNS,
  type CallerOriginRecord,
  type CallerPasswordRecord,
  type CallerRecord,
  flagRecordMappers,
  mapOrNull,
  toCallerPassword,
} from './records.js';

const SQL = {
  insertCaller: 'INSERT INTO callers (name, enabled, created_at) VALUES ($1, TRUE, $2) RETURNING id',
  callerByName: `SELECT ${CALLER_COLUMNS} FROM callers WHERE name = $1`,
  callers: `SELECT ${CALLER_COLUMNS} FROM callers ORDER BY name`,
  setCallerEnabled: 'UPDATE callers SET enabled = $1 WHERE id = $2',
  deleteCaller: 'DELETE FROM callers WHERE id = $1',
  insertCallerPassword: 'INSERT INTO caller_passwords (caller_id, password_hash, created_at) VALUES ($1, $2, $3) RETURNING id',
  callerPasswords: 'SELECT id, caller_id, created_at FROM caller_passwords WHERE caller_id = $1 ORDER BY id',
  // `id IS DISTINCT FROM NULL` holds for every row, so a missing keepId deletes them all.
  deleteCallerPasswords: 'DELETE FROM caller_passwords WHERE caller_id = $1 AND id IS DISTINCT FROM $2',
  callerByPasswordHash: `SELECT c.id, c.name, c.enabled, c.created_at
    FROM caller_passwords p JOIN callers c ON c.id = p.caller_id
    WHERE p.password_hash = $1`,

  insertCallerOrigin: `INSERT INTO caller_origins (${CALLER_ORIGIN_COLUMNS}) VALUES ($1, $2, $3, $4)`,
  deleteCallerOrigin: 'DELETE FROM caller_origins WHERE caller_id = $1 AND origin = $2',
  callerOrigins: `SELECT ${CALLER_ORIGIN_COLUMNS} FROM caller_origins ORDER BY caller_id, origin`,
  callerOriginsOfCaller: `SELECT ${CALLER_ORIGIN_COLUMNS} FROM caller_origins WHERE caller_id = $1 ORDER BY origin`,
  originGrants: `SELECT o.caller_id, o.origin, o.receives_token, o.created_at
    FROM caller_origins o JOIN callers c ON c.id = o.caller_id
    WHERE o.origin = $1 AND c.enabled = TRUE
    ORDER BY o.caller_id`,
} as const;

function insertedId(record: { id: number } | undefined, what: string): number {
  if (record === undefined) throw new Error(`inserting a ${what} returned no id`);
  return record.id;
}

/** Callers, their passwords and the origins they registered. */
export function callerMethods(db: SqlDriver) {
  const { toCaller, toCallerOrigin } = flagRecordMappers(db.flags);
  return {
    async createCaller(name, createdAt) {
      const record = await rethrowConflict(
        db,
        db.row<{ id: number }>(SQL.insertCaller, [name, createdAt]),
        () => `a caller named "${name}" already exists`,
      );
      return { id: insertedId(record, 'caller'), name, enabled: true, createdAt };
    },

    async getCallerByName(name) {
      return mapOrNull(await db.row<CallerRecord>(SQL.callerByName, [name]), toCaller);
    },

    async listCallers() {
      return (await db.rows<CallerRecord>(SQL.callers)).map(toCaller);
    },

    async setCallerEnabled(callerId, enabled) {
      await db.changes(SQL.setCallerEnabled, [db.flags.fromBoolean(enabled), callerId]);
    },

    async deleteCaller(callerId) {
      await db.changes(SQL.deleteCaller, [callerId]);
    },

    async addCallerPassword(callerId, passwordHash, createdAt) {
      const record = await rethrowConflict(
        db,
        db.row<{ id: number }>(SQL.insertCallerPassword, [callerId, passwordHash, createdAt]),
        () => 'this caller password is already in use',
      );
      return { id: insertedId(record, 'caller password'), callerId, createdAt };
    },

    async listCallerPasswords(callerId) {
      return (await db.rows<CallerPasswordRecord>(SQL.callerPasswords, [callerId])).map(toCallerPassword);
    },

    deleteCallerPasswords(callerId, keepId) {
      return db.changes(SQL.deleteCallerPasswords, [callerId, keepId ?? null]);
    },

    async findCallerByPasswordHash(passwordHash) {
      return mapOrNull(await db.row<CallerRecord>(SQL.callerByPasswordHash, [passwordHash]), toCaller);
    },

    async addCallerOrigin(row) {
      await rethrowConflict(
        db,
        db.changes(SQL.insertCallerOrigin, [row.callerId, row.origin, db.flags.fromBoolean(row.receivesToken), row.createdAt]),
        () => `caller ${row.callerId} already registered the origin "${row.origin}"`,
      );
    },

    async removeCallerOrigin(callerId, origin) {
      return (await db.changes(SQL.deleteCallerOrigin, [callerId, origin])) > 0;
    },

    async listCallerOrigins(callerId) {
      const records =
        callerId === undefined
          ? await db.rows<CallerOriginRecord>(SQL.callerOrigins)
          : await db.rows<CallerOriginRecord>(SQL.callerOriginsOfCaller, [callerId]);
      return records.map(toCallerOrigin);
    },

    async findOriginGrants(origin) {
      return (await db.rows<CallerOriginRecord>(SQL.originGrants, [origin])).map(toCallerOrigin);
    },
  } satisfies Partial<Store>;
}
