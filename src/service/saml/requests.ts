import { randomBytes } from 'node:crypto';
import type { SamlRequestRow, Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { Secrets } from '../secrets.js';

export type SamlRequestKind = SamlRequestRow['kind'];

/** What opening a request takes: the SP, the SAML message's ID, and what the flow keeps until it goes on. */
export interface SamlRequestInput {
  spId: string;
  requestId: string;
  kind: SamlRequestKind;
  /** Anything JSON holds; sealed under the server key, since it may name the member. */
  payload: unknown;
  lifetimeMs: number;
}

/** A live pending request. */
export interface SamlPendingRequest {
  spId: string;
  requestId: string;
  kind: SamlRequestKind;
  payload: unknown;
  createdAt: number;
}

/**
 * Pending SAML requests, kept in the store so that any instance can go on with them: an AuthnRequest waiting
 * for the member to sign in, a logout being propagated to the session's SPs. The browser carries only a random
 * handle. A request ID an SP used before is a replay, for as long as the request is kept (its lifetime); a
 * request is live until it expires or is consumed, and is consumed once.
 */
export class SamlRequests {
  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
  ) {}

  /** The request's handle, or 'replayed' when the SP's request with this ID was opened before. */
  async open(input: SamlRequestInput): Promise<{ handle: string } | 'replayed'> {
    const now = this.clock();
    const handle = randomBytes(32).toString('base64url');
    const opened = await this.store.openSamlRequest({
      handle,
      spId: input.spId,
      requestId: input.requestId,
      kind: input.kind,
      payloadSealed: this.#seal(input.payload),
      createdAt: now,
      expiresAt: now + input.lifetimeMs,
      consumedAt: null,
    });
    return opened ? { handle } : 'replayed';
  }

  /** The live request with this handle (not expired, not consumed), or null. */
  async find(handle: string): Promise<SamlPendingRequest | null> {
    const row = await this.store.findSamlRequest(handle);
    if (row === null || row.consumedAt !== null || row.expiresAt <= this.clock()) return null;
    const payload = this.secrets.unseal(row.payloadSealed);
    if (payload === null) return null;
    return { spId: row.spId, requestId: row.requestId, kind: row.kind, payload: JSON.parse(payload) as unknown, createdAt: row.createdAt };
  }

  /** Replaces the live request's payload; false when it is not live. */
  update(handle: string, payload: unknown): Promise<boolean> {
    return this.store.updateSamlRequest(handle, this.#seal(payload), this.clock());
  }

  /** Ends the live request; false when it is not live. Of two calls, one gets true. */
  consume(handle: string): Promise<boolean> {
    return this.store.consumeSamlRequest(handle, this.clock());
  }

  #seal(payload: unknown): string {
    return this.secrets.seal(JSON.stringify(payload));
  }
}
