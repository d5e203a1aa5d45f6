/**
 * Runs the calls given for one key one after another, in the order they came, and those of different keys side by
 * side. SCIM's writes of one member go through it, so that two requests changing one member on this instance never
 * race each other: on SQLite, whose calls do not yield between a write's read and its write, they never did; on
 * PostgreSQL, where every call waits for the database, they did, and all but one of them found the member changed.
 */
export type OneAtATime = <T>(key: string, work: () => Promise<T>) => Promise<T>;

export function oneAtATime(): OneAtATime {
  /** The last call queued per key, settled or not; a key leaves the map when its last call settles. */
  const tails = new Map<string, Promise<unknown>>();
  return (key, work) => {
    const result = (tails.get(key) ?? Promise.resolve()).then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
}
