/** instrumentStore: failures are counted per method and go on to the caller unchanged; nothing else changes. */
import { instrumentStore, type StoreOperation } from '../../src/store/instrumented.js';
import { StoreConflictError } from '../../src/store/store.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

function recorder() {
  const failures: Array<[StoreOperation, unknown]> = [];
  return { failures, onError: (operation: StoreOperation, error: unknown) => failures.push([operation, error]) };
}

describe('over the SQLite store (a class with private fields)', () => {
  it('passes calls and results through, and counts nothing while all is well', async () => {
    const temp = await tempSqliteStore();
    const { failures, onError } = recorder();
    const store = instrumentStore(temp.store, onError);
    try {
      const caller = await store.createCaller('portal', 1000);
      expect(await store.getCallerByName('portal')).toEqual(caller);
      await store.ping();
      expect(await store.purgeThrottles(Date.now())).toBe(0);
      expect(store.getMember).toBe(store.getMember); // one wrapper per method
      expect(failures).toEqual([]);
    } finally {
      await temp.cleanup();
    }
  });

  it('counts a failing method by name and rethrows the very same error', async () => {
    const temp = await tempSqliteStore();
    const { failures, onError } = recorder();
    const store = instrumentStore(temp.store, onError);
    await temp.cleanup(); // the database is closed: every query fails
    const error = await store.getMember('m1').catch((e: unknown) => e);
    expect(error).toHaveProperty('message', expect.stringMatching(/not open/));
    await expect(store.ping()).rejects.toThrow();
    expect(failures[0]?.[1]).toBe(error);
    expect(failures).toEqual([
      ['getMember', error],
      ['ping', expect.objectContaining({ message: expect.stringMatching(/not open/) })],
    ]);
  });

  it('does not count a conflict (a name already taken is an answer, not a failure)', async () => {
    const temp = await tempSqliteStore();
    const { failures, onError } = recorder();
    const store = instrumentStore(temp.store, onError);
    try {
      await store.createCaller('portal', 1000);
      await expect(store.createCaller('portal', 2000)).rejects.toBeInstanceOf(StoreConflictError);
      expect(failures).toEqual([]);
    } finally {
      await temp.cleanup();
    }
  });
});

it('counts a synchronous throw too, and an onError that throws never replaces the store error', async () => {
  const temp = await tempSqliteStore();
  try {
    const broken = Object.create(temp.store) as typeof temp.store;
    const boom = new Error('sync boom');
    // Non-writable and non-configurable, as on a frozen object: the proxy must still wrap it.
    Object.defineProperty(broken, 'listCallers', {
      value: () => {
        throw boom;
      },
    });
    const seen: StoreOperation[] = [];
    const store = instrumentStore(broken, (operation) => {
      seen.push(operation);
      throw new Error('counter broke');
    });
    expect(() => store.listCallers()).toThrow(boom);
    expect(seen).toEqual(['listCallers']);
  } finally {
    await temp.cleanup();
  }
});
