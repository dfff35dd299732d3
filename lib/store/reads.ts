/** The store's reads and queries: document metadata (cached per table version), bodies, chunks and searches. */
import { LRUCache } from "lru-cache";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import type { EmbedderCheck } from "./compat";
import { FTS_COLUMN, type Indexes } from "./indexes";
import { CHUNK_COLUMNS, DOCUMENT_COLUMNS, type DocumentBody, rowToBody, rowToChunk, rowToDocument } from "./schema";
import { sqlEq, sqlIn } from "./sql";
import type { Tables } from "./tables";
import type { Store } from "./types";

/**
 * Document bodies kept in memory, by characters: every search result carries the sentences around its passage
 * (lib/retrieve/context.ts), and reading whole bodies from the table was a third of a search's time.
 */
const BODY_CACHE_CHARS = 16_000_000;

/** The read half of Store. */
export type StoreReads = Pick<
  Store,
  | "listDocuments"
  | "getDocument"
  | "getDocumentText"
  | "getDocumentTexts"
  | "getDocumentBody"
  | "getChunks"
  | "getChunk"
  | "listKbs"
  | "findDocument"
  | "matchDocument"
  | "getDocuments"
  | "cachedVectors"
  | "vectorSearch"
  | "textSearch"
>;

export interface DocCache {
  version: number;
  /** Sorted by title. */
  list: DocumentRecord[];
  byId: Map<string, DocumentRecord>;
}

const collator = new Intl.Collator();
const byTitle = (a: DocumentRecord, b: DocumentRecord) =>
  collator.compare(a.title, b.title) || collator.compare(a.source, b.source) || collator.compare(a.id, b.id);
const byCreation = (a: DocumentRecord, b: DocumentRecord) => a.createdAt.localeCompare(b.createdAt);

/**
 * Every document's metadata, cached per version of the documents table: every search resolves its chunks'
 * documents and every MCP request lists them. With readConsistencyInterval 0, version() sees another
 * process's commit at once, so the cache is never stale.
 */
export function documentCache(tables: Tables): () => Promise<DocCache> {
  const { documents } = tables;
  let docCache: DocCache | null = null;
  let docLoad: { version: number; promise: Promise<DocCache> } | null = null;
  return async () => {
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
      promise
        .finally(() => {
          if (docLoad?.promise === promise) docLoad = null;
        })
        .catch(() => undefined);
    }
    return docLoad.promise;
  };
}

export function storeReads(tables: Tables, allDocs: () => Promise<DocCache>, compat: EmbedderCheck, indexes: Indexes): StoreReads {
  const kbFilter = (kbs?: readonly string[]) => (kbs && kbs.length > 0 ? sqlIn("kb", kbs) : undefined);
  /** Bodies of these documents in one query: each Lance query has a fixed cost (a take of one row took 1.4 ms of
   * CPU at 100,000 chunks), so five bodies read together cost 2.5 ms of CPU against 9.4 ms read one by one. */
  const readBodies = async (ids: readonly string[]) => {
    const out = new Map<string, DocumentBody>();
    if (ids.length === 0) return out;
    const rows = await tables.documents.query().select(["id", "text", "pages"]).where(sqlIn("id", ids)).toArray();
    for (const r of rows) out.set(String(r.id), rowToBody(r));
    return out;
  };
  // Keyed by id, content hash and update time: a body never changes under the same key.
  const bodies = new LRUCache<string, DocumentBody>({ maxSize: BODY_CACHE_CHARS, sizeCalculation: (b) => Math.max(1, b.text.length) });
  const getDocumentBodies = async (ids: readonly string[]): Promise<Map<string, DocumentBody>> => {
    const { byId } = await allDocs();
    const keyOf = (id: string) => {
      const doc = byId.get(id);
      return doc ? `${id}\u0000${doc.contentHash}\u0000${doc.updatedAt}` : null;
    };
    const out = new Map<string, DocumentBody>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const key = keyOf(id);
      const cached = key === null ? undefined : bodies.get(key);
      if (cached) out.set(id, cached);
      else missing.push(id);
    }
    for (const [id, body] of await readBodies(missing)) {
      const key = keyOf(id);
      if (key !== null) bodies.set(key, body);
      out.set(id, body);
    }
    return out;
  };
  const getDocumentBody: StoreReads["getDocumentBody"] = async (id) => (await getDocumentBodies([id])).get(id) ?? null;
  return {
    async listDocuments(o) {
      const { list } = await allDocs(); // sorted by title
      return o?.kb !== undefined ? list.filter((d) => d.kb === o.kb) : [...list];
    },
    async getDocument(id) {
      return (await allDocs()).byId.get(id) ?? null;
    },
    async getDocumentText(id) {
      return (await getDocumentBody(id))?.text ?? null;
    },
    async getDocumentTexts(ids) {
      return new Map([...(await getDocumentBodies(ids))].map(([id, body]) => [id, body.text]));
    },
    getDocumentBody,
    async getChunks(documentId) {
      const rows = await tables.chunks.query().select(CHUNK_COLUMNS).where(sqlEq("document_id", documentId)).toArray();
      return rows.map(rowToChunk).sort((a, b) => a.index - b.index);
    },
    async getChunk(chunkId) {
      const rows = await tables.chunks.query().select(CHUNK_COLUMNS).where(sqlEq("id", chunkId)).limit(1).toArray();
      return rows.length ? rowToChunk(rows[0]) : null;
    },
    async listKbs() {
      return [...new Set((await allDocs()).list.map((d) => d.kb))].sort();
    },
    async findDocument(kb, by) {
      const match = (d: DocumentRecord) => d.kb === kb && ("source" in by ? d.source === by.source : d.contentHash === by.contentHash);
      return (await allDocs()).list.filter(match).sort(byCreation)[0] ?? null;
    },
    async matchDocument(kb, source, contentHash) {
      const docs = (await allDocs()).list
        .filter((d) => d.kb === kb && (d.source === source || d.contentHash === contentHash))
        .sort(byCreation);
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
    async cachedVectors(documentId, textHashes) {
      const out = new Map<string, number[]>();
      if (compat.mismatch && !compat.reindexing) return out; // vectors in the table are from another embedder
      if (textHashes.length === 0 || !(await allDocs()).byId.has(documentId)) return out; // a new document has none
      const wanted = new Set(textHashes);
      const rows = await tables.chunks.query().select(["text_hash", "vector"]).where(sqlEq("document_id", documentId)).toArray();
      for (const r of rows) if (wanted.has(String(r.text_hash))) out.set(String(r.text_hash), Array.from(r.vector as ArrayLike<number>));
      return out;
    },
    async vectorSearch(vector, o) {
      await compat.assertCompatible();
      let q = tables.chunks
        .vectorSearch(vector)
        .distanceType("cosine")
        .select([...CHUNK_COLUMNS, "_distance"])
        .limit(o.limit);
      const where = kbFilter(o.kbs);
      if (where) q = q.where(where);
      return (await q.toArray()).map(rowToChunk);
    },
    async textSearch(indexText, o): Promise<ChunkRecord[]> {
      await compat.assertCompatible();
      if (!indexText.trim()) return [];
      if (!(await indexes.ftsAvailable())) return [];
      let q = tables.chunks
        .query()
        .fullTextSearch(indexText, { columns: FTS_COLUMN })
        .select([...CHUNK_COLUMNS, "_score"])
        .limit(o.limit);
      const where = kbFilter(o.kbs);
      if (where) q = q.where(where);
      return (await q.toArray()).map(rowToChunk);
    },
  };
}
