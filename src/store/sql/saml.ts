import type { SamlKeyRow, SamlParticipantRow, SamlRequestRow, SamlSpRow, Store } from '../store.js';
import { rethrowConflict, type SqlDriver } from './driver.js';
import { inPacedBatches } from './purge.js';
import { mapOrNull } from './records.js';

interface SamlSpRecord {
  id: string;
  name: string;
  entity_id: string;
  metadata: string;
  settings: string;
  created_at: number;
}

interface SamlKeyRecord {
  kid: string;
  private_key_sealed: string;
  certificate: string;
  created_at: number;
  activated_at: number | null;
  retired_at: number | null;
}

interface SamlParticipantRecord {
  member_session_id: string;
  member_id: string;
  sp_id: string;
  name_id: string;
  name_id_format: string;
  session_index: string;
  created_at: number;
}

interface SamlRequestRecord {
  handle: string;
  sp_id: string;
  request_id: string;
  kind: SamlRequestRow['kind'];
  payload_sealed: string;
  created_at: number;
  expires_at: number;
  consumed_at: number | null;
}

const SP_COLUMNS = 'id, name, entity_id, metadata, settings, created_at';
const KEY_COLUMNS = 'kid, private_key_sealed, certificate, created_at, activated_at, retired_at';
const PARTICIPANT_COLUMNS = 'member_session_id, member_id, sp_id, name_id, name_id_format, session_index, created_at';
const REQUEST_COLUMNS = 'handle, sp_id, request_id, kind, payload_sealed, created_at, expires_at, consumed_at';
const PARTICIPANT_ORDER = 'ORDER BY member_session_id, created_at, sp_id';

const SQL = {
  insertSp: `INSERT INTO saml_sps (${SP_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`,
  spById: `SELECT ${SP_COLUMNS} FROM saml_sps WHERE id = $1`,
  spByName: `SELECT ${SP_COLUMNS} FROM saml_sps WHERE name = $1`,
  spByEntityId: `SELECT ${SP_COLUMNS} FROM saml_sps WHERE entity_id = $1`,
  sps: `SELECT ${SP_COLUMNS} FROM saml_sps ORDER BY name`,
  anySp: 'SELECT id FROM saml_sps LIMIT 1',
  deleteSp: 'DELETE FROM saml_sps WHERE id = $1',

  keys: `SELECT ${KEY_COLUMNS} FROM saml_keys
    ORDER BY CASE WHEN retired_at IS NOT NULL THEN 2 WHEN activated_at IS NULL THEN 1 ELSE 0 END, created_at DESC, kid`,
  // Typed casts: PostgreSQL infers nothing from a SELECT without a table.
  insertFirstKey: `INSERT INTO saml_keys (${KEY_COLUMNS})
    SELECT CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS BIGINT), CAST($4 AS BIGINT), NULL
    WHERE NOT EXISTS (SELECT 1 FROM saml_keys WHERE activated_at IS NOT NULL AND retired_at IS NULL)`,
  insertNextKey: `INSERT INTO saml_keys (${KEY_COLUMNS})
    SELECT CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS BIGINT), NULL, NULL
    WHERE NOT EXISTS (SELECT 1 FROM saml_keys WHERE activated_at IS NULL AND retired_at IS NULL)`,
  nextKey: 'SELECT kid FROM saml_keys WHERE activated_at IS NULL AND retired_at IS NULL ORDER BY created_at DESC, kid LIMIT 1',
  // The current key is retired before the next is activated: one key at most is current (saml_keys_one_current).
  retireCurrentKey: 'UPDATE saml_keys SET retired_at = $1 WHERE activated_at IS NOT NULL AND retired_at IS NULL',
  // The condition again: of two activations, the second finds the key activated and changes nothing.
  activateKey: 'UPDATE saml_keys SET activated_at = $2 WHERE kid = $1 AND activated_at IS NULL AND retired_at IS NULL',

  upsertParticipant: `INSERT INTO saml_session_sps (${PARTICIPANT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (member_session_id, sp_id) DO UPDATE SET member_id = excluded.member_id, name_id = excluded.name_id,
      name_id_format = excluded.name_id_format, session_index = excluded.session_index, created_at = excluded.created_at`,
  participantsOfSession: `SELECT ${PARTICIPANT_COLUMNS} FROM saml_session_sps WHERE member_session_id = $1 ${PARTICIPANT_ORDER}`,
  participantsOfMember: `SELECT ${PARTICIPANT_COLUMNS} FROM saml_session_sps WHERE member_id = $1 ${PARTICIPANT_ORDER}`,
  participantsByNameId: `SELECT ${PARTICIPANT_COLUMNS} FROM saml_session_sps WHERE sp_id = $1 AND name_id = $2 ${PARTICIPANT_ORDER}`,
  deleteParticipant: 'DELETE FROM saml_session_sps WHERE member_session_id = $1 AND sp_id = $2',

  // A request ID the SP used before conflicts and inserts nothing: the replay is told by the count.
  insertRequest: `INSERT INTO saml_requests (${REQUEST_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)
    ON CONFLICT (sp_id, request_id) DO NOTHING`,
  request: `SELECT ${REQUEST_COLUMNS} FROM saml_requests WHERE handle = $1`,
  updateRequest: 'UPDATE saml_requests SET payload_sealed = $2 WHERE handle = $1 AND consumed_at IS NULL AND expires_at > $3',
  consumeRequest: 'UPDATE saml_requests SET consumed_at = $2 WHERE handle = $1 AND consumed_at IS NULL AND expires_at > $2',

  // As the other purges (src/store/sql/purge.ts): batches limited through a primary-key subquery.
  purgeRequests: `DELETE FROM saml_requests WHERE handle IN (
    SELECT handle FROM saml_requests WHERE expires_at <= $1 LIMIT $2)`,
  purgeKeys: 'DELETE FROM saml_keys WHERE retired_at <= $1',
} as const;

