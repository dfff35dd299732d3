/**
 * Knowledge-base-wide writes on the document store's tables (rename, delete), through a connection of
 * their own so the store's interface stays per-document. Written so that a crash part-way leaves
 * duplicates at worst, never a lost document.
 */
import * as lancedb from "@lancedb/lancedb";
import { documentId } from "@/lib/ingest/pipeline";
import {
  TABLES, chunkToRow, documentToRow, rowToBody, rowToChunk, rowToDocument, type StoredChunk,
} from "@/lib/store/schema";
import { sqlEq, sqlIn } from "@/lib/store/sql";

const BATCH_DOCS = 100;

async function withTables<T>(uri: string, fn: (t: { documents: lancedb.Table; chunks: lancedb.Table }) => Promise<T>): Promise<T> {
  const conn = await lancedb.connect(uri, { readConsistencyInterval: 0 });
  const names = new Set(await conn.tableNames());
  if (!names.has(TABLES.documents) || !names.has(TABLES.chunks)) {
    conn.close();
    throw new Error(`no document store at ${uri}`);
  }
  const documents = await conn.openTable(TABLES.documents);
  const chunks = await conn.openTable(TABLES.chunks);
  try {
    return await fn({ documents, chunks });
  } finally {
    documents.close();
    chunks.close();
    conn.close();
  }
}

/**
 * Moves every document of `from` (and its chunks) to `to`. Document ids are derived from kb + file name,
 * so moved documents get the ids they would have had if ingested into `to`: a later upload of the same
 * file into a new `from` then cannot overwrite them. Returns how many documents moved.
 */
export function moveKbDocuments(uri: string, from: string, to: string): Promise<number> {
  return withTables(uri, async ({ documents, chunks }) => {
    let moved = 0;
    for (;;) {
      const rows = await documents.query().where(sqlEq("kb", from)).limit(BATCH_DOCS).toArray();
      if (rows.length === 0) return moved;
      const idMap = new Map<string, string>();
      const newDocs = rows.map((r) => {
        const doc = rowToDocument(r);
        const id = documentId(to, doc.source);
        idMap.set(doc.id, id);
        return documentToRow({ ...doc, id, kb: to }, rowToBody(r));
      });
      const oldIds = [...idMap.keys()];
      const chunkRows = await chunks.query().where(sqlIn("document_id", oldIds)).toArray();
      const newChunks = chunkRows.map((r) => {
        const c = rowToChunk(r);
        const id = idMap.get(c.documentId)!;
        const stored: StoredChunk = {
          ...c, id: `${id}:${c.index}`, documentId: id, kb: to,
          indexText: String(r.index_text ?? ""), textHash: String(r.text_hash ?? ""),
          vector: Array.from(r.vector as ArrayLike<number>),
        };
        return chunkToRow(stored);
      });
      // Copies left by an interrupted earlier run are replaced, not doubled.
      const newIds = [...idMap.values()];
      if ((await documents.countRows(sqlIn("id", newIds))) > 0) await documents.delete(sqlIn("id", newIds));
      if ((await chunks.countRows(sqlIn("document_id", newIds))) > 0) await chunks.delete(sqlIn("document_id", newIds));
      // New chunks first (invisible until their document row exists), then the new documents, then the old
      // documents and their chunks.
      if (newChunks.length > 0) await chunks.add(newChunks);
      await documents.add(newDocs);
      await documents.delete(sqlIn("id", oldIds));
      await chunks.delete(sqlIn("document_id", oldIds));
      moved += rows.length;
    }
  });
}

/** Deletes every document of `kb` and its chunks; returns how many documents there were. */
export function deleteKbDocuments(uri: string, kb: string): Promise<number> {
  return withTables(uri, async ({ documents, chunks }) => {
    const n = await documents.countRows(sqlEq("kb", kb));
    // Documents first: chunks left by a crash in between are ignored by search (no document).
    if (n > 0) await documents.delete(sqlEq("kb", kb));
    if ((await chunks.countRows(sqlEq("kb", kb))) > 0) await chunks.delete(sqlEq("kb", kb));
    return n;
  });
}
