import type { CallReadQuery, CallReadRow, Store } from '../store/store.js';

/** A part of a partner call's read: the throttle state, the caller, the session. */
type Part = keyof CallReadRow;

/**
 * The store reads of one partner call, made as one statement (Store.readCall): before the call reads anything,
 * each service whose cache does not hold its part asks for it (the throttle state of the caller's address, the
 * caller of the security password, the session), and the first part the call then needs reads them all.
 *
 * A service takes its part from that read only while its cache is at the generation it was when the part was
 * asked for (ShortLivedCache.generation): a cache cleared in between, by a change made here, has its service read
 * the part again, alone, so that nothing read before a change is kept after it. A part not asked for (its cache
 * held it, then lost it) is read alone too.
 */
export class CallRead {
  readonly #query: CallReadQuery = { throttleKey: null, callerPasswordHash: null, session: null };
  readonly #asked = new Map<Part, number>();
  #row: Promise<CallReadRow> | undefined;

  constructor(private readonly store: Store) {}

  askThrottle(key: string, generation: number): void {
    if (this.#ask('throttle', generation)) this.#query.throttleKey = key;
  }

  askCaller(passwordHash: string, generation: number): void {
    if (this.#ask('caller', generation)) this.#query.callerPasswordHash = passwordHash;
  }

  askSession(session: NonNullable<CallReadQuery['session']>, generation: number): void {
    if (this.#ask('session', generation)) this.#query.session = session;
  }

  /**
   * The part as the call's read brought it (null: not found), or undefined when its service must read it alone:
   * not asked for, or its cache's generation has moved on since.
   */
  async part<P extends Part>(part: P, generation: number): Promise<CallReadRow[P] | undefined> {
    if (this.#asked.get(part) !== generation) return undefined;
    this.#row ??= this.store.readCall(this.#query);
    return (await this.#row)[part];
  }

  /** Whether the part can still be read with the others: not once the read has begun (its service then reads it alone). */
  #ask(part: Part, generation: number): boolean {
    if (this.#row !== undefined) return false;
    this.#asked.set(part, generation);
    return true;
  }
}
