/** Small promise helpers the store and the owners of its side tables share. */

/** A function that runs the calls given to it one after another, in call order (each after the previous settled). */
export function serialQueue(): <T>(fn: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };
}

/** `fn`, skipped while less than `ms` has passed (by the `now` it is given) since it last ran. */
export function atMostEvery(ms: number, fn: (now: Date) => Promise<void>): (now: Date) => Promise<void> {
  let last = 0;
  return async (now) => {
    if (now.getTime() - last < ms) return;
    last = now.getTime();
    await fn(now);
  };
}

interface PromiseCache<K, V> {
  get(key: K): Promise<V> | undefined;
  set(key: K, value: Promise<V>): unknown;
  delete(key: K): unknown;
}

/** `open()` once per key: callers share its promise; a failed open is forgotten, so a later call opens again. */
export function openOnce<K, V>(cache: PromiseCache<K, V>, key: K, open: () => Promise<V>): Promise<V> {
  let p = cache.get(key);
  if (!p) {
    const opening = open();
    cache.set(key, opening);
    opening.catch(() => {
      if (cache.get(key) === opening) cache.delete(key);
    });
    p = opening;
  }
  return p;
}

/**
 * Shared holders (several at once) against an exclusive one (alone): an exclusive waits for the holders under
 * way, and holders that come while it waits or runs wait for it to end, so it is never starved.
 */
export interface Gate {
  shared<T>(fn: () => Promise<T>): Promise<T>;
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

export function gate(): Gate {
  let holders = 0;
  let drained: (() => void) | null = null;
  /** Resolves when the exclusive holder waiting or running ends. */
  let closed: Promise<void> | null = null;
  return {
    async shared(fn) {
      while (closed) await closed;
      holders++;
      try {
        return await fn();
      } finally {
        if (--holders === 0) drained?.();
      }
    },
    async exclusive(fn) {
      while (closed) await closed;
      const { promise, resolve } = Promise.withResolvers<void>();
      closed = promise;
      try {
        if (holders > 0) await new Promise<void>((r) => (drained = r));
        drained = null;
        return await fn();
      } finally {
        closed = null;
        resolve();
      }
    },
  };
}
