import type { OidcClientRow, OidcKeyRow, OidcPayloadRow, OidcSessionLinkRow, Store } from '../store.js';
import { rethrowConflict, type SqlDriver } from './driver.js';
import { inPacedBatches } from './purge.js';
import { mapOrNull, type Flag } from './records.js';

interface OidcClientRecord {
  id: string;
  name: string;
  secret_hash: string | null;
  first_party: Flag;
  /** JSON arrays of text. */
  redirect_uris: string;
  post_logout_redirect_uris: string;
  backchannel_logout_uri: string | null;
  created_at: number;
}

interface OidcKeyRecord {
  kid: string;
  private_jwk_sealed: string;
  created_at: number;
  retired_at: number | null;
}

interface OidcPayloadRecord {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  expires_at: number | null;
  consumed_at: number | null;
}

interface OidcSessionLinkRecord {
  uid: string;
  member_session_id: string;
  member_id: string;
  token_sealed: string;
}

const CLIENT_COLUMNS = 'id, name, secret_hash, first_party, redirect_uris, post_logout_redirect_uris, backchannel_logout_uri, created_at';
const KEY_COLUMNS = 'kid, private_jwk_sealed, created_at, retired_at';
const PAYLOAD_COLUMNS = 'model, id, payload, grant_id, uid, expires_at, consumed_at';
const LINK_COLUMNS = 'uid, member_session_id, member_id, token_sealed';

