import { randomBytes, timingSafeEqual } from 'node:crypto';
import { StoreConflictError, type OidcClientRow, type Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { CLI_ACTOR, type EventContext, type EventService } from '../events.js';
import { randomSecret, type Secrets } from '../secrets.js';
import type { ShortLivedCache } from '../short-lived-cache.js';

/** What registering a client takes; the URIs are kept exactly as given (the provider matches them exactly). */
export interface OidcClientInput {
  redirectUris: readonly string[];
  postLogoutRedirectUris?: readonly string[];
  backchannelLogoutUri?: string | undefined;
  /** A public client (a single-page or native app) has no secret and must use PKCE. */
  public?: boolean;
  firstParty?: boolean;
}

export interface IssuedOidcClient {
  client: OidcClientRow;
  /** Shown once: only its hash is stored. Null for a public client. */
  secret: string | null;
}

const MAX_URI_LENGTH = 2048;

/**
 * Why a client's URI (redirect, post-logout redirect, back-channel logout) cannot be registered, or null: it
 * must be an absolute http(s) URL without a fragment or credentials, as OpenID Connect registration requires.
 * Callers (the admin CLI) check first, to explain it.
 */
export function clientUriProblem(uri: string): string | null {
  const url = URL.canParse(uri) ? new URL(uri) : null;
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) return 'must be an absolute http(s) URL';
  if (uri.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not hold a user name or password';
  if (uri.length > MAX_URI_LENGTH) return `must be at most ${MAX_URI_LENGTH} characters`;
  return null;
}

/**
 * The relying parties the OpenID provider serves, registered by the admin. Their secrets are stored as keyed
 * hashes, as callers' passwords are: the provider checks a presented secret through secretMatches. Whether any
 * client is registered (the provider is off until one is) is cached for CACHE_TTL_MS, and forgotten here on a change.
 */
export class OidcClientService {
  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly registered: ShortLivedCache<boolean>,
    private readonly events: EventService,
  ) {}

  /**
   * The client with its secret; OIDC_CLIENT_EXISTS when a client has this name already. Recorded as site-added,
   * by whoever `by` says (the CLI's unless told); the secret is shown once, never recorded.
   */
  async add(name: string, input: OidcClientInput, by: EventContext = { actor: CLI_ACTOR }): Promise<IssuedOidcClient> {
    const secret = input.public ? null : randomSecret();
    const client: OidcClientRow = {
      id: randomBytes(16).toString('base64url'),
      name,
      secretHash: secret === null ? null : this.#hash(secret),
      firstParty: input.firstParty ?? false,
      redirectUris: checkedUris(input.redirectUris),
      postLogoutRedirectUris: checkedUris(input.postLogoutRedirectUris ?? []),
      backchannelLogoutUri: input.backchannelLogoutUri === undefined ? null : (checkedUris([input.backchannelLogoutUri])[0] ?? null),
      createdAt: this.clock(),
    };
    if (client.redirectUris.length === 0) throw new ServiceError('OIDC_CLIENT_INVALID', 'it needs a redirect URI');
    try {
      await this.store.createOidcClient(client);
    } catch (error) {
      if (error instanceof StoreConflictError) throw new ServiceError('OIDC_CLIENT_EXISTS', name);
      throw error;
    }
    this.registered.clear();
    this.events.record({ ...by, type: 'site-added', via: name, outcome: 'oidc-client' });
    return { client, secret };
  }

  list(): Promise<OidcClientRow[]> {
    return this.store.listOidcClients();
  }

  /** The client with this name; OIDC_CLIENT_NOT_FOUND when there is none. */
  async get(name: string): Promise<OidcClientRow> {
    const client = await this.store.getOidcClientByName(name);
    if (client === null) throw new ServiceError('OIDC_CLIENT_NOT_FOUND', name);
    return client;
  }

  /** The client with this client_id, or null (the provider's lookups). */
  find(id: string): Promise<OidcClientRow | null> {
    return this.store.getOidcClient(id);
  }

  /** A new secret in place of the old one, which stops working at once; OIDC_CLIENT_PUBLIC for a public client. */
  async rotate(name: string, by: EventContext = { actor: CLI_ACTOR }): Promise<IssuedOidcClient> {
    const client = await this.get(name);
    if (client.secretHash === null) throw new ServiceError('OIDC_CLIENT_PUBLIC', name);
    const secret = randomSecret();
    const secretHash = this.#hash(secret);
    await this.store.setOidcClientSecret(client.id, secretHash);
    this.events.record({ ...by, type: 'site-changed', via: name, outcome: 'oidc-client', reason: 'new-secret' });
    return { client: { ...client, secretHash }, secret };
  }

  async remove(name: string, by: EventContext = { actor: CLI_ACTOR }): Promise<void> {
    const client = await this.get(name);
    await this.store.deleteOidcClient(client.id);
    this.registered.clear();
    this.events.record({ ...by, type: 'site-removed', via: name, outcome: 'oidc-client' });
  }

  /** Whether any client is registered. */
  async any(): Promise<boolean> {
    return (await this.registered.fetch('any', this.clock(), () => this.store.hasOidcClients())) ?? false;
  }

  /** Whether `given` is the secret whose hash the client holds, compared in constant time. */
  secretMatches(secretHash: string, given: string): boolean {
    const expected = Buffer.from(secretHash);
    const actual = Buffer.from(this.#hash(given));
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  #hash(secret: string): string {
    return this.secrets.hash('oidc-client-secret', secret);
  }
}

/** The URIs, each once; OIDC_CLIENT_INVALID names the first that cannot be registered (the admin CLI checks them first, by option). */
function checkedUris(uris: readonly string[]): string[] {
  for (const uri of uris) {
    const problem = clientUriProblem(uri);
    if (problem !== null) throw new ServiceError('OIDC_CLIENT_INVALID', `${uri} ${problem}`);
  }
  return [...new Set(uris)];
}
