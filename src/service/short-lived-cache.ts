/**
 * Store answers kept for at most `ttlMs`, so that a partner calling many times a second costs one store round
 * trip per second rather than one per call. What changes elsewhere (a caller disabled through the admin CLI,
 * a session revoked on another instance) is seen here within ttlMs; the services clear the cache themselves
 * when they make a change, so this instance sees its own changes at once. ttlMs 0 keeps nothing.
 *
 * It holds at most maxEntries answers; past that the oldest goes first, so that keys an attacker invents (new
 * client addresses) cannot grow it. Only answers worth keeping are put in: found callers and sessions, and
 * throttle states, never a miss on a secret that anyone could make up.
 *
 * Keys may be the secrets themselves (a security password, a token): hashing them first is the costliest
 * step of a call, and the process holds each request's secrets anyway. A key is kept only while the store's
 * answer for it is, and never leaves the process: nothing logs or lists the cache.
 */
export interface CacheLookups {
  hits: number;
  misses: number;
}

export class ShortLivedCache<V> {
  readonly #entries = new Map<string, { value: V; fetchedAt: number }>();
  /** Lookups answered from the cache, and those that went to the store (metrics read both). */
  #hits = 0;
  #misses = 0;
  /** Moves on at every delete and clear, so that a fetch that began before one is not kept after it. */
  #generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The value fetched under this key less than ttlMs before `now`, or undefined. */
  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // A clock that went back is treated as expiry too: the entry's age is unknown.
    if (now - entry.fetchedAt < this.ttlMs && now >= entry.fetchedAt) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /**
   * The cached value, or what `load` fetches, kept unless it is null. `now` is taken before the fetch, so that
   * the age of what is kept is never understated.
   */
  async fetch(key: string, now: number, load: () => Promise<V | null>): Promise<V | null> {
    const cached = this.get(key, now);
    if (cached !== undefined) {
      this.#hits += 1;
      return cached;
    }
    this.#misses += 1;
    const generation = this.#generation;
    const value = await load();
    if (value !== null && generation === this.#generation) this.#set(key, value, now);
    return value;
  }

  #set(key: string, value: V, now: number): void {
    if (this.ttlMs <= 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, fetchedAt: now });
  }

  delete(key: string): void {
    this.#generation += 1;
    this.#entries.delete(key);
  }

  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
  }

  /**
   * Moves on at every delete and clear: a value read for this cache while it stays the same may be kept (a call's
   * one read, src/service/call-read.ts, is taken only at the generation its part was asked for).
   */
  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** How many fetches were answered from the cache and how many loaded, since the cache was made. */
  get lookups(): CacheLookups {
    return { hits: this.#hits, misses: this.#misses };
  }
}
