import type { Store } from '../store.js';
import type { SqlDriver } from './driver.js';
import { insertRows, type InsertTarget } from './insert-rows.js';
import { mapOrNull, SECOND_FACTOR_COLUMNS, type SecondFactorRecord, toSecondFactor } from './records.js';

/**
 * A new factor starts unconfirmed, whatever the row says, and with no step used: the old factor's state goes
 * with it.
 */
const REPLACE_SECOND_FACTOR_SQL = `
  INSERT INTO member_second_factors (${SECOND_FACTOR_COLUMNS}) VALUES ($1, $2, $3, NULL, NULL)
  ON CONFLICT (member_id) DO UPDATE SET
    secret_sealed = excluded.secret_sealed, created_at = excluded.created_at, confirmed_at = NULL, last_step = NULL`;

/**
 * One statement: of two requests with a code of the same step, on one instance or several, exactly one changes
 * the row (in PostgreSQL under READ COMMITTED the second waits for the first's row lock, then finds its condition
 * false).
 */
const USE_SECOND_FACTOR_STEP_SQL = `
  UPDATE member_second_factors SET last_step = $2
  WHERE member_id = $1 AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < $2)`;

/** A hash given twice is one code. */
const RECOVERY_CODES: InsertTarget = {
  table: 'member_recovery_codes',
  columns: 'member_id, code_hash, used_at',
  suffix: ' ON CONFLICT (member_id, code_hash) DO NOTHING',
};

const SQL = {
  secondFactor: `SELECT ${SECOND_FACTOR_COLUMNS} FROM member_second_factors WHERE member_id = $1`,
  confirmSecondFactor: 'UPDATE member_second_factors SET confirmed_at = $2, last_step = $3 WHERE member_id = $1 AND confirmed_at IS NULL',
  deleteSecondFactor: 'DELETE FROM member_second_factors WHERE member_id = $1',
  useRecoveryCode: 'UPDATE member_recovery_codes SET used_at = $3 WHERE member_id = $1 AND code_hash = $2 AND used_at IS NULL',
  countRecoveryCodes: 'SELECT COUNT(*) AS count FROM member_recovery_codes WHERE member_id = $1 AND used_at IS NULL',
  deleteRecoveryCodes: 'DELETE FROM member_recovery_codes WHERE member_id = $1',
} as const;

/** Members' second factors (TOTP secrets) and their recovery codes. */
export function secondFactorMethods(db: SqlDriver) {
  return {
    async getSecondFactor(memberId) {
      return mapOrNull(await db.row<SecondFactorRecord>(SQL.secondFactor, [memberId]), toSecondFactor);
    },

    async replaceSecondFactor(row) {
      await db.transaction(async (tx) => {
        await tx.changes(REPLACE_SECOND_FACTOR_SQL, [row.memberId, row.secretSealed, row.createdAt]);
        await tx.changes(SQL.deleteRecoveryCodes, [row.memberId]);
      });
    },

    confirmSecondFactor(memberId, confirmedAt, step, recoveryCodeHashes) {
      return db.transaction(async (tx) => {
        // In PostgreSQL, the UPDATE's row lock holds off a concurrent confirmation or replacement until this one commits.
        if ((await tx.changes(SQL.confirmSecondFactor, [memberId, confirmedAt, step])) === 0) return false;
        // An unconfirmed factor has no codes (replaceSecondFactor deleted them); none may linger from before.
        await tx.changes(SQL.deleteRecoveryCodes, [memberId]);
        await insertRows(db, tx, RECOVERY_CODES, recoveryCodeHashes.map((codeHash) => [memberId, codeHash, null]));
        return true;
      });
    },

    async useSecondFactorStep(memberId, step) {
      return (await db.changes(USE_SECOND_FACTOR_STEP_SQL, [memberId, step])) > 0;
    },

    async useRecoveryCode(memberId, codeHash, usedAt) {
      return (await db.changes(SQL.useRecoveryCode, [memberId, codeHash, usedAt])) > 0;
    },

    async countRecoveryCodes(memberId) {
      return ((await db.row<{ count: number }>(SQL.countRecoveryCodes, [memberId])) as { count: number }).count;
    },

    deleteSecondFactor(memberId) {
      return db.transaction(async (tx) => {
        await tx.changes(SQL.deleteRecoveryCodes, [memberId]);
        return (await tx.changes(SQL.deleteSecondFactor, [memberId])) > 0;
      });
    },
  } satisfies Partial<Store>;
}
