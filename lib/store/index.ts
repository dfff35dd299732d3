import * as lancedb from "@lancedb/lancedb";
import type { Schema } from "apache-arrow";
import { getConfig } from "@/lib/config";
import { getEmbedder, type Embedder } from "@/lib/embed";
import { AppError, type ChunkRecord, type DocumentRecord } from "@/lib/types";
import {
  CHUNK_COLUMNS, DOCUMENT_COLUMNS, SCHEMA_VERSION, TABLES, chunkToRow, chunksSchema, documentToRow, documentsSchema,
  metaSchema, rowToBody, rowToChunk, rowToDocument, type DocumentBody, type StoredChunk,
} from "./schema";
import { sqlEq, sqlIn } from "./sql";

export type { DocumentBody, StoredChunk } from "./schema";

export interface Store {
  readonly uri: string;
  readonly embedder: Embedder;
  listDocuments(opts?: { kb?: string }): Promise<DocumentRecord[]>;
  getDocument(id: string): Promise<DocumentRecord | null>;
  /** Full parsed text of the document. */
  getDocumentText(id: string): Promise<string | null>;
  /** Ordered by index. */
  getChunks(documentId: string): Promise<ChunkRecord[]>;
  getChunk(chunkId: string): Promise<ChunkRecord | null>;
  /** Removes the document and its chunks; false when there was no such document. */
  deleteDocument(id: string): Promise<boolean>;
  listKbs(): Promise<string[]>;

  // ---- used by lib/ingest and lib/retrieve ----
  /** The document of `kb` with this source file name or this content hash. */
  findDocument(kb: string, by: { source: string } | { contentHash: string }): Promise<DocumentRecord | null>;
  /** Both lookups of an ingest in one query: the document named `source`, and one with this content. */
  matchDocument(kb: string, source: string, contentHash: string): Promise<{ bySource: DocumentRecord | null; byHash: DocumentRecord | null }>;
  getDocuments(ids: readonly string[]): Promise<Map<string, DocumentRecord>>;
  /** Parsed text and page starts, as stored at ingest. */
  getDocumentBody(id: string): Promise<DocumentBody | null>;
  /** Vectors already stored for these text hashes (embedding cache). */
  cachedVectors(textHashes: readonly string[]): Promise<Map<string, number[]>>;
  /**
   * Writes a document and replaces all of its chunks in ONE commit of the chunks table, so readers see
   * either the old chunks or the new ones, never neither.
   */
  putDocument(doc: DocumentRecord, body: DocumentBody, chunks: StoredChunk[]): Promise<void>;
  /** Nearest chunks by cosine distance, best first. */
  vectorSearch(vector: number[], opts: { limit: number; kbs?: readonly string[] }): Promise<ChunkRecord[]>;
  /** BM25 over the chunks' index text (already tokenized, space-separated), best first. */
  textSearch(indexText: string, opts: { limit: number; kbs?: readonly string[] }): Promise<ChunkRecord[]>;
  /** Folds new rows into the full-text index and compacts small fragments (after bulk writes). */
  optimize(): Promise<void>;
  /** Drops every chunk and re-creates the chunks table for this store's embedder (reindex). */
  resetIndex(): Promise<void>;
  /** Records this store's embedder as the one the index was built with (end of a reindex). */
  commitEmbedder(): Promise<void>;
  /** Set when opened with allowMismatch and the index was built with another embedder. */
  readonly mismatch: string | null;
  close(): void;
}

export interface OpenStoreOptions {
  uri: string;
  embedder: Embedder;
  /** Open even when the index was built with another embedder (only for a reindex). */
  allowMismatch?: boolean;
  /** Build an approximate (HNSW) vector index once the chunks table has this many rows; 0 = never. */
  vectorIndexMinRows?: number;
}

const FTS_COLUMN = "index_text";
/**
 * Below this many chunks, exact (flat) vector search is fast enough; above it an HNSW index with scalar
 * quantization keeps queries fast (measured on 3,886 chunks × 2,048 dims: flat p50 160 ms, HNSW 25 ms, vector
 * recall@5 0.90 vs 0.89). optimize() builds it once and then keeps it current; new rows are searched flat.
 */
export const VECTOR_INDEX_MIN_ROWS = 5000;
/** Compact fragments and fold new rows into the full-text index after this many writes. */
const OPTIMIZE_EVERY_WRITES = 20;