const orNull = (value: number | null): number | null => (value === null ? null : Number(value));

const toSp = (record: SamlSpRecord): SamlSpRow => ({
  id: record.id,
  name: record.name,
  entityId: record.entity_id,
  metadataXml: record.metadata,
  settings: record.settings,
  createdAt: Number(record.created_at),
});

const toKey = (record: SamlKeyRecord): SamlKeyRow => ({
  kid: record.kid,
  privateKeySealed: record.private_key_sealed,
  certificate: record.certificate,
  createdAt: Number(record.created_at),
  activatedAt: orNull(record.activated_at),
  retiredAt: orNull(record.retired_at),
});

const toParticipant = (record: SamlParticipantRecord): SamlParticipantRow => ({
  memberSessionId: record.member_session_id,
  memberId: record.member_id,
  spId: record.sp_id,
  nameId: record.name_id,
  nameIdFormat: record.name_id_format,
  sessionIndex: record.session_index,
  createdAt: Number(record.created_at),
});

const toRequest = (record: SamlRequestRecord): SamlRequestRow => ({
  handle: record.handle,
  spId: record.sp_id,
  requestId: record.request_id,
  kind: record.kind,
  payloadSealed: record.payload_sealed,
  createdAt: Number(record.created_at),
  expiresAt: Number(record.expires_at),
  consumedAt: orNull(record.consumed_at),
});

/** Thrown inside activateNextSamlKey's transaction to roll it back. */
class KeyTaken extends Error {}

/**
 * Whether the key was inserted: not when its statement's condition found a key in the place (current or next), nor
 * when another instance's insert took the place meanwhile (the place's unique index refuses the second).
 */
async function insertedUnlessTaken(db: SqlDriver, sql: string, values: readonly unknown[]): Promise<boolean> {
  try {
    return (await db.changes(sql, values)) > 0;
  } catch (error) {
    if (db.isUniqueViolation(error)) return false;
    throw error;
  }
}

