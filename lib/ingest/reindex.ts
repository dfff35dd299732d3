import type { DocumentBody, Store, StoredChunk } from "@/lib/store";
import type { DocumentRecord, IngestProgress } from "@/lib/types";
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
  // Written many documents per commit (each atomic); the batch is flushed at ~2,000 chunks.
  let batch: { doc: DocumentRecord; body: DocumentBody; chunks: StoredChunk[]; emit: (p: Omit<IngestProgress, "file">) => void }[] = [];
  let pendingChunks = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await store.putDocuments(batch);
    for (const b of batch) b.emit({ stage: "done", documentId: b.doc.id, chunkCount: b.chunks.length });
    batch = [];
    pendingChunks = 0;
  };
  for (const doc of docs) {
    const body = await store.getDocumentBody(doc.id);
    if (!body) continue;
    const emit = (p: Omit<IngestProgress, "file">) => onProgress?.({ file: doc.source, ...p });
    emit({ stage: "received" });
    const built = await buildChunks(store, doc, body, { emit });
    emit({ stage: "indexing", total: built.length });
    batch.push({ doc: { ...doc, chunkCount: built.length }, body, chunks: built, emit });
    chunks += built.length;
    pendingChunks += built.length;
    if (pendingChunks >= 2000) await flush();
  }
  await flush();
  await store.commitEmbedder();
  await store.optimize();
  return { documents: docs.length, chunks };
}
