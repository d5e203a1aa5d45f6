import type { OidcPayloadRow, Store } from '../../store/store.js';
import type { Clock } from '../clock.js';

/** A record of oidc-provider, as it hands it to its adapter. */
export type OidcRecord = Record<string, unknown>;

/**
 * The records oidc-provider keeps (grants, sessions, interactions, codes, tokens), by model, stored as JSON with
 * the columns its lookups need. Expired records are never returned, whether or not the purge has run.
 */
export class OidcRecords {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async upsert(model: string, id: string, record: OidcRecord, expiresInSeconds: number | undefined): Promise<void> {
    await this.store.upsertOidcPayload({
      model,
      id,
      payload: JSON.stringify(record),
      // A grant's records name it by grantId; the grant's own record is found by its id.
      grantId: model === 'Grant' ? id : text(record.grantId),
      uid: text(record.uid),
      expiresAt: expiresInSeconds === undefined ? null : this.clock() + expiresInSeconds * 1000,
      consumedAt: null,
    });
  }

  async find(model: string, id: string): Promise<OidcRecord | undefined> {
    return this.#record(await this.store.findOidcPayload(model, id));
  }

  async findByUid(model: string, uid: string): Promise<OidcRecord | undefined> {
    return this.#record(await this.store.findOidcPayloadByUid(model, uid));
  }

  consume(model: string, id: string): Promise<void> {
    return this.store.consumeOidcPayload(model, id, this.clock());
  }

  destroy(model: string, id: string): Promise<void> {
    return this.store.deleteOidcPayload(model, id);
  }

  /** Deletes the grant's records of one model (its tokens of a kind), or all of them, the grant included. */
  revokeGrant(grantId: string, model?: string): Promise<void> {
    return this.store.deleteOidcGrant(grantId, model);
  }

  /** The record with `consumed` (epoch seconds, as oidc-provider reads it) once used. */
  #record(row: OidcPayloadRow | null): OidcRecord | undefined {
    if (row === null || (row.expiresAt !== null && row.expiresAt <= this.clock())) return undefined;
    const record = JSON.parse(row.payload) as OidcRecord;
    return row.consumedAt === null ? record : { ...record, consumed: Math.floor(row.consumedAt / 1000) };
  }
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
