import { randomBytes, X509Certificate } from 'node:crypto';
import type { SamlKeyRow, Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import type { Secrets } from '../secrets.js';
import type { ShortLivedCache } from '../short-lived-cache.js';
import { selfSignedKey } from './certificate.js';

export type SamlKeyState = 'current' | 'next' | 'retired';

/** A key as the admin CLI lists it: never its private part. */
export interface SamlKeyInfo {
  kid: string;
  state: SamlKeyState;
  createdAt: number;
  activatedAt: number | null;
  retiredAt: number | null;
  /** When its certificate expires. */
  notAfter: number;
  /** Its certificate's SHA-256 fingerprint (AB:CD:…), as SPs that pin the certificate show it. */
  sha256Fingerprint: string;
}

/** The key that signs, with its certificate. */
export interface SamlSigningKey {
  kid: string;
  privateKeyPem: string;
  certificatePem: string;
}

/** A certificate to publish in the metadata. */
export interface SamlPublishedKey {
  kid: string;
  certificatePem: string;
  state: 'current' | 'next';
}

/**
 * The identity provider's signing keys, generated here, kept sealed under the server key, each with a self-signed
 * certificate for `host` (PUBLIC_URL's). One key signs (current); `rotate` publishes the next beside it, so that
 * SPs that read the metadata take its certificate in before `activate` makes it sign and retires the current.
 * Keys are read from the store at most once per CACHE_TTL_MS (`cache`), so that a change through the admin CLI or
 * on another instance is seen within that time.
 */
export class SamlKeyService {
  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly host: string,
    private readonly cache: ShortLivedCache<SamlKeyRow[]>,
  ) {}

  /** The key that signs: the current key, made here when there is none (of two instances making it at once, one adds it). */
  async signing(): Promise<SamlSigningKey> {
    const key = (await this.#withCurrent()).find((row) => stateOf(row) === 'current');
    const privateKeyPem = key && this.secrets.unseal(key.privateKeySealed);
    // A key sealed under another server key: the store's setting check (SECRET_KEY_MISMATCH) refuses that at start.
    if (!key || !privateKeyPem) throw new Error('the SAML signing key cannot be unsealed with this server key');
    return { kid: key.kid, privateKeyPem, certificatePem: key.certificate };
  }

  /** The certificates to publish: the current key's, then the next key's, if any. */
  async published(): Promise<SamlPublishedKey[]> {
    return (await this.#withCurrent()).flatMap((row) => {
      const state = stateOf(row);
      return state === 'retired' ? [] : [{ kid: row.kid, certificatePem: row.certificate, state }];
    });
  }

  /** Publishes a new key beside the current one (making a current one first when there is none); SAML_KEY_PENDING when a next key is published already. */
  async rotate(): Promise<SamlKeyInfo> {
    await this.#withCurrent();
    const key = await this.#newKey();
    if (!(await this.store.addNextSamlKey(key))) throw new ServiceError('SAML_KEY_PENDING');
    this.cache.clear();
    return info(key);
  }

  /** The next key signs from now on and the current one is retired; SAML_KEY_NOT_PENDING when no next key is published. */
  async activate(): Promise<SamlKeyInfo> {
    const kid = await this.store.activateNextSamlKey(this.clock());
    this.cache.clear();
    const key = kid === null ? undefined : (await this.store.listSamlKeys()).find((row) => row.kid === kid);
    if (!key) throw new ServiceError('SAML_KEY_NOT_PENDING');
    return info(key);
  }

  async list(): Promise<SamlKeyInfo[]> {
    return (await this.store.listSamlKeys()).map(info);
  }

  /** The keys, in the store's order (current, next, retired), with a current one made first when there is none. */
  async #withCurrent(): Promise<SamlKeyRow[]> {
    if (!(await this.#rows()).some((row) => stateOf(row) === 'current')) {
      await this.store.addFirstSamlKey(await this.#newKey());
      this.cache.clear();
    }
    return this.#rows();
  }

  async #rows(): Promise<SamlKeyRow[]> {
    return (await this.cache.fetch('keys', this.clock(), () => this.store.listSamlKeys())) ?? [];
  }

  async #newKey(): Promise<SamlKeyRow> {
    const createdAt = this.clock();
    const { privateKeyPem, certificatePem } = await selfSignedKey(this.host, createdAt);
    return {
      kid: randomBytes(12).toString('base64url'),
      privateKeySealed: this.secrets.seal(privateKeyPem),
      certificate: certificatePem,
      createdAt,
      activatedAt: null,
      retiredAt: null,
    };
  }
}

function stateOf(row: SamlKeyRow): SamlKeyState {
  if (row.retiredAt !== null) return 'retired';
  return row.activatedAt === null ? 'next' : 'current';
}

function info(row: SamlKeyRow): SamlKeyInfo {
  const certificate = new X509Certificate(row.certificate);
  return {
    kid: row.kid,
    state: stateOf(row),
    createdAt: row.createdAt,
    activatedAt: row.activatedAt,
    retiredAt: row.retiredAt,
    notAfter: Date.parse(certificate.validTo),
    sha256Fingerprint: certificate.fingerprint256,
  };
}
