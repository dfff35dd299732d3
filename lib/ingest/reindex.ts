import type { Store } from "@/lib/store";
import type { IngestProgress } from "@/lib/types";
import { buildChunks } from "./pipeline";

export interface ReindexResult {
  documents: number;
  chunks: number;
}

/**
 * Re-chunks and re-embeds every stored document from its stored text with the store's (new) embedder,
 * e.g. after EMBEDDING_* settings changed. Open the store with `allowMismatch: true` for this. The new
 * embedder is recorded only at the end, so an interrupted reindex still reports a mismatch and can be rerun.
 */
export async function reindexAll(store: Store, onProgress?: (p: IngestProgress) => void): Promise<ReindexResult> {
  const docs = await store.listDocuments();
  await store.resetIndex(); // documents (with their text) stay; only chunks go
  let chunks = 0;
  for (const doc of docs) {
    const body = await store.getDocumentBody(doc.id);
    if (!body) continue;
    const emit = (p: Omit<IngestProgress, "file">) => onProgress?.({ file: doc.source, ...p });
    emit({ stage: "received" });
    const built = await buildChunks(store, doc, body, { emit });
    emit({ stage: "indexing", total: built.length });
    await store.putDocument({ ...doc, chunkCount: built.length }, body, built);
    chunks += built.length;
    emit({ stage: "done", documentId: doc.id, chunkCount: built.length });
  }
  await store.commitEmbedder();
  await store.optimize();
  return { documents: docs.length, chunks };
}
