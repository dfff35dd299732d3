/**
 * The store's writes to the document tables, serialized within this process (LanceDB resolves conflicts
 * between processes), retried on conflicts with background maintenance, each followed by maintenance.
 */
import { createRequire } from "node:module";
import { makeArrowTable } from "@lancedb/lancedb";
import type { Table as ArrowTable, Schema } from "apache-arrow";
import type { Embedder } from "@/lib/embed";
import { nextTurn } from "@/lib/slices";
import type { DocumentRecord } from "@/lib/types";
import { type Gate, serialQueue } from "./async";
import type { EmbedderCheck } from "./compat";
import type { DocumentCache } from "./document-cache";
import type { Indexes } from "./indexes";
import type { BodyCache } from "./reads";
import type { RecentWrites } from "./recent";
import {
  chunkId,
  chunkToRow,
  type DocumentBody,
  type DocumentRow,
  documentToRow,
  FTS_COLUMN,
  rowToBody,
  rowToChunk,
  rowToDocument,
  type StoredChunk,
} from "./schema";
import { sqlEq, sqlIn } from "./sql";
import { retryConflicts, type Tables } from "./tables";
import type { DocumentWrite, Store } from "./types";

/** The write half of Store. */
export type StoreWrites = Pick<
  Store,
  "deleteDocument" | "putDocuments" | "moveKb" | "deleteKb" | "removeOrphans" | "resetIndex" | "commitEmbedder"
>;

/** Knowledge-base moves copy this many documents (and their chunks) per round. */
const MOVE_BATCH_DOCS = 100;

/** Chunk rows turned into Arrow between two turns of the event loop… */
const ROWS_PER_SLICE = 500;
/**
 * …and appended per commit, at most this many rows and characters of text plus index text: LanceDB serializes
 * one commit's rows in one synchronous go (about 6 ms per MB of Arrow IPC on 2 cores: 440 ms for 10,000 chunks
 * of 2 KB), so a commit must stay small enough not to hold up the requests served beside an upload.
 */
const APPEND_LIMIT = { rows: 10_000, chars: 6_000_000 };
const UNLIMITED = { rows: Number.POSITIVE_INFINITY, chars: Number.POSITIVE_INFINITY };

/**
 * Chunks as Arrow tables, each ending with the slice that brings it to `limit`, built a slice at a time with the
 * event loop served in between: LanceDB converts plain rows in one synchronous go, seconds for a document of
 * 100,000 chunks. Sizes are read off the rows made anyway (a chunk from the parse worker decodes its text when read).
 */
async function* chunkTables(list: readonly StoredChunk[], schema: Schema, limit = UNLIMITED): AsyncGenerator<ArrowTable> {
  let slices: ArrowTable[] = [];
  let rows = 0;
  let chars = 0;
  for (let i = 0; i < list.length; i += ROWS_PER_SLICE) {
    await nextTurn();
    const slice = list.slice(i, i + ROWS_PER_SLICE).map(chunkToRow);
    for (const row of slice) chars += (row.text as string).length + (row[FTS_COLUMN] as string).length;
    rows += slice.length;
    slices.push(makeArrowTable(slice, { schema }));
    if (rows >= limit.rows || chars >= limit.chars || i + ROWS_PER_SLICE >= list.length) {
      yield slices[0].concat(...slices.slice(1));
      slices = [];
      rows = 0;
      chars = 0;
    }
  }
}

/** apache-arrow as LanceDB loads it (CommonJS): the Arrow tables LanceDB takes must be made by this copy. */
const arrow = createRequire(import.meta.url)("apache-arrow") as typeof import("apache-arrow");

/**
 * Document rows as an Arrow table whose `text` column is made of the bodies' UTF-8 bytes (as the parse worker
 * encoded them, else encoded here): from plain rows LanceDB would encode a 45 MB text on this thread in one go.
 */
