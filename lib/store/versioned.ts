import type { SideTable } from "./tables";

/**
 * What `load` reads from a side table, kept while the table's version stays (a write here moves it at once,
 * another process's within readVersion's 100 ms); a failed load is not kept. For tables read on every request
 * (tokens, grants, the knowledge-base catalog).
 */
export function versionCached<T>(side: SideTable, load: () => Promise<T>): () => Promise<T> {
  let entry: { version: number; value: Promise<T> } | null = null;
  return async (): Promise<T> => {
    const version = await side.version();
    if (entry?.version !== version) {
      const value = load();
      entry = { version, value };
      value.catch(() => {
        if (entry?.value === value) entry = null;
      });
    }
    return entry.value;
  };
}
