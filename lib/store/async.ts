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
