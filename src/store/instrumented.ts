import { StoreConflictError, type Store } from './store.js';

/** A store method's name: the `operation` label of store_errors_total. */
export type StoreOperation = { [K in keyof Store]: Store[K] extends (...args: never[]) => unknown ? K : never }[keyof Store];

/**
 * The same store, reporting every failed operation to onError before the failure goes on to its caller as it
 * was. A conflict (a name or id already taken) is an answer, not a failure, and is not reported. Methods run
 * on the store itself, so that implementations with private fields work unchanged. The proxy's target is an
 * empty object with the store's prototype (instanceof still holds), so that no invariant of a frozen or
 * non-configurable property stops it from handing out its wrappers.
 */
export function instrumentStore<S extends Store>(store: S, onError: (operation: StoreOperation, error: unknown) => void): S {
  const report = (operation: StoreOperation, error: unknown) => {
    if (error instanceof StoreConflictError) return;
    try {
      onError(operation, error);
    } catch {
      // Counting must never replace the store's own error.
    }
  };
  const wrappers = new Map<string, { original: unknown; wrapper: (...args: unknown[]) => unknown }>();
  const target = store;
  return new Proxy(Object.create(Object.getPrototypeOf(store) as object | null) as S, {
    get(_shell, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const cached = wrappers.get(property);
      if (cached?.original === value) return cached.wrapper;
      const operation = property as StoreOperation;
      const method = value as (...args: unknown[]) => unknown;
      const wrapper = (...args: unknown[]): unknown => {
        let result: unknown;
        try {
          result = Reflect.apply(method, target, args);
        } catch (error) {
          report(operation, error);
          throw error;
        }
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            report(operation, error);
            throw error;
          });
        }
        return result;
      };
      wrappers.set(property, { original: value, wrapper });
      return wrapper;
    },
  });
}