function documentsTable(schema: Schema, rows: readonly DocumentRow[], bodies: readonly DocumentBody[]): ArrowTable {
  const { makeData, RecordBatch, Struct, Table, Utf8, vectorFromArray } = arrow;
  const encoder = new TextEncoder();
  const texts = bodies.map((b) => b.utf8 ?? encoder.encode(b.text));
  const offsets = new Int32Array(texts.length + 1);
  for (const [i, t] of texts.entries()) offsets[i + 1] = offsets[i] + t.byteLength;
  const text = makeData({
    type: new Utf8(),
    length: rows.length,
    nullCount: 0,
    valueOffsets: offsets,
    data: texts.length === 1 ? texts[0] : Buffer.concat(texts),
  });
  const column = (f: Schema["fields"][number]) =>
    vectorFromArray(
      rows.map((r) => r[f.name] ?? null),
      f.type,
    ).data[0];
  const children = schema.fields.map((f) => (f.name === "text" ? text : column(f)));
  const data = makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new Table(schema, [new RecordBatch(schema, data)]);
}

export function storeWrites(
  tables: Tables,
  embedder: Embedder,
  docs: DocumentCache,
  compat: EmbedderCheck,
  indexes: Indexes,
  recent: RecentWrites,
  folds: Gate,
  bodies: BodyCache,
): StoreWrites {
  const serialized = serialQueue();
  /** Replaces (or adds) chunks and documents under new ids, then removes the old ones: a crash leaves copies at worst. */
  const moveBatch = async (rows: Record<string, unknown>[], to: string, newId: (doc: DocumentRecord) => string) => {
    const { documents, chunks } = tables;
    const idMap = new Map<string, string>();
    const newDocs = rows.map((r) => {
      const doc = rowToDocument(r);
      const id = newId(doc);
      idMap.set(doc.id, id);
      return documentToRow({ ...doc, id, kb: to }, rowToBody(r));
    });
    const oldIds = [...idMap.keys()];
    const chunkRows = await chunks.query().where(sqlIn("document_id", oldIds)).toArray();
    const newChunks = chunkRows.map((r) => {
      const c = rowToChunk(r);
      const id = idMap.get(c.documentId)!;
      return chunkToRow({
        ...c,
        id: chunkId(id, c.index),
        documentId: id,
        kb: to,
        indexText: String(r[FTS_COLUMN] ?? ""),
        textHash: String(r.text_hash ?? ""),
        vector: r.vector == null ? [] : Array.from(r.vector as ArrayLike<number>),
      });
    });
    // Copies left by an interrupted earlier run are replaced, not doubled.
    const newIds = [...idMap.values()];
    if ((await documents.countRows(sqlIn("id", newIds))) > 0) await retryConflicts(() => documents.delete(sqlIn("id", newIds)));
    if ((await chunks.countRows(sqlIn("document_id", newIds))) > 0) await retryConflicts(() => chunks.delete(sqlIn("document_id", newIds)));
    // New chunks first (invisible until their document row exists), then the new documents, then the old
    // documents and their chunks.
    if (newChunks.length > 0) await retryConflicts(() => chunks.add(newChunks));
    await retryConflicts(() => documents.add(newDocs));
    await retryConflicts(() => documents.delete(sqlIn("id", oldIds)));
    await retryConflicts(() => chunks.delete(sqlIn("document_id", oldIds)));
  };

  /** Ids of documents that have chunks but no document row. */
  const orphanDocuments = async (): Promise<Set<string>> => {
    const { byId } = await docs.get();
    const column = (await tables.chunks.query().select(["document_id"]).toArrow()).getChild("document_id");
    const missing = new Set<string>();
    for (const id of column ?? []) if (!byId.has(String(id))) missing.add(String(id));
    return missing;
  };
  /**
   * The orphans a put must replace rather than append to, kept between puts: finding them reads every chunk's
   * document id, and a bulk ingest that did so for each of its commits slowed as the store grew (a third of
   * the commit time at 300,000 chunks). They are read again once the chunks' row count moved otherwise than
   * by this process's appends, or the documents table took another commit than this process's puts (another
   * process's write or crash, a delete, a replacement, a compaction).
   */
  let orphansKnown: { ids: Set<string>; chunkRows: number; docsVersion: number } | null = null;
  const orphansNow = async (docsVersion: number): Promise<Set<string>> => {
    const chunkRows = await tables.chunks.countRows();
    if (orphansKnown?.chunkRows !== chunkRows || orphansKnown.docsVersion !== docsVersion)
      orphansKnown = { ids: await orphanDocuments(), chunkRows, docsVersion };
    return orphansKnown.ids;
  };
  /** A write that deletes or updates rows: not while a fold runs (see `folds` in lib/store/indexes.ts). */
  const rewriting = <T>(write: () => Promise<T>) => folds.shared(() => serialized(write));
  /** Wraps a write that changes rows in a way the orphan bookkeeping does not follow. */
  const forgettingOrphans = <T>(write: () => Promise<T>) =>
    rewriting(async () => {
      orphansKnown = null;
      return write();
    });

  return {
    async removeOrphans(graceMs) {
      const first = await orphanDocuments();
      if (first.size === 0) return 0;
      await new Promise((resolve) => setTimeout(resolve, graceMs));
      return forgettingOrphans(async () => {
        const still = [...(await orphanDocuments())].filter((id) => first.has(id));
        let removed = 0;
        for (let i = 0; i < still.length; i += 500) {
          const where = sqlIn("document_id", still.slice(i, i + 500));
          removed += await tables.chunks.countRows(where);
          await retryConflicts(() => tables.chunks.delete(where));
        }
        for (const id of still) recent.removeDocument(id);
        if (removed > 0) await indexes.afterWrite();
        return removed;
      });
    },
    deleteDocument(id) {
      return rewriting(async () => {
        const tracked = orphansKnown;
        orphansKnown = null; // until this delete has committed
        const existed = (await tables.documents.countRows(sqlEq("id", id))) > 0;
        const chunkRows = tracked && (await tables.chunks.countRows(sqlEq("document_id", id)));
        // Document first: a crash in between leaves orphan chunks, which search ignores (no document).
        const docsCommit = await docs.commit({ deleted: [id] }, () => retryConflicts(() => tables.documents.delete(sqlEq("id", id))));
        const written = indexes.chunkWrite();
        try {
          await retryConflicts(() => tables.chunks.delete(sqlEq("document_id", id)));
          recent.removeDocument(id);
          written(1);
        } finally {
          written(0); // when it failed (after written(1), nothing)
        }
        // The document and its chunks are gone together: the orphans stay the ones known, without it.
        if (tracked && chunkRows !== null && docsCommit.before === tracked.docsVersion && docsCommit.after === docsCommit.before + 1)
          orphansKnown = {
            ids: new Set([...tracked.ids].filter((x) => x !== id)),
            chunkRows: tracked.chunkRows - chunkRows,
            docsVersion: docsCommit.after,
          };
        await indexes.afterWrite();
        return existed;
      });
    },
    async putDocuments(items) {
      const { byId: stored } = await docs.get();
      const put = () =>
        serialized(async () => {
          await compat.assertCompatible();
          const { chunks, documents } = tables;
          const byId = new Map<string, DocumentWrite>();
          for (const item of items) {
            for (const c of item.chunks) {
              if (c.documentId !== item.doc.id) throw new Error("chunk belongs to another document");
              if (c.vector.length !== embedder.dimension)
                throw new Error(`vector of ${c.vector.length} dims, store expects ${embedder.dimension}`);
            }
            byId.set(item.doc.id, item);
          }
          if (byId.size === 0) return;
          const ids = [...byId.keys()];
          // Chunks first, then the document rows: until its row exists a document's chunks are invisible to
          // search. A replacement is ONE commit of the chunks table (update matching ids, insert new ones,
          // delete the document's leftovers), so readers see the old chunks or the new, never neither.
          const { byId: known, version: docsVersion } = await docs.get();
          // Chunks without a document row (a crashed write) must be replaced, not appended to.
          const orphans = await orphansNow(docsVersion);
          const fresh = ids.filter((id) => !known.has(id));
          const tracked = orphansKnown;
          orphansKnown = null; // until this put has committed
          const appended = fresh.filter((id) => !orphans.has(id));
          const replaced = ids.filter((id) => known.has(id) || orphans.has(id));
          const chunksOf = (list: string[]) => list.flatMap((id) => byId.get(id)!.chunks);
          const schema = await chunks.schema();
          const written = indexes.chunkWrite();
          const staged = recent.stage(
            ids.flatMap((id) => byId.get(id)!.chunks),
            replaced,
          );
          let commits = 0;
          try {
            // New documents' chunks are invisible until their document rows are written, so they may come in several
            // plain appends (much cheaper than a merge); a replacement is one commit.
            for await (const rows of chunkTables(chunksOf(appended), schema, APPEND_LIMIT)) {
              await retryConflicts(() => chunks.add(rows));
              commits++;
            }
            if (replaced.length > 0) {
              const where = sqlIn("document_id", replaced);
              const [rows] = await Array.fromAsync(chunkTables(chunksOf(replaced), schema));
              if (rows) {
                await retryConflicts(() =>
                  chunks
                    .mergeInsert("id")
                    .whenMatchedUpdateAll()
                    .whenNotMatchedInsertAll()
                    .whenNotMatchedBySourceDelete({ where })
                    .execute(rows),
                );
              } else {
                await retryConflicts(() => chunks.delete(where));
              }
              commits++;
            }
            const docRows = ids.map((id) => documentToRow(byId.get(id)!.doc, byId.get(id)!.body));
            const docTable = documentsTable(
              await documents.schema(),
              docRows,
              ids.map((id) => byId.get(id)!.body),
            );
            const { before, after } = await docs.commit({ upserted: docRows.map(rowToDocument) }, () =>
              ids.every((id) => !known.has(id))
                ? retryConflicts(() => documents.add(docTable))
                : retryConflicts(() => documents.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(docTable)),
            );
            if (tracked && replaced.length === 0 && before === docsVersion && after === before + 1)
              orphansKnown = { ...tracked, chunkRows: tracked.chunkRows + chunksOf(appended).length, docsVersion: after };
            staged.commit();
            for (const id of ids) bodies.set(byId.get(id)!.doc, byId.get(id)!.body);
            written(commits);
          } finally {
            staged.abort(); // when it failed (after commit(), nothing)
            written(0); // when it failed: what it committed is not in the net (after written(commits), nothing)
          }
          await indexes.afterWrite();
        });
      // A replacement updates rows: not while a fold runs (a crashed write's orphans, rarely replaced, may race one).
      return items.some((i) => stored.has(i.doc.id)) ? folds.shared(put) : put();
    },
    moveKb(from, to, newId) {
      return forgettingOrphans(async () => {
        await compat.assertCompatible();
        let moved = 0;
        for (;;) {
          const rows = await tables.documents.query().where(sqlEq("kb", from)).limit(MOVE_BATCH_DOCS).toArray();
          if (rows.length === 0) break;
          await moveBatch(rows, to, newId);
          moved += rows.length;
        }
        recent.clear();
        if (moved > 0) await indexes.afterWrite();
        return moved;
      });
    },
    deleteKb(kb) {
      return forgettingOrphans(async () => {
        const { documents, chunks } = tables;
        const n = await documents.countRows(sqlEq("kb", kb));
        // Documents first: chunks left by a crash in between are ignored by search (no document).
        if (n > 0) await retryConflicts(() => documents.delete(sqlEq("kb", kb)));
        if ((await chunks.countRows(sqlEq("kb", kb))) > 0) await retryConflicts(() => chunks.delete(sqlEq("kb", kb)));
        recent.clear();
        if (n > 0) await indexes.afterWrite();
        return n;
      });
    },
    resetIndex() {
      return forgettingOrphans(async () => {
        // Until commitEmbedder, no embedder matches the half-built index, so no process can open it
        // with either embedder and get results from a mix of vectors.
        await compat.beginReindex();
        await tables.recreateChunks(embedder.dimension);
        recent.clear();
        indexes.chunksReset();
      });
    },
    commitEmbedder() {
      return serialized(() => compat.commit());
    },
  };
}
