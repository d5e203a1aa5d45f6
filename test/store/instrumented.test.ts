/**
 * instrumentStore: failures and successes are reported per method, and the results and failures go on to the
 * caller unchanged; nothing else changes.
 */
import { instrumentStore, type StoreObserver, type StoreOperation } from '../../src/store/instrumented.js';
import { StoreConflictError } from '../../src/store/store.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

function recorder(): { failures: Array<[StoreOperation, unknown]>; successes: StoreOperation[]; onError: StoreObserver } {
  const failures: Array<[StoreOperation, unknown]> = [];
  const successes: StoreOperation[] = [];
  return {
    failures,
    successes,
    onError: { failed: (operation, error) => failures.push([operation, error]), succeeded: (operation) => successes.push(operation) },
  };
}

describe('over the SQLite store (a class with private fields)', () => {
  it('passes calls and results through, and reports each as a success while all is well', async () => {
    const temp = await tempSqliteStore();
    const { failures, successes, onError } = recorder();
    const store = instrumentStore(temp.store, onError);
    try {
      const caller = await store.createCaller('portal', 1000);
      expect(await store.getCallerByName('portal')).toEqual(caller);
      await store.ping();
      expect(await store.purgeThrottles(Date.now())).toBe(0);
      expect(store.getMember).toBe(store.getMember); // one wrapper per method
      expect(failures).toEqual([]);
      expect(successes).toEqual(['createCaller', 'getCallerByName', 'ping', 'purgeThrottles']);
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
    const { failures, successes, onError } = recorder();
    const store = instrumentStore(temp.store, onError);
    try {
      await store.createCaller('portal', 1000);
      await expect(store.createCaller('portal', 2000)).rejects.toBeInstanceOf(StoreConflictError);
      expect(failures).toEqual([]);
      expect(successes).toEqual(['createCaller', 'createCaller']);
    } finally {
      await temp.cleanup();
    }
  });
});

it('counts a synchronous throw too, and an observer that throws never replaces the store error', async () => {
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
    const store = instrumentStore(broken, {
      failed: (operation) => {
        seen.push(operation);
        throw new Error('counter broke');
      },
      succeeded: () => {
        throw new Error('counter broke');
      },
    });
    expect(() => store.listCallers()).toThrow(boom);
    expect(seen).toEqual(['listCallers']);
    await expect(store.ping()).resolves.toBeUndefined();
  } finally {
    await temp.cleanup();
  }
});
