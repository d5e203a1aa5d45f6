import { generateKeyPair, randomBytes, type JsonWebKey } from 'node:crypto';
import { promisify } from 'node:util';
import type { OidcKeyRow, Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { Secrets } from '../secrets.js';
import type { ShortLivedCache } from '../short-lived-cache.js';

const generateRsaKeyPair = promisify(generateKeyPair);

/** ID tokens are signed with RS256, which every relying party's library verifies. */
const SIGNING_ALGORITHM = 'RS256';
const MODULUS_BITS = 2048;

/** A private signing key as the provider takes it: a JWK with its kid. */
export type SigningJwk = JsonWebKey & { kid: string; alg: string; use: 'sig' };

/** A key as the admin CLI lists it: never its private part. */
export interface OidcKeyInfo {
  kid: string;
  createdAt: number;
  retiredAt: number | null;
}

/**
 * The provider's signing keys, generated here and kept sealed under the server key. One key signs; after a
 * rotation the retired ones stay published (in the JWKS) for as long as the tokens they signed may be checked.
 * The provider asks for them on every request: they are read from the store at most once per CACHE_TTL_MS
 * (`cache`), so that a rotation on another instance or through the admin CLI is seen within that time.
 */
export class OidcKeyService {
  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly cache: ShortLivedCache<OidcKeyRow[]>,
  ) {}

  /**
   * The keys to publish, the one that signs first: the newest key not retired, then the keys retired less than
   * `keepRetiredMs` ago. The first key is made here when there is none. Two instances
   * making it at once leave two unretired keys: both publish both, and both sign with the same one.
   */
  async signingKeys(keepRetiredMs: number): Promise<SigningJwk[]> {
    if (!(await this.#rows()).some((key) => key.retiredAt === null)) {
      await this.store.addFirstOidcKey(await this.#newKey());
      this.cache.clear();
    }
    const retiredSince = this.clock() - keepRetiredMs;
    // In the store's order, the signing key first: the provider signs with the first key of the set.
    const keys = (await this.#rows()).filter((key) => key.retiredAt === null || key.retiredAt > retiredSince);
    return keys.flatMap((key) => {
      const jwk = this.secrets.unseal(key.privateJwkSealed);
      return jwk === null ? [] : [{ ...(JSON.parse(jwk) as JsonWebKey), kid: key.kid, alg: SIGNING_ALGORITHM, use: 'sig' as const }];
    });
  }

  /** A new signing key; the one it replaces stays published until its tokens expire. */
  async rotate(): Promise<OidcKeyInfo> {
    const key = await this.#newKey();
    await this.store.rotateOidcKeys(key);
    this.cache.clear();
    return { kid: key.kid, createdAt: key.createdAt, retiredAt: null };
  }

  async list(): Promise<OidcKeyInfo[]> {
    return (await this.store.listOidcKeys()).map(({ kid, createdAt, retiredAt }) => ({ kid, createdAt, retiredAt }));
  }

  async #rows(): Promise<OidcKeyRow[]> {
    return (await this.cache.fetch('keys', this.clock(), () => this.store.listOidcKeys())) ?? [];
  }

  async #newKey(): Promise<OidcKeyRow> {
    const { privateKey } = await generateRsaKeyPair('rsa', { modulusLength: MODULUS_BITS });
    return {
      kid: randomBytes(12).toString('base64url'),
      privateJwkSealed: this.secrets.seal(JSON.stringify(privateKey.export({ format: 'jwk' }))),
      createdAt: this.clock(),
      retiredAt: null,
    };
  }
}
