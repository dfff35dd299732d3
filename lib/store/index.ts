import "./lance-env"; // before LanceDB's native module creates its thread pools
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import type { Schema } from "apache-arrow";
import { getConfig } from "@/lib/config";
import { getEmbedder, type Embedder } from "@/lib/embed";
import { AppError, type ChunkRecord, type DocumentRecord } from "@/lib/types";
import {
  CHUNK_COLUMNS, DOCUMENT_COLUMNS, SCHEMA_VERSION, TABLES, chunkToRow, chunksSchema, documentToRow, documentsSchema,
  metaSchema, rowToBody, rowToChunk, rowToDocument, type DocumentBody, type StoredChunk,
} from "./schema";
import { log } from "@/lib/log";
import { setStoreStats, type StoreStatsSnapshot } from "@/lib/metrics";
import { createMaintainer, type MaintenanceReport } from "./maintenance";
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
  /**
   * Many documents in one commit per table (chunks first, then the document rows), each still atomic for
   * readers: a document's chunks become visible together with its row. A later entry for the same id wins.
   */
  putDocuments(items: readonly DocumentWrite[]): Promise<void>;
  /** Nearest chunks by cosine distance, best first. */
  vectorSearch(vector: number[], opts: { limit: number; kbs?: readonly string[] }): Promise<ChunkRecord[]>;
  /** BM25 over the chunks' index text (already tokenized, space-separated), best first. */
  textSearch(indexText: string, opts: { limit: number; kbs?: readonly string[] }): Promise<ChunkRecord[]>;
  /**
   * Runs maintenance now and waits for it (CLI, tests, bench): full-text and vector index updates, compaction,
   * cleanup of versions older than `retainMs` (default: the configured retention). Writes only schedule it.
   */
  optimize(opts?: { retainMs?: number }): Promise<void>;
  /** Asks for a background maintenance run soon (after writes made through another connection); never waits. */
  scheduleMaintenance(): void;
  /** Resolves when no background maintenance is running or due. */
  maintenanceIdle(): Promise<void>;
  /** Rows and versions per table, bytes on disk (local stores); also published to /metrics. */
  stats(): Promise<StoreStatsSnapshot>;
  /** Drops every chunk and re-creates the chunks table for this store's embedder (reindex). */
  resetIndex(): Promise<void>;
  /** Records this store's embedder as the one the index was built with (end of a reindex). */
  commitEmbedder(): Promise<void>;
  /** Set when opened with allowMismatch and the index was built with another embedder. */
  readonly mismatch: string | null;
  close(): void;
}

export interface DocumentWrite {
  doc: DocumentRecord;
  body: DocumentBody;
  chunks: StoredChunk[];
}

export interface OpenStoreOptions {
  uri: string;
  embedder: Embedder;
  /** Open even when the index was built with another embedder (only for a reindex). */
  allowMismatch?: boolean;
  /** Build an approximate (HNSW) vector index once the chunks table has this many rows; 0 = never. */
  vectorIndexMinRows?: number;
  /** Background maintenance runs this long after a write (default 3 s). */
  maintenanceDelayMs?: number;
  /** A maintenance run is no longer waited for after this long (default 10 min). */
  maintenanceTimeoutMs?: number;
  /** Maintenance removes table versions older than this (default 60 s). */
  versionRetentionMs?: number;
}

const FTS_COLUMN = "index_text";
/**
 * Below this many chunks, exact (flat) vector search is fast enough; above it an HNSW index with scalar
 * quantization keeps queries fast (measured on 3,886 chunks × 2,048 dims: flat p50 160 ms, HNSW 25 ms, vector
 * recall@5 0.90 vs 0.89). Background maintenance builds it; rows added since are searched flat.
 */
export const VECTOR_INDEX_MIN_ROWS = 5000;
/**
 * Each maintenance folds new rows into the vector index as a new segment, and every segment is searched
 * separately: rebuild the index in one piece when it has more segments than this, or when the rows it does
 * not cover reach REBUILD_UNINDEXED_FRACTION of those it does.
 */
const MAX_VECTOR_INDEX_SEGMENTS = 4;
const REBUILD_UNINDEXED_FRACTION = 0.25;
/**
 * A rebuild reads every vector, so while writes keep coming (a bulk ingest) it waits until the store has been
 * quiet this long, unless the index covers less than half of the rows: one rebuild at the end instead of one
 * every few thousand rows.
 */
