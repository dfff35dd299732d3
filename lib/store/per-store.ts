import { processGlobal } from "@/lib/process-global";
import { openOnce } from "./async";
import type { Store } from "./types";

/**
 * `open` run once per store object, its result shared (a failed open is forgotten, so a retry opens again).
 * Kept on globalThis under `key`, so Next's dev server (HMR) and every route module share one instance.
 */
export function perStore<T>(key: string, open: (store: Store) => Promise<T>): (store: Store) => Promise<T> {
  return (store) =>
    openOnce(
      processGlobal(key, () => new WeakMap<Store, Promise<T>>()),
      store,
      () => open(store),
    );
}
