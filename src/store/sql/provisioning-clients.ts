import type { ProvisioningClientRow, Store } from '../store.js';
import { rethrowConflict, type SqlDriver } from './driver.js';
import { mapOrNull } from './records.js';

interface ProvisioningClientRecord {
  id: number;
  name: string;
  created_at: number;
}

const COLUMNS = 'id, name, created_at';

const SQL = {
  insert: `INSERT INTO provisioning_clients (name, token_hash, created_at) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
  list: `SELECT ${COLUMNS} FROM provisioning_clients ORDER BY name`,
  setToken: 'UPDATE provisioning_clients SET token_hash = $2 WHERE name = $1',
  delete: 'DELETE FROM provisioning_clients WHERE name = $1',
  byTokenHash: `SELECT ${COLUMNS} FROM provisioning_clients WHERE token_hash = $1`,
  any: 'SELECT id FROM provisioning_clients LIMIT 1',
} as const;

function toProvisioningClient(record: ProvisioningClientRecord): ProvisioningClientRow {
  return { id: record.id, name: record.name, createdAt: record.created_at };
}

/** SCIM provisioning clients and their bearer tokens' hashes. */
export function provisioningClientMethods(db: SqlDriver) {
  return {
    async createProvisioningClient(name, tokenHash, createdAt) {
      const record = await rethrowConflict(
        db,
        db.row<ProvisioningClientRecord>(SQL.insert, [name, tokenHash, createdAt]),
        () => `a provisioning client named "${name}" already exists, or its token is another's`,
      );
      return toProvisioningClient(record as ProvisioningClientRecord);
    },

    async listProvisioningClients() {
      return (await db.rows<ProvisioningClientRecord>(SQL.list)).map(toProvisioningClient);
    },

    async setProvisioningClientToken(name, tokenHash) {
      return (await rethrowConflict(db, db.changes(SQL.setToken, [name, tokenHash]), () => 'this token is another provisioning client\'s')) > 0;
    },

    async deleteProvisioningClient(name) {
      return (await db.changes(SQL.delete, [name])) > 0;
    },

    async findProvisioningClientByTokenHash(tokenHash) {
      return mapOrNull(await db.row<ProvisioningClientRecord>(SQL.byTokenHash, [tokenHash]), toProvisioningClient);
    },

    async hasProvisioningClients() {
      return (await db.row(SQL.any)) !== undefined;
    },
  } satisfies Partial<Store>;
}
