import type { Store } from '../store.js';
import type { SqlDriver } from './driver.js';
import { inPacedBatches } from './purge.js';
import { mapOrNull, RECOVERY_TOKEN_COLUMNS, type RecoveryTokenRecord, toRecoveryToken } from './records.js';

/**
 * One statement: the member's row is read and the token written together, so that a member disabled or removed
 * meanwhile gets none. The SELECT's WHERE also tells SQLite that ON CONFLICT is the INSERT's, not a join's.
 * One row per member: a newer token takes the older one's place.
 */
const ISSUE_SQL = `
  INSERT INTO recovery_tokens (${RECOVERY_TOKEN_COLUMNS})
  SELECT id, $2, $3, $4 FROM members WHERE id = $1 AND enabled = $5
  ON CONFLICT (member_id) DO UPDATE SET
    token_hash = excluded.token_hash, created_at = excluded.created_at, expires_at = excluded.expires_at`;

/** One statement: of two requests with one token, exactly one deletes the row and reads its member. */
const CONSUME_SQL = 'DELETE FROM recovery_tokens WHERE token_hash = $1 AND expires_at > $2 RETURNING member_id';

const FIND_SQL = `SELECT ${RECOVERY_TOKEN_COLUMNS} FROM recovery_tokens WHERE token_hash = $1`;

/** Paced as the other purges (src/store/sql/purge.ts); served by the expires_at index. */
const PURGE_SQL = `DELETE FROM recovery_tokens WHERE member_id IN (
    SELECT member_id FROM recovery_tokens WHERE expires_at <= $1 LIMIT $2)`;

/** Members' password recovery tokens: the keyed hashes of the links sent by mail. */
export function recoveryTokenMethods(db: SqlDriver) {
  return {
    async issueRecoveryToken(row) {
      const values = [row.memberId, row.tokenHash, row.createdAt, row.expiresAt, db.flags.fromBoolean(true)];
      return (await db.changes(ISSUE_SQL, values)) > 0;
    },

    async findRecoveryToken(tokenHash) {
      return mapOrNull(await db.row<RecoveryTokenRecord>(FIND_SQL, [tokenHash]), toRecoveryToken);
    },

    async consumeRecoveryToken(tokenHash, now) {
      return (await db.row<{ member_id: string }>(CONSUME_SQL, [tokenHash, now]))?.member_id ?? null;
    },

    purgeRecoveryTokens(before) {
      return inPacedBatches((limit) => db.changes(PURGE_SQL, [before, limit]));
    },
  } satisfies Partial<Store>;
}
