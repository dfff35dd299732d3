import type { DocumentWrite, Store } from "@/lib/store";
import { AppError, type DocumentRecord, type IngestProgress } from "@/lib/types";
import { buildChunks } from "./prepare";

export interface ReindexResult {
  documents: number;
  chunks: number;
}

type Emit = (p: Omit<IngestProgress, "file">) => void;

/**
 * One stored document re-chunked and re-embedded from its stored text with the store's embedder, not yet
 * written; null when the store has no text for it.
 */
async function rebuild(
  store: Store,
  doc: DocumentRecord,
  opts: { onProgress?: (p: IngestProgress) => void; signal?: AbortSignal },
): Promise<(DocumentWrite & { emit: Emit }) | null> {
  const body = await store.getDocumentBody(doc.id);
  if (!body) return null;
  const emit: Emit = (p) => opts.onProgress?.({ file: doc.source, ...p });
  emit({ stage: "received" });
  const chunks = await buildChunks(store, doc, body, { emit, signal: opts.signal });
  emit({ stage: "indexing", total: chunks.length });
  return { doc: { ...doc, chunkCount: chunks.length }, body, chunks, emit };
}

/** Re-chunks and re-embeds one stored document from its stored text (e.g. after chunking settings changed). */
export async function reindexDocument(
  store: Store,
  id: string,
  opts: { onProgress?: (p: IngestProgress) => void; signal?: AbortSignal } = {},
): Promise<DocumentRecord> {
  const doc = await store.getDocument(id);
  const rebuilt = doc && (await rebuild(store, doc, opts));
  if (!rebuilt) throw new AppError("not_found", `No document with id "${id}".`);
  opts.signal?.throwIfAborted();
  const updated: DocumentRecord = { ...rebuilt.doc, updatedAt: new Date().toISOString() };
  await store.putDocument(updated, rebuilt.body, rebuilt.chunks);
  rebuilt.emit({ stage: "done", documentId: id, chunkCount: rebuilt.chunks.length });
  return updated;
}

/**
 * Re-chunks and re-embeds every stored document from its stored text with the store's (new) embedder,
 * e.g. after EMBEDDING_* settings changed. Open the store with `allowMismatch: true` for this. The new
 * embedder is recorded only at the end, so an interrupted reindex still reports a mismatch and can be rerun.
 */
export async function reindexAll(store: Store, onProgress?: (p: IngestProgress) => void): Promise<ReindexResult> {
  const docs = await store.listDocuments();
  await store.resetIndex(); // documents (with their text) stay; only chunks go
  const endBulk = store.beginBulk();
  try {
    return await rebuildAll(store, docs, onProgress);
  } finally {
    endBulk();
  }
}

async function rebuildAll(store: Store, docs: DocumentRecord[], onProgress?: (p: IngestProgress) => void): Promise<ReindexResult> {
  let chunks = 0;
  // Written many documents per commit (each atomic); the batch is flushed at ~2,000 chunks.
  let batch: (DocumentWrite & { emit: Emit })[] = [];
  let pendingChunks = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await store.putDocuments(batch);
    for (const b of batch) b.emit({ stage: "done", documentId: b.doc.id, chunkCount: b.chunks.length });
    batch = [];
    pendingChunks = 0;
  };
  for (const doc of docs) {
    const rebuilt = await rebuild(store, doc, { onProgress });
    if (!rebuilt) continue;
    batch.push(rebuilt);
    chunks += rebuilt.chunks.length;
    pendingChunks += rebuilt.chunks.length;
    if (pendingChunks >= 2000) await flush();
  }
  await flush();
  await store.commitEmbedder();
  await store.optimize();
  return { documents: docs.length, chunks };
}
