import { StoreConflictError, type Store } from './store.js';

/** A store method's name: the `operation` label of store_errors_total. */
export type StoreOperation = { [K in keyof Store]: Store[K] extends (...args: never[]) => unknown ? K : never }[keyof Store];

/** Who hears of the store's calls: every failure, and every success (which tells that a failed operation works again). */
export interface StoreObserver {
  failed(operation: StoreOperation, error: unknown): void;
  succeeded(operation: StoreOperation): void;
}

/**
 * The same store, reporting every call's end to the observer before the result or the failure goes on to its
 * caller as it was. A conflict (a name or id already taken, a member changed since it was read) is an answer, not
 * a failure, and is reported as a success. Methods run on the store itself, so that implementations with private
 * fields work unchanged. The proxy's target is an empty object with the store's prototype (instanceof still
 * holds), so that no invariant of a frozen or non-configurable property stops it from handing out its wrappers.
 */
export function instrumentStore<S extends Store>(store: S, observer: StoreObserver): S {
  // Observing must never replace the store's own result or error.
  const report = (operation: StoreOperation, error?: unknown) => {
    try {
      if (error === undefined || error instanceof StoreConflictError) observer.succeeded(operation);
      else observer.failed(operation, error);
    } catch {
      // Nothing: the call's own outcome goes on.
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
        if (!(result instanceof Promise)) {
          report(operation);
          return result;
        }
        return result.then(
          (value: unknown) => {
            report(operation);
            return value;
          },
          (error: unknown) => {
            report(operation, error);
            throw error;
          },
        );
      };
      wrappers.set(property, { original: value, wrapper });
      return wrapper;
    },
  });
}
