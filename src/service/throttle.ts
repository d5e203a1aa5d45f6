import type { Store } from '../store/store.js';
import type { CallRead } from './call-read.js';
import { ShortLivedCache } from './short-lived-cache.js';

export interface ThrottleRule {
  /** Key prefix, e.g. 'account' or 'address': keys are `<prefix>:<value>`. */
  prefix: string;
  /** Failures within the window that lock the key. */
  maxFailures: number;
  windowSeconds: number;
  lockoutSeconds: number;
}

export interface ThrottleLock {
  retryAfterSeconds: number;
}

/**
 * Counts failures per key in the store, so that the count survives a restart and every instance sharing the
 * store sees the same one. Reusable for anything counted per key (sign-in per account or address, caller
 * passwords per address). A key's lock state may be cached (`cache`, none by default): a lock set by another
 * instance then holds here within the cache's time; this instance's own failures are seen at once.
 */
export class KeyedThrottle {
  constructor(
    private readonly store: Store,
    private readonly rule: ThrottleRule,
    private readonly cache = new ShortLivedCache<{ lockedUntil: number | null }>(0),
  ) {}

  /** Asks the call's one read (`read`) for this value's state, unless the cache holds it at `now`. */
  ask(value: string, now: number, read: CallRead): void {
    const key = this.#key(value);
    if (this.cache.get(key, now) === undefined) read.askThrottle(key, this.cache.generation);
  }

  /** The lock on this value at `now`, or null; read by the call's one read when it was asked for there (ask). */
  async check(value: string, now: number, read?: CallRead): Promise<ThrottleLock | null> {
    const key = this.#key(value);
    const state = await this.cache.fetch(key, now, async () => {
      const asked = await read?.part('throttle', this.cache.generation);
      const row = asked !== undefined ? asked : await this.store.getThrottle(key);
      return { lockedUntil: row?.lockedUntil ?? null };
    });
    return lockAt(state?.lockedUntil ?? null, now);
  }

  /** Counts a failure and locks the key when it reaches the threshold; returns the lock in force afterwards. */
  async failure(value: string, now: number): Promise<ThrottleLock | null> {
    const key = this.#key(value);
    try {
      const row = await this.store.recordFailure(key, now, this.rule.windowSeconds * 1000);
      const current = lockAt(row.lockedUntil, now);
      if (current || row.failures < this.rule.maxFailures) return current;
      const until = now + this.rule.lockoutSeconds * 1000;
      await this.store.lockThrottle(key, until);
      return lockAt(until, now);
    } finally {
      // After the writes, so that a check that read the key while they ran does not keep what it read.
      this.cache.delete(key);
    }
  }

  async clear(value: string): Promise<void> {
    await this.store.clearThrottle(this.#key(value));
    this.cache.delete(this.#key(value));
  }

  #key(value: string): string {
    return `${this.rule.prefix}:${value}`;
  }
}

/** Failed security passwords from one client address, within the window, that lock that address. */
export interface CallerThrottlePolicy {
  maxFailures: number;
  windowSeconds: number;
  lockoutSeconds: number;
}

/** Failed security passwords per client address: keys `caller-address:<address>` (AuthenticationService). */
export function callerAddressThrottle(store: Store, policy: CallerThrottlePolicy, cache: ShortLivedCache<{ lockedUntil: number | null }>): KeyedThrottle {
  return new KeyedThrottle(store, { prefix: 'caller-address', ...policy }, cache);
}

/**
 * Wrong SCIM bearer tokens per client address, under the callers' policy: keys `provisioning-address:<address>`
 * (ProvisioningClientService). Counted apart from the callers' so that an identity provider with a stale token
 * does not lock partner sites out that share its address, nor the reverse.
 */
export function provisioningAddressThrottle(store: Store, policy: CallerThrottlePolicy, cache: ShortLivedCache<{ lockedUntil: number | null }>): KeyedThrottle {
  return new KeyedThrottle(store, { prefix: 'provisioning-address', ...policy }, cache);
}

function lockAt(lockedUntil: number | null, now: number): ThrottleLock | null {
  return lockedUntil !== null && lockedUntil > now ? { retryAfterSeconds: Math.ceil((lockedUntil - now) / 1000) } : null;
}

/** The longer of two locks; null when neither is in force. */
function longer(a: ThrottleLock | null, b: ThrottleLock | null): ThrottleLock | null {
  if (!a || !b) return a ?? b;
  return a.retryAfterSeconds >= b.retryAfterSeconds ? a : b;
}

export interface SignInThrottlePolicy {
  accountFailures: number;
  addressFailures: number;
  windowSeconds: number;
  lockoutSeconds: number;
}

/** The key prefixes of a SignInThrottle's two counts. */
export interface LoginThrottleKeys {
  account: string;
  address: string;
}

/**
 * Sign-in failures per account and per client address. The account key is the login as typed (lower-cased),
 * not the member: unknown logins lock exactly like real ones, so the lock reveals nothing. `keys` name the
 * counts: sign-in's own unless given (password recovery counts its requests under keys of its own, so that
 * asking for links never locks a member's sign-in).
 */
export class SignInThrottle {
  readonly #account: KeyedThrottle;
  readonly #address: KeyedThrottle;

  constructor(store: Store, policy: SignInThrottlePolicy, keys: LoginThrottleKeys = { account: 'account', address: 'address' }) {
    const timing = { windowSeconds: policy.windowSeconds, lockoutSeconds: policy.lockoutSeconds };
    this.#account = new KeyedThrottle(store, { prefix: keys.account, maxFailures: policy.accountFailures, ...timing });
    this.#address = new KeyedThrottle(store, { prefix: keys.address, maxFailures: policy.addressFailures, ...timing });
  }

  async check(login: string, address: string, now: number): Promise<ThrottleLock | null> {
    const [account, byAddress] = await Promise.all([this.#account.check(accountKey(login), now), this.#address.check(address, now)]);
    return longer(account, byAddress);
  }

  async failure(login: string, address: string, now: number): Promise<ThrottleLock | null> {
    const [account, byAddress] = await Promise.all([this.#account.failure(accountKey(login), now), this.#address.failure(address, now)]);
    return longer(account, byAddress);
  }

  /** Clears the account only: one good password must not wipe out an address's failures on other accounts. */
  success(login: string): Promise<void> {
    return this.#account.clear(accountKey(login));
  }
}

function accountKey(login: string): string {
  return login.trim().toLowerCase();
}
