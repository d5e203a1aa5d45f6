import type { PasskeyChallengeRow, PasskeyDeviceType, PasskeyRow, Store } from '../store.js';
import { rethrowConflict, type SqlDriver } from './driver.js';
import { mapOrNull, type Flag } from './records.js';

interface PasskeyRecord {
  id: string;
  member_id: string;
  public_key: string;
  counter: number | string;
  transports: string;
  device_type: PasskeyDeviceType;
  backed_up: Flag;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

interface ChallengeRecord {
  id: string;
  purpose: PasskeyChallengeRow['purpose'];
  member_id: string | null;
  challenge: string;
  expires_at: number;
}

const COLUMNS = 'id, member_id, public_key, counter, transports, device_type, backed_up, name, created_at, last_used_at';
const CHALLENGE_COLUMNS = 'id, purpose, member_id, challenge, expires_at';

const SQL = {
  insert: `INSERT INTO passkeys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  find: `SELECT ${COLUMNS} FROM passkeys WHERE id = $1`,
  list: `SELECT ${COLUMNS} FROM passkeys WHERE member_id = $1 ORDER BY created_at, id`,
  // One statement: of two sign-ins with the same counter, on one instance or several, one changes the row.
  use: 'UPDATE passkeys SET counter = $3, backed_up = $4, last_used_at = $5 WHERE id = $1 AND counter = $2',
  rename: 'UPDATE passkeys SET name = $3 WHERE member_id = $1 AND id = $2',
  delete: 'DELETE FROM passkeys WHERE member_id = $1 AND id = $2',
  insertChallenge: `INSERT INTO passkey_challenges (${CHALLENGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (id) DO UPDATE SET purpose = excluded.purpose, member_id = excluded.member_id, challenge = excluded.challenge, expires_at = excluded.expires_at`,
  deleteExpiredChallenges: 'DELETE FROM passkey_challenges WHERE expires_at <= $1',
  // Deleted as it is read: of two requests with one challenge, on one instance or several, one gets the row.
  takeChallenge: `DELETE FROM passkey_challenges WHERE id = $1 RETURNING ${CHALLENGE_COLUMNS}`,
  // The session's row is written by the same request just before; a session purged meanwhile has nothing to record.
  insertSession: `INSERT INTO passkey_sessions (session_id, passkey_id) SELECT id, $2 FROM sessions WHERE id = $1
    ON CONFLICT (session_id) DO NOTHING`,
  session: 'SELECT 1 AS found FROM passkey_sessions WHERE session_id = $1',
} as const;

/** Members' passkeys, the challenges of their ceremonies, and which sessions a passkey opened. */
export function passkeyMethods(db: SqlDriver) {
  const { toBoolean, fromBoolean } = db.flags;
  const toPasskey = (record: PasskeyRecord): PasskeyRow => ({
    id: record.id,
    memberId: record.member_id,
    publicKey: record.public_key,
    counter: Number(record.counter),
    transports: record.transports === '' ? [] : record.transports.split(','),
    deviceType: record.device_type,
    backedUp: toBoolean(record.backed_up),
    name: record.name,
    createdAt: record.created_at,
    lastUsedAt: record.last_used_at,
  });
  const toChallenge = (record: ChallengeRecord): PasskeyChallengeRow => ({
    id: record.id,
    purpose: record.purpose,
    memberId: record.member_id,
    challenge: record.challenge,
    expiresAt: record.expires_at,
  });

  return {
    async createPasskey(row) {
      const values = [row.id, row.memberId, row.publicKey, row.counter, row.transports.join(','), row.deviceType, fromBoolean(row.backedUp), row.name, row.createdAt, row.lastUsedAt];
      await rethrowConflict(db, db.changes(SQL.insert, values), () => 'this passkey is stored already');
    },

    async findPasskey(id) {
      return mapOrNull(await db.row<PasskeyRecord>(SQL.find, [id]), toPasskey);
    },

    async listPasskeys(memberId) {
      return (await db.rows<PasskeyRecord>(SQL.list, [memberId])).map(toPasskey);
    },

    async usePasskey(id, use) {
      return (await db.changes(SQL.use, [id, use.previousCounter, use.counter, fromBoolean(use.backedUp), use.usedAt])) > 0;
    },

    async renamePasskey(memberId, id, name) {
      return (await db.changes(SQL.rename, [memberId, id, name])) > 0;
    },

    async deletePasskey(memberId, id) {
      return (await db.changes(SQL.delete, [memberId, id])) > 0;
    },

    async createPasskeyChallenge(row, now) {
      await db.changes(SQL.deleteExpiredChallenges, [now]);
      await db.changes(SQL.insertChallenge, [row.id, row.purpose, row.memberId, row.challenge, row.expiresAt]);
    },

    async takePasskeyChallenge(id) {
      return mapOrNull(await db.row<ChallengeRecord>(SQL.takeChallenge, [id]), toChallenge);
    },

    async recordPasskeySession(sessionId, passkeyId) {
      await db.changes(SQL.insertSession, [sessionId, passkeyId]);
    },

    async isPasskeySession(sessionId) {
      return (await db.row(SQL.session, [sessionId])) !== undefined;
    },
  } satisfies Partial<Store>;
}