const REBUILD_QUIET_MS = 10_000;
const VECTOR_INDEX_NAME = "vector_idx";
const FTS_RECHECK_MS = 1000;

function ftsIndex() {
  // Text is tokenized by lib/tokenize before it gets here, so LanceDB must only split on spaces.
  return lancedb.Index.fts({
    baseTokenizer: "whitespace", lowercase: false, stem: false, removeStopWords: false, asciiFolding: false,
    withPosition: false, maxTokenLength: 64,
  });
}

const collator = new Intl.Collator();
const byTitle = (a: DocumentRecord, b: DocumentRecord) =>
  collator.compare(a.title, b.title) || collator.compare(a.source, b.source) || collator.compare(a.id, b.id);

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

  // Background maintenance (compaction, index updates) commits beside the writes; a write that loses that race
  // gets a commit-conflict error and nothing of it was committed, so it is simply tried again.
  const retryConflicts = async <T>(fn: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (attempt >= 5 || !/conflict/i.test(err instanceof Error ? err.message : String(err))) throw err;
        log("store").info({ attempt, err: err instanceof Error ? err.message : String(err) }, "write conflicted with a concurrent commit; retrying");
        await new Promise((r) => setTimeout(r, 20 * attempt));
      }
    }
  };

  // Writes from this process are serialized; LanceDB resolves conflicts between processes.
  let writeQueue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = writeQueue.then(fn, fn);
    writeQueue = run.catch(() => undefined);
    return run;
  };

  const kbFilter = (kbs?: readonly string[]) => (kbs && kbs.length > 0 ? sqlIn("kb", kbs) : undefined);

  // ---- document metadata, cached per version of the documents table ----
  // Every search resolves its chunks' documents and every MCP request lists them; both read this cache.
  // With readConsistencyInterval 0, version() sees another process's commit at once, so the cache is never stale.
  type DocCache = { version: number; list: DocumentRecord[]; byId: Map<string, DocumentRecord> };
  let docCache: DocCache | null = null;
  let docLoad: { version: number; promise: Promise<DocCache> } | null = null;
  const allDocs = async (): Promise<DocCache> => {
    const version = await documents.version();
    if (docCache?.version === version) return docCache;
    if (docLoad?.version !== version) {
      const promise = (async () => {
        const list = (await documents.query().select(DOCUMENT_COLUMNS).toArray()).map(rowToDocument).sort(byTitle);
        const loaded: DocCache = { version, list, byId: new Map(list.map((d) => [d.id, d])) };
        if ((docCache?.version ?? -1) < version) docCache = loaded;
        return loaded;
      })();
      docLoad = { version, promise };
      promise.finally(() => {
        if (docLoad?.promise === promise) docLoad = null;
      }).catch(() => undefined);
    }
    return docLoad.promise;
  };

  // ---- background maintenance ----
  const logger = log("store");
  const vectorIndexMinRows = opts.vectorIndexMinRows ?? VECTOR_INDEX_MIN_ROWS;
  const retention = opts.versionRetentionMs ?? 60_000;
  let lastWriteAt = 0;
  let ftsReady = false;
  let ftsCheckedAt = 0;
  const hasIndexOn = async (column: string) => (await chunks.listIndices()).some((i) => i.columns.includes(column));
  const ensureFtsIndex = async () => {
    if (ftsReady) return;
    if (await hasIndexOn(FTS_COLUMN)) {
      ftsReady = true;
      return;
    }
    if ((await chunks.countRows()) === 0) return;
    await chunks.createIndex(FTS_COLUMN, { config: ftsIndex(), replace: true });
    ftsReady = true;
  };
  /** Builds the vector index past the threshold, and rebuilds it in one piece once fragmented. */
  const maintainVectorIndex = async (canDefer: boolean): Promise<string> => {
    if (vectorIndexMinRows <= 0) return "off";
    const rows = await chunks.countRows();
    const existing = (await chunks.listIndices()).find((i) => i.columns.includes("vector"));
    if (existing) {
      const s = await chunks.indexStats(existing.name);
      const fragmented = s !== undefined &&
        ((s.numIndices ?? 1) > MAX_VECTOR_INDEX_SEGMENTS || s.numUnindexedRows > REBUILD_UNINDEXED_FRACTION * s.numIndexedRows);
      if (!fragmented) return `kept (${s?.numIndices ?? 1} segments, ${s?.numUnindexedRows ?? 0} rows unindexed)`;
      const writing = Date.now() - lastWriteAt < REBUILD_QUIET_MS;
      if (canDefer && writing && s.numUnindexedRows < s.numIndexedRows) {
        maintainer.schedule(); // look again once the writes stop
        return `rebuild deferred while writes continue (${s.numIndices ?? 1} segments)`;
      }
    } else if (rows < vectorIndexMinRows) return "not needed";
    await chunks.createIndex("vector", { config: lancedb.Index.hnswSq({ distanceType: "cosine" }), replace: true, name: VECTOR_INDEX_NAME });
    return `built over ${rows} rows`;
  };
  const maintain = async (retainMs: number, background = false): Promise<MaintenanceReport> => {
    const report: MaintenanceReport = {};
    const step = async (name: string, fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      const detail = await fn();
      report[name] = typeof detail === "string" ? `${detail} in ${Math.round(performance.now() - t0)} ms` : Math.round(performance.now() - t0);
    };
    await step("fts", ensureFtsIndex);
    // Compaction, index updates (new rows into the full-text and vector indices), version cleanup.
    const cleanupOlderThan = new Date(Date.now() - retainMs);
    for (const [name, t] of [["chunks", chunks], ["documents", documents], ["meta", meta]] as const) {
      await step(`optimize_${name}`, () => t.optimize({ cleanupOlderThan }));
    }
    await step("vector_index", () => maintainVectorIndex(background));
    return report;
  };
  const maintainer = createMaintainer((_deadline, explicit) => maintain(retention, !explicit), {
    delayMs: opts.maintenanceDelayMs ?? 3000,
    timeoutMs: opts.maintenanceTimeoutMs ?? 600_000,
    retryMs: 30_000,
    logger,
  });
  const afterWrite = async () => {
    lastWriteAt = Date.now();
    // The first write creates the full-text index (cheap on a small table); everything else is background work.
    if (!ftsReady) await ensureFtsIndex();
    maintainer.schedule();
  };

  await ensureFtsIndex();

  const dirBytes = async (dir: string): Promise<number> => {
    let total = 0;
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) total += await dirBytes(p);
      else if (e.isFile()) total += (await stat(p).catch(() => ({ size: 0 }))).size;
    }
    return total;
  };

  const store: Store = {
    uri,
    embedder,
    get mismatch() {
      return mismatch;
    },

    async listDocuments(o) {
      const { list } = await allDocs(); // sorted by title
      return o?.kb !== undefined ? list.filter((d) => d.kb === o.kb) : [...list];
    },
    async getDocument(id) {
      return (await allDocs()).byId.get(id) ?? null;
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
        await retryConflicts(() => documents.delete(sqlEq("id", id)));
        await retryConflicts(() => chunks.delete(sqlEq("document_id", id)));
        await afterWrite();
        return existed;
      });
    },
    async listKbs() {
      return [...new Set((await allDocs()).list.map((d) => d.kb))].sort();
    },

    async findDocument(kb, by) {
      const match = (d: DocumentRecord) => d.kb === kb && ("source" in by ? d.source === by.source : d.contentHash === by.contentHash);
      return (await allDocs()).list.filter(match).sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0] ?? null;
    },
    async matchDocument(kb, source, contentHash) {
      const docs = (await allDocs()).list
        .filter((d) => d.kb === kb && (d.source === source || d.contentHash === contentHash))
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      return { bySource: docs.find((d) => d.source === source) ?? null, byHash: docs.find((d) => d.contentHash === contentHash) ?? null };
    },
    async getDocuments(ids) {
      const { byId } = await allDocs();
      const out = new Map<string, DocumentRecord>();
      for (const id of ids) {
        const d = byId.get(id);
        if (d) out.set(id, d);
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
      return store.putDocuments([{ doc, body, chunks: docChunks }]);
    },
    putDocuments(items) {
      return serialized(async () => {
        await assertCompatible();
        const byId = new Map<string, DocumentWrite>();
        for (const item of items) {
          for (const c of item.chunks) {
            if (c.documentId !== item.doc.id) throw new Error("chunk belongs to another document");
            if (c.vector.length !== embedder.dimension) throw new Error(`vector of ${c.vector.length} dims, store expects ${embedder.dimension}`);
          }
          byId.set(item.doc.id, item);
        }
        if (byId.size === 0) return;
        const ids = [...byId.keys()];
        // Chunks first, then the document rows: until its row exists a document's chunks are invisible to
        // search. A replacement is ONE commit of the chunks table (update matching ids, insert new ones,
        // delete the document's leftovers), so readers see the old chunks or the new, never neither.
        const known = (await allDocs()).byId;
        const orphans = new Set<string>();
        const fresh = ids.filter((id) => !known.has(id));
        for (let i = 0; i < fresh.length; i += 500) {
          // Chunks without a document row (a crashed write) must be replaced, not appended to.
          const rows = await chunks.query().select(["document_id"]).where(sqlIn("document_id", fresh.slice(i, i + 500))).toArray();
          for (const r of rows) orphans.add(String(r.document_id));
        }
        const appended = fresh.filter((id) => !orphans.has(id));
        const replaced = ids.filter((id) => known.has(id) || orphans.has(id));
        const chunkRows = (list: string[]) => list.flatMap((id) => byId.get(id)!.chunks.map(chunkToRow));
        const toAppend = chunkRows(appended);
        if (toAppend.length > 0) await retryConflicts(() => chunks.add(toAppend)); // plain append: much cheaper than a merge
        if (replaced.length > 0) {
          const rows = chunkRows(replaced);
          const where = sqlIn("document_id", replaced);
          if (rows.length > 0) {
            await retryConflicts(() =>
              chunks.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().whenNotMatchedBySourceDelete({ where }).execute(rows),
            );
          } else {
            await retryConflicts(() => chunks.delete(where));
          }
        }
        const docRows = ids.map((id) => documentToRow(byId.get(id)!.doc, byId.get(id)!.body));
        if (ids.every((id) => !known.has(id))) await retryConflicts(() => documents.add(docRows));
        else await retryConflicts(() => documents.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(docRows));
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
      if (!ftsReady) {
        // Another process may have created it since: look again at most once a second.
        if (Date.now() - ftsCheckedAt < FTS_RECHECK_MS) return [];
        ftsCheckedAt = Date.now();
        if (!(await hasIndexOn(FTS_COLUMN))) return [];
        ftsReady = true;
      }
      let q = chunks.query().fullTextSearch(indexText, { columns: FTS_COLUMN }).select([...CHUNK_COLUMNS, "_score"]).limit(o.limit);
      const where = kbFilter(o.kbs);
      if (where) q = q.where(where);
      return (await q.toArray()).map(rowToChunk);
    },
    optimize(o) {
      const retainMs = o?.retainMs ?? retention;
      return retainMs === retention ? maintainer.runNow() : maintain(retainMs).then(() => undefined);
    },
    scheduleMaintenance() {
      maintainer.schedule();
    },
    maintenanceIdle() {
      return maintainer.idle();
    },
    async stats() {
      const tables = { chunks, documents, meta } as const;
      const snapshot: StoreStatsSnapshot = { rows: {}, versions: {}, dataDirBytes: null };
      for (const [name, t] of Object.entries(tables)) {
        snapshot.rows[name] = await t.countRows();
        snapshot.versions[name] = (await t.listVersions()).length;
      }
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(uri) || uri.startsWith("file://")) snapshot.dataDirBytes = await dirBytes(uri.replace(/^file:\/\//, ""));
      setStoreStats(snapshot);
      return snapshot;
    },
    resetIndex() {
      return serialized(async () => {
        // Until commitEmbedder, no embedder matches the half-built index, so no process can open it
        // with either embedder and get results from a mix of vectors.
        reindexing = true;
        await writeMeta(REINDEX_IN_PROGRESS);
        await recreateChunks();
        ftsReady = false;
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
      maintainer.stop();
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
    const p = openStore({
      uri: cfg.dataDir, embedder: getEmbedder(cfg.embedding), maintenanceDelayMs: cfg.store.maintenanceDelayMs,
      maintenanceTimeoutMs: cfg.store.maintenanceTimeoutMs, versionRetentionMs: cfg.store.versionRetentionMs,
    });
    g[GLOBAL_KEY] = p;
    p.catch(() => {
      if (g[GLOBAL_KEY] === p) delete g[GLOBAL_KEY];
    });
  }
  return g[GLOBAL_KEY];
}