function ftsIndex() {
  // Text is tokenized by lib/tokenize before it gets here, so LanceDB must only split on spaces.
  return lancedb.Index.fts({
    baseTokenizer: "whitespace", lowercase: false, stem: false, removeStopWords: false, asciiFolding: false,
    withPosition: false, maxTokenLength: 64,
  });
}

const REINDEX_IN_PROGRESS = "(unfinished reindex)";

function mismatchMessage(uri: string, built: { name: string; dimension: number }, embedder: Embedder): string {
  return (
    `The index at ${uri} was built with embedder ${built.name} (dim ${built.dimension}) but the app is configured ` +
    `with ${embedder.name} (dim ${embedder.dimension}). Run \`npm run ingest -- --reindex\` to rebuild the index.`
  );
}

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  const { uri, embedder } = opts;
  const conn = await lancedb.connect(uri, { readConsistencyInterval: 0 });
  // Open when present (whatever its vector size, checked below), else create; existOk covers a race with
  // another process creating the same table.
  const names = new Set(await conn.tableNames());
  const table = (name: string, schema: Schema) =>
    names.has(name) ? conn.openTable(name) : conn.createEmptyTable(name, schema, { mode: "create", existOk: true });
  const meta = await table(TABLES.meta, metaSchema);
  const documents = await table(TABLES.documents, documentsSchema);
  let chunks = await table(TABLES.chunks, chunksSchema(embedder.dimension));

  const readMeta = async () => {
    const rows = await meta.query().toArray();
    return new Map(rows.map((r) => [String(r.key), String(r.value)]));
  };
  const writeMeta = async (name = embedder.name) => {
    const rows = [
      { key: "embedder_name", value: name },
      { key: "embedder_dimension", value: String(embedder.dimension) },
      { key: "schema_version", value: SCHEMA_VERSION },
    ];
    await meta.mergeInsert("key").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
  };
  /** null when compatible, else a description of what the index was built with. */
  const checkMeta = async (): Promise<{ name: string; dimension: number } | null> => {
    const m = await readMeta();
    const name = m.get("embedder_name");
    if (name === undefined) return null;
    const dimension = Number(m.get("embedder_dimension"));
    return name === embedder.name && dimension === embedder.dimension ? null : { name, dimension };
  };
  const vectorDimension = async (): Promise<number> => {
    const field = (await chunks.schema()).fields.find((f) => f.name === "vector");
    return (field?.type as { listSize?: number } | undefined)?.listSize ?? -1;
  };
  const recreateChunks = async () => {
    chunks = await conn.createEmptyTable(TABLES.chunks, chunksSchema(embedder.dimension), { mode: "overwrite" });
  };

  let mismatch: string | null = null;
  let reindexing = false;
  const built = await checkMeta();
  const dimOk = (await vectorDimension()) === embedder.dimension;
  if (built || !dimOk) {
    if ((await chunks.countRows()) === 0 && (await documents.countRows()) === 0) {
      // Nothing stored yet: adopt the configured embedder instead of refusing.
      if (!dimOk) await recreateChunks();
      await writeMeta();
    } else if (opts.allowMismatch) {
      mismatch = mismatchMessage(uri, built ?? { name: "unknown", dimension: await vectorDimension() }, embedder);
    } else {
      const message = mismatchMessage(uri, built ?? { name: "unknown", dimension: await vectorDimension() }, embedder);
      for (const t of [meta, documents, chunks]) t.close();
      conn.close();
      throw new AppError("embedder_mismatch", message, 409);
    }
  } else if ((await readMeta()).size === 0) {
    await writeMeta();
  }

  const ensureFtsIndex = async () => {
    const indices = await chunks.listIndices();
    if (!indices.some((i) => i.columns.includes(FTS_COLUMN))) {
      if ((await chunks.countRows()) === 0) return; // built on first write
      await chunks.createIndex(FTS_COLUMN, { config: ftsIndex(), replace: true });
    }
  };
  await ensureFtsIndex();

  // Another process (the CLI) may reindex with another embedder while this one runs: re-check the meta
  // table whenever its version moves, so a stale process errors instead of returning wrong results.
  let metaVersion = await meta.version();
  const assertCompatible = async () => {
    if (mismatch || reindexing) return; // reindex mode: the caller knows
    const v = await meta.version();
    if (v === metaVersion) return;
    const b = await checkMeta();
    if (b) throw new AppError("embedder_mismatch", mismatchMessage(uri, b, embedder), 409);
    metaVersion = v;
  };

  // Writes from this process are serialized; LanceDB resolves conflicts between processes.
  let writeQueue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = writeQueue.then(fn, fn);
    writeQueue = run.catch(() => undefined);
    return run;
  };

  const kbFilter = (kbs?: readonly string[]) => (kbs && kbs.length > 0 ? sqlIn("kb", kbs) : undefined);
  const docsWhere = async (where: string | undefined, limit?: number) => {
    let q = documents.query().select(DOCUMENT_COLUMNS);
    if (where) q = q.where(where);
    if (limit) q = q.limit(limit);
    return (await q.toArray()).map(rowToDocument);
  };

  // Every write adds a small fragment (and a version); reads slow down with their number, so compact
  // every few writes. Rows not yet in the full-text index are still found (flat search) meanwhile.
  let writesSinceOptimize = 0;
  const afterWrite = async () => {
    if (++writesSinceOptimize >= OPTIMIZE_EVERY_WRITES) await optimize();
    else await ensureFtsIndex();
  };
  const vectorIndexMinRows = opts.vectorIndexMinRows ?? VECTOR_INDEX_MIN_ROWS;
  const ensureVectorIndex = async () => {
    if (vectorIndexMinRows <= 0 || (await chunks.listIndices()).some((i) => i.columns.includes("vector"))) return;
    if ((await chunks.countRows()) < vectorIndexMinRows) return;
    await chunks.createIndex("vector", { config: lancedb.Index.hnswSq({ distanceType: "cosine" }) });
  };
  const optimize = async () => {
    writesSinceOptimize = 0;
    await ensureFtsIndex();
    await ensureVectorIndex();
    const cleanupOlderThan = new Date(Date.now() - 60 * 60 * 1000);
    for (const t of [chunks, documents]) await t.optimize({ cleanupOlderThan });
  };

  const store: Store = {
    uri,
    embedder,
    get mismatch() {
      return mismatch;
    },

    async listDocuments(o) {
      const docs = await docsWhere(o?.kb !== undefined ? sqlEq("kb", o.kb) : undefined);
      return docs.sort((a, b) => a.title.localeCompare(b.title) || a.source.localeCompare(b.source) || a.id.localeCompare(b.id));
    },
    async getDocument(id) {
      return (await docsWhere(sqlEq("id", id), 1))[0] ?? null;
    },
    async getDocumentText(id) {
      return (await store.getDocumentBody(id))?.text ?? null;
    },
    async getDocumentBody(id) {
      const rows = await documents.query().select(["text", "pages"]).where(sqlEq("id", id)).limit(1).toArray();
      return rows.length ? rowToBody(rows[0]) : null;
    },
    async getChunks(documentId) {
      const rows = await chunks.query().select(CHUNK_COLUMNS).where(sqlEq("document_id", documentId)).toArray();
      return rows.map(rowToChunk).sort((a, b) => a.index - b.index);
    },
    async getChunk(chunkId) {
      const rows = await chunks.query().select(CHUNK_COLUMNS).where(sqlEq("id", chunkId)).limit(1).toArray();
      return rows.length ? rowToChunk(rows[0]) : null;
    },
    deleteDocument(id) {
      return serialized(async () => {
        const existed = (await documents.countRows(sqlEq("id", id))) > 0;
        // Document first: a crash in between leaves orphan chunks, which search ignores (no document).
        await documents.delete(sqlEq("id", id));
        await chunks.delete(sqlEq("document_id", id));
        await afterWrite();
        return existed;
      });
    },
    async listKbs() {
      const rows = await documents.query().select(["kb"]).toArray();
      return [...new Set(rows.map((r) => String(r.kb)))].sort();
    },

    async findDocument(kb, by) {
      const cond = "source" in by ? sqlEq("source", by.source) : sqlEq("content_hash", by.contentHash);
      const docs = await docsWhere(`${sqlEq("kb", kb)} AND ${cond}`);
      return docs.sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0] ?? null;
    },
    async matchDocument(kb, source, contentHash) {
      const docs = (await docsWhere(`${sqlEq("kb", kb)} AND (${sqlEq("source", source)} OR ${sqlEq("content_hash", contentHash)})`))
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      return { bySource: docs.find((d) => d.source === source) ?? null, byHash: docs.find((d) => d.contentHash === contentHash) ?? null };
    },
    async getDocuments(ids) {
      const unique = [...new Set(ids)];
      const out = new Map<string, DocumentRecord>();
      for (let i = 0; i < unique.length; i += 500) {
        for (const d of await docsWhere(sqlIn("id", unique.slice(i, i + 500)))) out.set(d.id, d);
      }
      return out;
    },
    async cachedVectors(textHashes) {
      const out = new Map<string, number[]>();
      if (mismatch && !reindexing) return out; // vectors in the table are from another embedder
      const unique = [...new Set(textHashes)];
      for (let i = 0; i < unique.length; i += 500) {
        const rows = await chunks.query().select(["text_hash", "vector"]).where(sqlIn("text_hash", unique.slice(i, i + 500))).toArray();
        for (const r of rows) out.set(String(r.text_hash), Array.from(r.vector as ArrayLike<number>));
      }
      return out;
    },
    putDocument(doc, body, docChunks) {
      return serialized(async () => {
        await assertCompatible();
        for (const c of docChunks) {
          if (c.documentId !== doc.id) throw new Error("chunk belongs to another document");
          if (c.vector.length !== embedder.dimension) throw new Error(`vector of ${c.vector.length} dims, store expects ${embedder.dimension}`);
        }
        // Chunks first, then the document row: until the document row exists its chunks are invisible to
        // search. A replacement is ONE commit of the chunks table (update matching ids, insert new ones,
        // delete this document's leftovers), so readers see the old chunks or the new, never neither.
        const rows = docChunks.map(chunkToRow);
        const docFilter = sqlEq("document_id", doc.id);
        const isNew = (await documents.countRows(sqlEq("id", doc.id))) === 0;
        if (isNew && (await chunks.countRows(docFilter)) === 0) {
          if (rows.length > 0) await chunks.add(rows); // plain append: much cheaper than a merge
          await documents.add([documentToRow(doc, body)]);
        } else {
          if (rows.length > 0) {
            await chunks
              .mergeInsert("id")
              .whenMatchedUpdateAll()
              .whenNotMatchedInsertAll()
              .whenNotMatchedBySourceDelete({ where: docFilter })
              .execute(rows);
          } else {
            await chunks.delete(docFilter);
          }
          await documents.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute([documentToRow(doc, body)]);
        }
        await afterWrite();
      });
    },
    async vectorSearch(vector, o) {
      await assertCompatible();
      let q = chunks.vectorSearch(vector).distanceType("cosine").select([...CHUNK_COLUMNS, "_distance"]).limit(o.limit);
      const where = kbFilter(o.kbs);
      if (where) q = q.where(where);
      return (await q.toArray()).map(rowToChunk);
    },
    async textSearch(indexText, o) {
      await assertCompatible();
      if (!indexText.trim()) return [];
      if (!(await chunks.listIndices()).some((i) => i.columns.includes(FTS_COLUMN))) return [];
      let q = chunks.query().fullTextSearch(indexText, { columns: FTS_COLUMN }).select([...CHUNK_COLUMNS, "_score"]).limit(o.limit);
      const where = kbFilter(o.kbs);
      if (where) q = q.where(where);
      return (await q.toArray()).map(rowToChunk);
    },
    optimize() {
      return serialized(optimize);
    },
    resetIndex() {
      return serialized(async () => {
        // Until commitEmbedder, no embedder matches the half-built index, so no process can open it
        // with either embedder and get results from a mix of vectors.
        reindexing = true;
        await writeMeta(REINDEX_IN_PROGRESS);
        await recreateChunks();
      });
    },
    commitEmbedder() {
      return serialized(async () => {
        await writeMeta();
        mismatch = null;
        reindexing = false;
        metaVersion = await meta.version();
      });
    },
    close() {
      for (const t of [meta, documents, chunks]) t.close();
      conn.close();
    },
  };
  return store;
}

const GLOBAL_KEY = Symbol.for("kb-mcp-chat.store");
type GlobalWithStore = typeof globalThis & { [GLOBAL_KEY]?: Promise<Store> };

/**
 * The process-wide store from getConfig(). Cached on globalThis so Next's dev server (HMR) and every route
 * module share one connection. A failed open is not cached, so fixing the cause and retrying works.
 */
export function getStore(): Promise<Store> {
  const g = globalThis as GlobalWithStore;
  if (!g[GLOBAL_KEY]) {
    const cfg = getConfig();
    const p = openStore({ uri: cfg.dataDir, embedder: getEmbedder(cfg.embedding) });
    g[GLOBAL_KEY] = p;
    p.catch(() => {
      if (g[GLOBAL_KEY] === p) delete g[GLOBAL_KEY];
    });
  }
  return g[GLOBAL_KEY];
}