/** The SAML identity provider's service providers, signing keys, session participants and pending requests (docs/saml.md). */
export function samlMethods(db: SqlDriver) {
  return {
    async createSamlSp(sp) {
      const values = [sp.id, sp.name, sp.entityId, sp.metadataXml, sp.settings, sp.createdAt];
      await rethrowConflict(db, db.changes(SQL.insertSp, values), () => `a SAML SP named "${sp.name}", with its entity id or its id already exists`);
    },

    async getSamlSp(id) {
      return mapOrNull(await db.row<SamlSpRecord>(SQL.spById, [id]), toSp);
    },

    async getSamlSpByName(name) {
      return mapOrNull(await db.row<SamlSpRecord>(SQL.spByName, [name]), toSp);
    },

    async getSamlSpByEntityId(entityId) {
      return mapOrNull(await db.row<SamlSpRecord>(SQL.spByEntityId, [entityId]), toSp);
    },

    async listSamlSps() {
      return (await db.rows<SamlSpRecord>(SQL.sps)).map(toSp);
    },

    async hasSamlSps() {
      return (await db.row(SQL.anySp)) !== undefined;
    },

    async deleteSamlSp(id) {
      return (await db.changes(SQL.deleteSp, [id])) > 0;
    },

    async listSamlKeys() {
      return (await db.rows<SamlKeyRecord>(SQL.keys)).map(toKey);
    },

    addFirstSamlKey(key) {
      return insertedUnlessTaken(db, SQL.insertFirstKey, [key.kid, key.privateKeySealed, key.certificate, key.createdAt]);
    },

    addNextSamlKey(key) {
      return insertedUnlessTaken(db, SQL.insertNextKey, [key.kid, key.privateKeySealed, key.certificate, key.createdAt]);
    },

    activateNextSamlKey(at) {
      return db.transaction(async (tx) => {
        const next = await tx.row<{ kid: string }>(SQL.nextKey);
        if (next === undefined) return null;
        await tx.changes(SQL.retireCurrentKey, [at]);
        // Another activation took the key meanwhile: the transaction rolls back, the key it retired included.
        if ((await tx.changes(SQL.activateKey, [next.kid, at])) === 0) throw new KeyTaken();
        return next.kid;
      }).catch((error: unknown) => {
        if (error instanceof KeyTaken) return null;
        throw error;
      });
    },

    async joinSamlSession(row) {
      await db.changes(SQL.upsertParticipant, [row.memberSessionId, row.memberId, row.spId, row.nameId, row.nameIdFormat, row.sessionIndex, row.createdAt]);
    },

    async findSamlParticipants(filter) {
      const [sql, values] =
        'memberSessionId' in filter
          ? [SQL.participantsOfSession, [filter.memberSessionId]]
          : 'memberId' in filter
            ? [SQL.participantsOfMember, [filter.memberId]]
            : [SQL.participantsByNameId, [filter.spId, filter.nameId]];
      return (await db.rows<SamlParticipantRecord>(sql, values)).map(toParticipant);
    },

    async leaveSamlSession(memberSessionId, spId) {
      await db.changes(SQL.deleteParticipant, [memberSessionId, spId]);
    },

    async openSamlRequest(row) {
      const values = [row.handle, row.spId, row.requestId, row.kind, row.payloadSealed, row.createdAt, row.expiresAt];
      return (await db.changes(SQL.insertRequest, values)) > 0;
    },

    async findSamlRequest(handle) {
      return mapOrNull(await db.row<SamlRequestRecord>(SQL.request, [handle]), toRequest);
    },

    async updateSamlRequest(handle, payloadSealed, now) {
      return (await db.changes(SQL.updateRequest, [handle, payloadSealed, now])) > 0;
    },

    async consumeSamlRequest(handle, now) {
      return (await db.changes(SQL.consumeRequest, [handle, now])) > 0;
    },

    async purgeSaml(before, keysRetiredBefore) {
      const requests = await inPacedBatches((limit) => db.changes(SQL.purgeRequests, [before, limit]));
      return requests + (await db.changes(SQL.purgeKeys, [keysRetiredBefore]));
    },
  } satisfies Partial<Store>;
}
