/** A saved scope against the library as it is now: documents deleted since drop out of it (and are counted). */
import type { Store } from "@/lib/store";

export async function inLibrary(store: Store, ids: readonly string[]): Promise<{ documents: string[]; removed: string[] }> {
  if (!ids.length) return { documents: [], removed: [] };
  const found = await store.getDocuments(ids);
  return { documents: ids.filter((id) => found.has(id)), removed: ids.filter((id) => !found.has(id)) };
}
