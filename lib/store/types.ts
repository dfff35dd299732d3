/** The document store's interface (lib/store/index.ts opens it). */

import type { Schema } from "apache-arrow";
import type { Embedder } from "@/lib/embed";
import type { StoreStatsSnapshot } from "@/lib/metrics";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import type { DocumentIdOf } from "./document-ids";
import type { RecentChunk } from "./recent";
import type { DocumentBody, StoredChunk } from "./schema";
import type { SideTable } from "./tables";

/** A full-text search result: the chunk and its BM25 score. */
export type TextHit = ChunkRecord & { textScore?: number };

/** What a full-text search of one chunks version can rely on (Store.textIndexState). */
export interface TextIndexState {
  version: number;
  complete: boolean;
  inRecent: boolean;
  /** The freshness net as it was when the version was read (lib/store/recent.ts). */
  recent: readonly RecentChunk[];
}

export interface Store {
  readonly uri: string;
  readonly embedder: Embedder;
  listDocuments(opts?: { kb?: string }): Promise<DocumentRecord[]>;
  /** The documents table's version: it moves with every change to the documents, in any process. */
  documentsVersion(): Promise<number>;
  getDocument(id: string): Promise<DocumentRecord | null>;
  /** Full parsed text of the document. */
  getDocumentText(id: string): Promise<string | null>;
  /** Full parsed texts of these documents, read together; a document that is gone is absent. */
  getDocumentTexts(ids: readonly string[]): Promise<Map<string, string>>;
  /** Ordered by index. */
  getChunks(documentId: string): Promise<ChunkRecord[]>;
  getChunk(chunkId: string): Promise<ChunkRecord | null>;
  /** Removes the document and its chunks; false when there was no such document. */
  deleteDocument(id: string): Promise<boolean>;
  listKbs(): Promise<string[]>;
  /**
   * Moves every document of knowledge base `from` (and its chunks) to `to`, each under the id `newId` gives
   * it; returns how many documents moved. A crash part-way leaves duplicates at worst, never a lost document.
   */
  moveKb(from: string, to: string, newId: (doc: DocumentRecord) => string): Promise<number>;
  /** Deletes every document of `kb` and its chunks; returns how many documents there were. */
  deleteKb(kb: string): Promise<number>;
  /**
   * A table of another module (knowledge-base registry, conversations, FAQ) beside the document tables, on
   * this store's connection: opened, or created with `schema`; compacted by background maintenance; closed
   * with the store.
   */
  sideTable(name: string, schema: Schema): Promise<SideTable>;

