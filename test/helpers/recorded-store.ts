import type { Store } from '../../src/store/store.js';

/** The store, with the name of every method called pushed onto `calls`: what a service read and wrote. */
export function recorded(target: Store, calls: string[]): Store {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}
