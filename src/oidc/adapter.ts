import { errors, type Adapter, type AdapterConstructor, type AdapterPayload } from 'oidc-provider';
import { holdsValidText, INVALID_TEXT, isValidText } from '../service/index.js';
import type { OidcServices } from '../service/oidc/index.js';
import { clientMetadata } from './client-metadata.js';
import { asProviderRefusal } from './unavailable.js';

/** A record to keep that holds invalid text: the provider's `invalid_request`. */
export class InvalidTextError extends errors.InvalidRequest {
  constructor() {
    super(`a parameter ${INVALID_TEXT}`);
  }
}

/**
 * oidc-provider's storage, one adapter per model, over the store: clients are the registered ones (read-only
 * here: the admin CLI registers them), everything else is a record the provider keeps. A session answers only
 * while the member session it belongs to does: one that ended, on this instance or another, is not found. The
 * store unable to write is the provider's `temporarily_unavailable` (src/oidc/unavailable.ts).
 *
 * This is where a request's parameters reach the store, so invalid text (src/service/valid-text.ts: a NUL, an
 * unpaired surrogate) stops here, in the provider's own refusals: an id holding it names nothing (a code, a token
 * or a client not found: `invalid_grant`, `invalid_client`, …), and a record holding it (an authorization
 * request's parameters) is `invalid_request`.
 */
export function storeAdapter(oidc: OidcServices): AdapterConstructor {
  return class StoreAdapter implements Adapter {
    constructor(private readonly model: string) {}

    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      return asProviderRefusal(async () => {
        if (!holdsValidText(payload)) throw new InvalidTextError();
        if (this.model !== 'Client') await oidc.records.upsert(this.model, id, payload as Record<string, unknown>, expiresIn);
      });
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return asProviderRefusal(async () => {
        if (!isValidText(id)) return undefined;
        if (this.model !== 'Client') return this.#live(await oidc.records.find(this.model, id));
        const client = await oidc.clients.find(id);
        return client === null ? undefined : clientMetadata(client);
      });
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return asProviderRefusal(async () => (isValidText(uid) ? this.#live(await oidc.records.findByUid(this.model, uid)) : undefined));
    }

    /** The device flow is off: no record has a user code. */
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    consume(id: string): Promise<void> {
      return asProviderRefusal(() => oidc.records.consume(this.model, id));
    }

    destroy(id: string): Promise<void> {
      return asProviderRefusal(() => oidc.records.destroy(this.model, id));
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return asProviderRefusal(() => oidc.records.revokeGrant(grantId, this.model));
    }

    async #live(record: Record<string, unknown> | undefined): Promise<AdapterPayload | undefined> {
      if (record === undefined) return undefined;
      const { uid, accountId } = record;
      if (this.model === 'Session' && typeof accountId === 'string' && !(typeof uid === 'string' && (await oidc.sessions.live(uid, accountId)))) {
        return undefined;
      }
      return record as AdapterPayload;
    }
  };
}