const SQL = {
  insertClient: `INSERT INTO oidc_clients (${CLIENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  clientById: `SELECT ${CLIENT_COLUMNS} FROM oidc_clients WHERE id = $1`,
  clientByName: `SELECT ${CLIENT_COLUMNS} FROM oidc_clients WHERE name = $1`,
  clients: `SELECT ${CLIENT_COLUMNS} FROM oidc_clients ORDER BY name`,
  anyClient: 'SELECT id FROM oidc_clients LIMIT 1',
  setClientSecret: 'UPDATE oidc_clients SET secret_hash = $1 WHERE id = $2',
  deleteClient: 'DELETE FROM oidc_clients WHERE id = $1',

  keys: `SELECT ${KEY_COLUMNS} FROM oidc_keys ORDER BY CASE WHEN retired_at IS NULL THEN 0 ELSE 1 END, created_at DESC, kid`,
  // Typed casts: PostgreSQL infers nothing from a SELECT without a table.
  insertFirstKey: `INSERT INTO oidc_keys (${KEY_COLUMNS})
    SELECT CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS BIGINT), NULL
    WHERE NOT EXISTS (SELECT 1 FROM oidc_keys WHERE retired_at IS NULL)`,
  retireKeys: 'UPDATE oidc_keys SET retired_at = $1 WHERE retired_at IS NULL',
  insertKey: `INSERT INTO oidc_keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, NULL)`,

  // A record saved again keeps its use: only consume() sets consumed_at.
  upsertPayload: `INSERT INTO oidc_payloads (${PAYLOAD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, NULL)
    ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, expires_at = excluded.expires_at`,
  payload: `SELECT ${PAYLOAD_COLUMNS} FROM oidc_payloads WHERE model = $1 AND id = $2`,
  payloadByUid: `SELECT ${PAYLOAD_COLUMNS} FROM oidc_payloads WHERE model = $1 AND uid = $2`,
  consumePayload: 'UPDATE oidc_payloads SET consumed_at = $3 WHERE model = $1 AND id = $2 AND consumed_at IS NULL',
  deletePayload: 'DELETE FROM oidc_payloads WHERE model = $1 AND id = $2',
  deleteGrant: 'DELETE FROM oidc_payloads WHERE grant_id = $1',
  deleteGrantOfModel: 'DELETE FROM oidc_payloads WHERE grant_id = $1 AND model = $2',

  upsertLink: `INSERT INTO oidc_session_links (${LINK_COLUMNS}) VALUES ($1, $2, $3, $4)
    ON CONFLICT (uid) DO UPDATE SET member_session_id = excluded.member_session_id, member_id = excluded.member_id, token_sealed = excluded.token_sealed`,
  link: `SELECT ${LINK_COLUMNS} FROM oidc_session_links WHERE uid = $1`,
  linksOfSession: `SELECT ${LINK_COLUMNS} FROM oidc_session_links WHERE member_session_id = $1 ORDER BY uid`,
  linksOfMember: `SELECT ${LINK_COLUMNS} FROM oidc_session_links WHERE member_id = $1 ORDER BY uid`,
  deleteLink: 'DELETE FROM oidc_session_links WHERE uid = $1',

  // As the other purges (src/store/sql/purge.ts): batches limited through a primary-key subquery.
  purgePayloads: `DELETE FROM oidc_payloads WHERE (model, id) IN (
    SELECT model, id FROM oidc_payloads WHERE expires_at <= $1 LIMIT $2)`,
  purgeKeys: 'DELETE FROM oidc_keys WHERE retired_at <= $1',
} as const;

const toKey = (record: OidcKeyRecord): OidcKeyRow => ({
  kid: record.kid,
  privateJwkSealed: record.private_jwk_sealed,
  createdAt: Number(record.created_at),
  retiredAt: record.retired_at === null ? null : Number(record.retired_at),
});

const toPayload = (record: OidcPayloadRecord): OidcPayloadRow => ({
  model: record.model,
  id: record.id,
  payload: record.payload,
  grantId: record.grant_id,
  uid: record.uid,
  expiresAt: record.expires_at === null ? null : Number(record.expires_at),
  consumedAt: record.consumed_at === null ? null : Number(record.consumed_at),
});

const toLink = (record: OidcSessionLinkRecord): OidcSessionLinkRow => ({
  uid: record.uid,
  memberSessionId: record.member_session_id,
  memberId: record.member_id,
  tokenSealed: record.token_sealed,
});

/** The OpenID provider's clients, signing keys, records and session links (docs/oidc.md). */
export function oidcMethods(db: SqlDriver) {
  const toClient = (record: OidcClientRecord): OidcClientRow => ({
    id: record.id,
    name: record.name,
    secretHash: record.secret_hash,
    firstParty: db.flags.toBoolean(record.first_party),
    redirectUris: JSON.parse(record.redirect_uris) as string[],
    postLogoutRedirectUris: JSON.parse(record.post_logout_redirect_uris) as string[],
    backchannelLogoutUri: record.backchannel_logout_uri,
    createdAt: Number(record.created_at),
  });
  return {
    async createOidcClient(client) {
      const values = [
        client.id,
        client.name,
        client.secretHash,
        db.flags.fromBoolean(client.firstParty),
        JSON.stringify(client.redirectUris),
        JSON.stringify(client.postLogoutRedirectUris),
        client.backchannelLogoutUri,
        client.createdAt,
      ];
      await rethrowConflict(db, db.changes(SQL.insertClient, values), () => `an OpenID client named "${client.name}" or with its id already exists`);
    },

    async getOidcClient(id) {
      return mapOrNull(await db.row<OidcClientRecord>(SQL.clientById, [id]), toClient);
    },

    async getOidcClientByName(name) {
      return mapOrNull(await db.row<OidcClientRecord>(SQL.clientByName, [name]), toClient);
    },

    async listOidcClients() {
      return (await db.rows<OidcClientRecord>(SQL.clients)).map(toClient);
    },

    async hasOidcClients() {
      return (await db.row(SQL.anyClient)) !== undefined;
    },

    async setOidcClientSecret(id, secretHash) {
      return (await db.changes(SQL.setClientSecret, [secretHash, id])) > 0;
    },

    async deleteOidcClient(id) {
      return (await db.changes(SQL.deleteClient, [id])) > 0;
    },

    async listOidcKeys() {
      return (await db.rows<OidcKeyRecord>(SQL.keys)).map(toKey);
    },

    async addFirstOidcKey(key) {
      return (await db.changes(SQL.insertFirstKey, [key.kid, key.privateJwkSealed, key.createdAt])) > 0;
    },

    async rotateOidcKeys(key) {
      await db.transaction(async (tx) => {
        await tx.changes(SQL.retireKeys, [key.createdAt]);
        await tx.changes(SQL.insertKey, [key.kid, key.privateJwkSealed, key.createdAt]);
      });
    },

    async upsertOidcPayload(row) {
      await db.changes(SQL.upsertPayload, [row.model, row.id, row.payload, row.grantId, row.uid, row.expiresAt]);
    },

    async findOidcPayload(model, id) {
      return mapOrNull(await db.row<OidcPayloadRecord>(SQL.payload, [model, id]), toPayload);
    },

    async findOidcPayloadByUid(model, uid) {
      return mapOrNull(await db.row<OidcPayloadRecord>(SQL.payloadByUid, [model, uid]), toPayload);
    },

    async consumeOidcPayload(model, id, consumedAt) {
      await db.changes(SQL.consumePayload, [model, id, consumedAt]);
    },

    async deleteOidcPayload(model, id) {
      await db.changes(SQL.deletePayload, [model, id]);
    },

    async deleteOidcGrant(grantId, model) {
      await (model === undefined ? db.changes(SQL.deleteGrant, [grantId]) : db.changes(SQL.deleteGrantOfModel, [grantId, model]));
    },

    async linkOidcSession(link) {
      await db.changes(SQL.upsertLink, [link.uid, link.memberSessionId, link.memberId, link.tokenSealed]);
    },

    async findOidcSessionLink(uid) {
      return mapOrNull(await db.row<OidcSessionLinkRecord>(SQL.link, [uid]), toLink);
    },

    async findOidcSessionLinks(filter) {
      const [sql, value] = 'memberSessionId' in filter ? [SQL.linksOfSession, filter.memberSessionId] : [SQL.linksOfMember, filter.memberId];
      return (await db.rows<OidcSessionLinkRecord>(sql, [value])).map(toLink);
    },

    async deleteOidcSessionLink(uid) {
      await db.changes(SQL.deleteLink, [uid]);
    },

    async purgeOidc(before, keysRetiredBefore) {
      const records = await inPacedBatches((limit) => db.changes(SQL.purgePayloads, [before, limit]));
      return records + (await db.changes(SQL.purgeKeys, [keysRetiredBefore]));
    },
  } satisfies Partial<Store>;
}
