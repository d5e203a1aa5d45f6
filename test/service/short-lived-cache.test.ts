import { ShortLivedCache } from '../../src/service/short-lived-cache.js';

/** A load that counts its calls and answers `value`. */
function loader<V>(value: V | null) {
  const calls: string[] = [];
  return { calls, load: (key: string) => async () => (calls.push(key), value) };
}

describe('ShortLivedCache', () => {
  it('answers from the cache for less than ttlMs after the fetch, then fetches again', async () => {
    const cache = new ShortLivedCache<string>(1000);
    const { calls, load } = loader('row');
    await expect(cache.fetch('k', 0, load('k'))).resolves.toBe('row');
    await expect(cache.fetch('k', 999, load('k'))).resolves.toBe('row');
    expect(calls).toEqual(['k']);
    await expect(cache.fetch('k', 1000, load('k'))).resolves.toBe('row');
    expect(calls).toEqual(['k', 'k']);
  });

  it('keeps nothing with ttlMs 0', async () => {
    const cache = new ShortLivedCache<string>(0);
    const { calls, load } = loader('row');
    await cache.fetch('k', 0, load('k'));
    await cache.fetch('k', 0, load('k'));
    expect(calls).toEqual(['k', 'k']);
    expect(cache.size).toBe(0);
  });

  it('never keeps a miss', async () => {
    const cache = new ShortLivedCache<string>(1000);
    const { calls, load } = loader<string>(null);
    await expect(cache.fetch('k', 0, load('k'))).resolves.toBeNull();
    await expect(cache.fetch('k', 1, load('k'))).resolves.toBeNull();
    expect(calls).toEqual(['k', 'k']);
  });

  it('treats a clock that went back as expiry', async () => {
    const cache = new ShortLivedCache<string>(1000);
    const { calls, load } = loader('row');
    await cache.fetch('k', 5000, load('k'));
    await cache.fetch('k', 4000, load('k'));
    expect(calls).toEqual(['k', 'k']);
  });

  it('holds at most maxEntries, dropping the oldest first', async () => {
    const cache = new ShortLivedCache<string>(1000, 2);
    const { calls, load } = loader('row');
    for (const key of ['a', 'b', 'c']) await cache.fetch(key, 0, load(key));
    expect(cache.size).toBe(2);
    await cache.fetch('b', 1, load('b'));
    await cache.fetch('c', 1, load('c'));
    await cache.fetch('a', 1, load('a'));
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });

  it('forgets a key on delete and everything on clear', async () => {
    const cache = new ShortLivedCache<string>(1000);
    const { calls, load } = loader('row');
    for (const key of ['a', 'b']) await cache.fetch(key, 0, load(key));
    cache.delete('a');
    await cache.fetch('a', 1, load('a'));
    await cache.fetch('b', 1, load('b'));
    cache.clear();
    await cache.fetch('b', 2, load('b'));
    expect(calls).toEqual(['a', 'b', 'a', 'b']);
  });

  it('does not keep what a fetch read when a delete or clear happened while it ran', async () => {
    for (const forget of [(cache: ShortLivedCache<string>) => cache.delete('k'), (cache: ShortLivedCache<string>) => cache.clear()]) {
      const cache = new ShortLivedCache<string>(1000);
      let release: (value: string) => void = () => undefined;
      const pending = cache.fetch('k', 0, () => new Promise<string>((resolve) => (release = resolve)));
      forget(cache);
      release('stale');
      await expect(pending).resolves.toBe('stale');
      const { calls, load } = loader('fresh');
      await expect(cache.fetch('k', 1, load('k'))).resolves.toBe('fresh');
      expect(calls).toEqual(['k']);
    }
  });
});
