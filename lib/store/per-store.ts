import { processGlobal } from "@/lib/server/process-global";
import type { Store } from "./types";

/**
 * `open` run once per store object, its result shared (a failed open is forgotten, so a retry opens again).
 * Kept on globalThis under `key`, so Next's dev server (HMR) and every route module share one instance.
 */
export function perStore<T>(key: string, open: (store: Store) => Promise<T>): (store: Store) => Promise<T> {
  return (store) => {
    const map = processGlobal(key, () => new WeakMap<Store, Promise<T>>());
    let p = map.get(store);
    if (!p) {
      const opening = open(store);
      map.set(store, opening);
      opening.catch(() => {
        if (map.get(store) === opening) map.delete(store);
      });
      p = opening;
    }
    return p;
  };
}
