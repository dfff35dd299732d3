/**
 * A conversation's picked documents as the person asking may see them: those deleted from the library since, or
 * in a knowledge base they may not read, drop out alike (and are counted alike), so a saved list reveals nothing
 * of what they cannot read.
 */

import type { Principal } from "@/lib/auth/principal";
import { readableDocuments } from "@/lib/auth/scope";
import type { Store } from "@/lib/store";

export async function inLibrary(p: Principal, store: Store, ids: readonly string[]): Promise<{ documents: string[]; removed: string[] }> {
  const found = await readableDocuments(p, store, ids);
  return { documents: ids.filter((id) => found.has(id)), removed: ids.filter((id) => !found.has(id)) };
}

/** What a conversation keeps of the documents it is given: only those the person may read. */
export async function readablePicks(p: Principal, store: Store, ids: readonly string[]): Promise<string[]> {
  return (await inLibrary(p, store, ids)).documents;
}
