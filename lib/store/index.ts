/**
 * The document store: LanceDB tables on one connection, opened by openStore from its parts: tables and side
 * tables (./tables), embedder compatibility (./compat), indexes and maintenance (./indexes), reads (./reads)
 * and writes (./writes).
 */
import "./lance-env"; // before LanceDB's native module creates its thread pools
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { getConfig } from "@/lib/config";
import { createOfflineEmbedder, type Embedder, getEmbedder, isOfflineEmbedder } from "@/lib/embed";
import { type StoreStatsSnapshot, setStoreStats } from "@/lib/metrics";
import { processGlobal } from "@/lib/process-global";
import { gate, openOnce } from "./async";
import { builtEmbedder, checkEmbedder, type EmbedderCheck } from "./compat";
import { documentCache } from "./document-cache";
import { documentIdMaker } from "./document-ids";
import { openIndexes } from "./indexes";
import { LANCE_CACHE_MB } from "./lance-env";
import { bodyCache, storeReads } from "./reads";
import { recentWrites } from "./recent";
import { localDir, sweepStaleTempFiles } from "./stale-temp";
import { openTables, readVersion, retried } from "./tables";
import type { OpenStoreOptions, Store } from "./types";
import { storeWrites } from "./writes";

export { atMostEvery, serialQueue } from "./async";
export { whitespaceFtsIndex } from "./fts-index";
export { perStore } from "./per-store";
export type { DocumentBody, StoredChunk } from "./schema";
export { openSideTables } from "./side-tables";
export type { DocumentWrite, OpenStoreOptions, Store } from "./types";
export { versionCached } from "./versioned";

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await dirBytes(p);
    else if (e.isFile()) total += (await stat(p).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/**
 * How many versions a table keeps. Lance lists the manifests and then reads each: a cleanup deleting one in
 * between fails the listing with "not found", so it is listed again.
 */
async function versionCount(table: lancedb.Table): Promise<number> {
  const missing = (err: unknown) => /not found/i.test(err instanceof Error ? err.message : String(err));
  return (await retried(() => table.listVersions(), missing, "a cleanup removed a version while it was listed; listing again")).length;
}

const MB = BigInt(1024 * 1024);
/** One Lance session (its caches, bounded: lib/store/lance-env.ts) for every store of the process. */
function lanceSession(): lancedb.Session {
  return processGlobal("lance-session", () => new lancedb.Session(BigInt(LANCE_CACHE_MB.index) * MB, BigInt(LANCE_CACHE_MB.metadata) * MB));
}

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  const { uri, embedder } = opts;
  const conn = await lancedb.connect(uri, { readConsistencyInterval: 0 }, lanceSession());
  let scheduleMaintenance = () => {};
  const tables = await openTables(conn, embedder.dimension, () => scheduleMaintenance());
  let compat: EmbedderCheck;
  try {
    compat = await checkEmbedder(uri, tables, embedder, opts.allowMismatch ?? false);
  } catch (err) {
    tables.close();
    throw err;
  }
  // Offline, vector search only covers recent documents (lib/retrieve: defaultVectorWeight): an HNSW index
  // would cost minutes of CPU per rebuild at 100k chunks and buy nothing.
  const recent = recentWrites();
  const folds = gate();
  const indexes = await openIndexes(
    tables,
    { ...opts, vectorIndexMinRows: opts.vectorIndexMinRows ?? (isOfflineEmbedder(embedder) ? 0 : undefined) },
    recent,
    folds,
  );
  scheduleMaintenance = indexes.schedule;
  const docs = documentCache(tables);
  const bodies = bodyCache();
  const reads = storeReads(tables, docs.get, compat, indexes, bodies);
  const writes = storeWrites(tables, embedder, docs, compat, indexes, recent, folds, bodies);
  const tempSweep = sweepStaleTempFiles(uri);
  const pending = new Set<Promise<unknown>>();

  return {
    uri,
    embedder,
    get mismatch() {
      return compat.mismatch;
    },
    ...reads,
    ...writes,
    putDocument(doc, body, chunks) {
      return writes.putDocuments([{ doc, body, chunks }]);
    },
    documentsVersion: () => readVersion(tables.documents),
    documentIds: documentIdMaker(tables.meta),
    sideTable: (name, schema) => tables.side(name, schema),
    optimize: (o) => indexes.optimize(o?.retainMs),
    settle: () => indexes.settle(),
    textIndexState: indexes.ftsCoverage,
    recentChunks: () => recent.list(),
    scheduleMaintenance: indexes.schedule,
    beginBulk: indexes.beginBulk,
    warmed: indexes.warmed,
    maintenanceIdle: indexes.idle,
    async stats() {
      const snapshot: StoreStatsSnapshot = { rows: {}, versions: {}, dataDirBytes: null };
      for (const [name, t] of Object.entries({ chunks: tables.chunks, documents: tables.documents, meta: tables.meta })) {
        snapshot.rows[name] = await t.countRows();
        snapshot.versions[name] = await versionCount(t);
      }
      const dir = localDir(uri);
      if (dir !== null) snapshot.dataDirBytes = await dirBytes(dir);
      setStoreStats(snapshot);
      return snapshot;
    },
    background(write, what) {
      const settled = write.catch((err) => console.error(`[store] could not record ${what}:`, err)).finally(() => pending.delete(settled));
      pending.add(settled);
    },
    close() {
      // Closing a table while Lance works on it kills the process (LanceDB 0.31: SIGSEGV in Table.optimize()
      // after Table.close(); a test run lost a whole test file to it), so the tables close after that work.
      return Promise.all([indexes.stop(), tempSweep.stop(), ...pending])
        .then(() => undefined)
        .finally(() => tables.close());
    },
  };
}

/**
 * The configured embedder. When none was chosen (the offline default makes no vectors), a store built with the
 * offline hashing embedder keeps it, so an upgrade opens the existing store instead of refusing it; `npm run
 * ingest -- --reindex` rebuilds it without vectors.
 */
export async function configuredEmbedder(cfg = getConfig()): Promise<Embedder> {
  const embedder = getEmbedder(cfg.embedding);
  if (cfg.embedding.chosen) return embedder;
  const conn = await lancedb.connect(cfg.dataDir, {}, lanceSession());
  try {
    const built = await builtEmbedder(conn);
    return built && isOfflineEmbedder(built) && built.dimension > 0 ? createOfflineEmbedder(built.dimension) : embedder;
  } finally {
    conn.close();
  }
}

/**
 * The process-wide store from getConfig(). Cached on globalThis so Next's dev server (HMR) and every route
 * module share one connection. A failed open is not cached, so fixing the cause and retrying works.
 */
export function getStore(): Promise<Store> {
  return openOnce(
    processGlobal("store", () => new Map<"store", Promise<Store>>()),
    "store",
    async () => {
      const cfg = getConfig();
      return openStore({
        uri: cfg.dataDir,
        embedder: await configuredEmbedder(cfg),
        maintenanceDelayMs: cfg.store.maintenanceDelayMs,
        maintenanceTimeoutMs: cfg.store.maintenanceTimeoutMs,
        versionRetentionMs: cfg.store.versionRetentionMs,
        prewarm: true,
      });
    },
  );
}
