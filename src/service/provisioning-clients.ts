import type { ProvisioningClientRow, Store } from '../store/store.js';
import { StoreConflictError } from '../store/store.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import { CLI_ACTOR, type EventContext, type EventService } from './events.js';
import { randomSecret, type Secrets } from './secrets.js';
import type { ShortLivedCache } from './short-lived-cache.js';
import type { KeyedThrottle } from './throttle.js';

export interface IssuedProvisioningToken {
  name: string;
  /** Shown once: only its hash is stored. */
  token: string;
}

/** Whose bearer token it was, or why none: a lock on the client's address is in force for retryAfterSeconds. */
export type ProvisioningClientCheck = { ok: true; client: string } | { ok: false; retryAfterSeconds: number | null };

/** What the service's caches hold: clients by their tokens, and whether any client exists (key ANY). */
export interface ProvisioningClientCaches {
  tokens: ShortLivedCache<string>;
  exists: ShortLivedCache<boolean>;
}

const ANY = 'any';

/**
 * The provisioning clients (identity providers sending SCIM requests) and their bearer tokens, one token each,
 * stored as a keyed hash as callers' passwords are. Clients by their tokens, and whether there is any client at
 * all (SCIM is off until there is), are cached for CACHE_TTL_MS; a change made here clears both, so that this
 * instance sees it at once and others within CACHE_TTL_MS.
 *
 * Wrong tokens are counted per client address (`throttle`), as wrong security passwords are: once an address
 * reaches the threshold, its requests are refused until the lock ends, before their token is looked at.
 */
export class ProvisioningClientService {
  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly throttle: KeyedThrottle,
    private readonly caches: ProvisioningClientCaches,
    private readonly events: EventService,
  ) {}

  /**
   * Registers a client with a new token; PROVISIONING_CLIENT_EXISTS when a client has this name. This and every
   * change after are recorded (site-added, site-changed, site-removed: outcome `provisioning-client`), by whoever
   * `by` says: the CLI unless told.
   */
  async add(name: string, by: EventContext = { actor: CLI_ACTOR }): Promise<IssuedProvisioningToken> {
    const token = randomSecret();
    try {
      await this.store.createProvisioningClient(name, this.#hash(token), this.clock());
    } catch (error) {
      if (error instanceof StoreConflictError) throw new ServiceError('PROVISIONING_CLIENT_EXISTS', name);
      throw error;
    }
    this.#forget();
    this.#record('site-added', name, by);
    return { name, token };
  }

  /** Every client, by name. */
  list(): Promise<ProvisioningClientRow[]> {
    return this.store.listProvisioningClients();
  }

  /** Gives the client a new token; the old one stops working. PROVISIONING_CLIENT_NOT_FOUND when no client has this name. */
  async rotate(name: string, by: EventContext = { actor: CLI_ACTOR }): Promise<IssuedProvisioningToken> {
    const token = randomSecret();
    const found = await this.store.setProvisioningClientToken(name, this.#hash(token));
    this.#forget();
    if (!found) throw new ServiceError('PROVISIONING_CLIENT_NOT_FOUND', name);
    this.#record('site-changed', name, by, 'new-token');
    return { name, token };
  }

  /** PROVISIONING_CLIENT_NOT_FOUND when no client has this name. */
  async remove(name: string, by: EventContext = { actor: CLI_ACTOR }): Promise<void> {
    const removed = await this.store.deleteProvisioningClient(name);
    this.#forget();
    if (!removed) throw new ServiceError('PROVISIONING_CLIENT_NOT_FOUND', name);
    this.#record('site-removed', name, by);
  }

  #record(type: 'site-added' | 'site-changed' | 'site-removed', name: string, by: EventContext, reason?: string): void {
    this.events.record({ ...by, type, via: name, outcome: 'provisioning-client', reason });
  }

  /** Whether any client exists: SCIM answers only then. */
  async anyExist(): Promise<boolean> {
    return (await this.caches.exists.fetch(ANY, this.clock(), () => this.store.hasProvisioningClients())) === true;
  }

  /** The client whose bearer token this is. A wrong token counts against the address, which is locked after too many. */
  async authenticate(token: string, clientAddress: string): Promise<ProvisioningClientCheck> {
    const now = this.clock();
    const lock = await this.throttle.check(clientAddress, now);
    if (lock) return { ok: false, retryAfterSeconds: lock.retryAfterSeconds };
    const client = await this.caches.tokens.fetch(token, now, async () => (await this.store.findProvisioningClientByTokenHash(this.#hash(token)))?.name ?? null);
    if (client !== null) return { ok: true, client };
    await this.throttle.failure(clientAddress, this.clock());
    return { ok: false, retryAfterSeconds: null };
  }

  #hash(token: string): string {
    return this.secrets.hash('provisioning-token', token);
  }

  #forget(): void {
    this.caches.tokens.clear();
    this.caches.exists.clear();
  }
}
