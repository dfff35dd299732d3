/**
 * Start-up repair after a crash mid-sync (kill -9, power loss): a run stored as under way (finishedAt null)
 * that no process here runs is marked interrupted, and the documents a sync had written before it stored
 * their items (it stores them in batches) are removed, as no source owns them. Documents written since this
 * repair began are never touched, and an orphan must still be one `graceMs` later (another replica may have
 * written it a moment ago and be about to store its item).
 */
import type { Store } from "@/lib/store";
import { runningOf } from "./engine";
import { getSourceStore } from "./store";

const INTERRUPTED = "interrupted: the server stopped during this sync (nothing was removed; the next sync completes it)";

export async function reconcileSources(store: Store, graceMs: number): Promise<{ interrupted: number; removed: number }> {
  const began = new Date().toISOString();
  const sources = await getSourceStore(store);
  let interrupted = 0;
  for (const s of await sources.list()) {
    if (!s.lastRun || s.lastRun.finishedAt !== null || runningOf(s.id)) continue;
    await sources.put({ ...s, lastRun: { ...s.lastRun, finishedAt: began, error: INTERRUPTED } });
    interrupted++;
  }
  const orphans = async () => {
    const owned = await sources.ownedDocuments();
    return (await store.listDocuments()).filter((d) => d.origin === "source" && d.updatedAt < began && !owned.has(d.id));
  };
  const first = new Set((await orphans()).map((d) => d.id));
  if (first.size === 0) return { interrupted, removed: 0 };
  if (graceMs > 0) await new Promise((resolve) => setTimeout(resolve, graceMs));
  let removed = 0;
  for (const d of await orphans()) {
    if (first.has(d.id) && (await store.deleteDocument(d.id))) removed++;
  }
  return { interrupted, removed };
}