  // ---- used by lib/ingest and lib/retrieve ----
  /** The document of `kb` with this source file name or this content hash. */
  findDocument(kb: string, by: { source: string } | { contentHash: string }): Promise<DocumentRecord | null>;
  /** Both lookups of an ingest in one query: the document named `source`, and one with this content. */
  matchDocument(
    kb: string,
    source: string,
    contentHash: string,
  ): Promise<{ bySource: DocumentRecord | null; byHash: DocumentRecord | null }>;
  getDocuments(ids: readonly string[]): Promise<Map<string, DocumentRecord>>;
  /**
   * What names a new document: the same id for the same knowledge base and file name in every process of this
   * dataset, not computable without the dataset's key (./document-ids.ts).
   */
  documentIds(): Promise<DocumentIdOf>;
  /** Parsed text and page starts, as stored at ingest. */
  getDocumentBody(id: string): Promise<DocumentBody | null>;
  /**
   * Vectors already stored for these text hashes in one document's chunks (the embedding cache of a
   * re-ingest: only the chunks that changed are embedded again). Looking across every document instead
   * scanned the whole table for each document, and made ingest slow down as the store grew.
   */
  cachedVectors(documentId: string, textHashes: readonly string[]): Promise<Map<string, number[]>>;
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
  /** Nearest chunks by cosine distance, best first; chunks of a document that is gone are left out. */
  vectorSearch(vector: number[], opts: { limit: number; kbs?: readonly string[]; documents?: readonly string[] }): Promise<ChunkRecord[]>;
  /**
   * BM25 over the chunks' index text (already tokenized, space-separated), best first; chunks of a document
   * that is gone are left out. It reads the chunks table at the version of `at` (default: textIndexState() now),
   * so what that state says holds for what it finds. `withRecent`: the caller also searches the state's
   * `recent`, so rows the index does not cover may be left out when this process wrote them all (they are all
   * there). Each carries its BM25 score (`textScore`, higher is better).
   */
  textSearch(
    indexText: string,
    opts: { limit: number; kbs?: readonly string[]; documents?: readonly string[]; withRecent?: boolean; at?: TextIndexState },
  ): Promise<TextHit[]>;
  /**
   * The chunks table's version and whether the full-text index covers every chunk in it. LanceDB also
   * searches rows it does not cover yet, but scores them low (and not at all against an index of a few rows)
   * until maintenance folds them in. `inRecent`: every chunk it does not cover is in `recent`, and a
   * textSearch `withRecent` at this state leaves them out.
   */
  textIndexState(): Promise<TextIndexState>;
  /** Chunks this process wrote that the full-text index may not cover yet (lib/store/recent.ts). */
  recentChunks(): RecentChunk[];
  /**
   * Runs maintenance now and waits for it (CLI, tests, bench): full-text and vector index updates, compaction,
   * cleanup of versions older than `retainMs` (default: the configured retention). Writes only schedule it.
   */
  optimize(opts?: { retainMs?: number }): Promise<void>;
  /**
   * Maintenance now, then again once this process's last versions are past the retention (waits up to
   * STORE_VERSION_RETENTION_S): what a batch ingest that exits calls last, so it leaves no old versions behind.
   */
  settle(): Promise<void>;
  /** Asks for a background maintenance run soon; never waits. */
  scheduleMaintenance(): void;
  /**
   * A bulk ingest is under way until the returned function is called: background maintenance leaves the
   * chunks and documents tables unfolded meanwhile (at most FOLD_MAX_WAIT_MS; lib/store/indexes.ts), then runs.
   */
  beginBulk(): () => void;
  /** Resolves once what `prewarm` loads at open is in memory (at once without prewarm). */
  warmed(): Promise<void>;
  /** Resolves when no background maintenance is running or due. */
  maintenanceIdle(): Promise<void>;
  /** Rows and versions per table, bytes on disk (local stores); also published to /metrics. */
  stats(): Promise<StoreStatsSnapshot>;
  /**
   * Deletes the chunks whose document row does not exist (a write killed between its chunks and its document
   * row): those seen twice, `graceMs` apart, so another process's write under way is left alone. Returns how
   * many chunks went.
   */
  removeOrphans(graceMs: number): Promise<number>;
  /** Drops every chunk and re-creates the chunks table for this store's embedder (reindex). */
  resetIndex(): Promise<void>;
  /** Records this store's embedder as the one the index was built with (end of a reindex). */
  commitEmbedder(): Promise<void>;
  /** Set when opened with allowMismatch and the index was built with another embedder. */
  readonly mismatch: string | null;
  /**
   * A write no request waits for (a token's last use, an audit row): close() waits for it, so it never lands in
   * a closed or removed folder.
   */
  background(write: Promise<unknown>, what: string): void;
  /**
   * Stops maintenance and closes every table (side tables included) and the connection, once the maintenance
   * run or index load under way and the background writes have ended. Callers need not wait for it.
   */
  close(): Promise<void>;
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
  /** Below this many chunks background maintenance folds every write at once (default 2,000; lib/store/indexes.ts). */
  foldAlwaysBelowRows?: number;
  /** Writes less than this apart are a bulk ingest, for which index rebuilds and folds wait (default 10 s). */
  writeQuietMs?: number;
  /** Load the full-text index into memory in the background once open (a server; not a one-off CLI run). */
  prewarm?: boolean;
}
