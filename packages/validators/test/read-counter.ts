// Counts the work a validator does on a value without reading a clock: every read of a member of
// an object or array (however deep) goes through a proxy that counts it. A linear pass reads each
// member a bounded number of times; a pairwise one reads it once per other member.

export interface ReadCounter {
  /** Wraps a value so that reads of its members, and of their members, are counted. */
  wrap<T>(value: T): T;
  /** Reads counted so far. */
  readonly reads: number;
}

export function readCounter(): ReadCounter {
  const proxies = new WeakMap<object, object>();
  let reads = 0;
  const wrap = <T>(value: T): T => {
    if (typeof value !== "object" || value === null) return value;
    const known = proxies.get(value);
    if (known) return known as T;
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        reads++;
        return wrap(Reflect.get(target, key, receiver));
      },
      has(target, key) {
        reads++;
        return Reflect.has(target, key);
      },
      ownKeys(target) {
        reads++;
        return Reflect.ownKeys(target);
      },
      getOwnPropertyDescriptor(target, key) {
        reads++;
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
    });
    proxies.set(value, proxy);
    return proxy as T;
  };
  return {
    wrap,
    get reads() {
      return reads;
    },
  };
}
