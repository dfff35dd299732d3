/** The store's reads and queries: document metadata (from the document cache), bodies, chunks and searches. */
import type * as lancedb from "@lancedb/lancedb";
import type { Table as ArrowTable } from "apache-arrow";
import { LRUCache } from "lru-cache";
import { isAttachmentKb } from "@/lib/tools/scope";
import type { DocumentRecord } from "@/lib/types";
import type { EmbedderCheck } from "./compat";
import { type DocCache, type DocumentCache, hashKey, keyed, sourceKey, titleSorted } from "./document-cache";
import type { Indexes } from "./indexes";
import { CHUNK_COLUMNS, type DocumentBody, FTS_COLUMN, parseChunkId, rowToBody, rowToChunk, SEARCH_COLUMNS } from "./schema";
import { sqlEq, sqlIn } from "./sql";

/** The knowledge bases of questions' attachments (lib/tools/scope.ts isAttachmentKb), in a filter. */
const ATTACHMENT_KB_SQL = "kb LIKE '~%'";

import type { Tables } from "./tables";
import type { Store, TextHit } from "./types";

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

/**
 * A search's candidates (SEARCH_COLUMNS), read column by column (a row object per candidate cost more), with
 * the document and place from the id and the knowledge base from the document. A chunk whose document is not
 * there (mid-delete, or a crashed write) is left out: it is not a result.
 */
function searchCandidates(rows: ArrowTable, docs: ReadonlyMap<string, DocumentRecord>): TextHit[] {
  const column = (name: string) => rows.getChild(name)!;
  const [ids, headings, starts, ends, pages, texts] = SEARCH_COLUMNS.map(column);
  const scores = rows.getChild("_score");
  const out: TextHit[] = [];
  for (let i = 0; i < rows.numRows; i++) {
    const id = String(ids.get(i));
    const at = parseChunkId(id);
    const doc = at && docs.get(at.documentId);
    if (!at || !doc) continue;
    const page = pages.get(i);
    out.push({
      id,
      documentId: at.documentId,
      kb: doc.kb,
      index: at.index,
      heading: String(headings.get(i) ?? ""),
      start: Number(starts.get(i)),
      end: Number(ends.get(i)),
      page: page == null ? null : Number(page),
      text: String(texts.get(i)),
      ...(scores ? { textScore: Number(scores.get(i)) } : {}),
    });
  }
  return out;
}

/** Keyed by id, content hash and update time: a body never changes under the same key. */
const bodyKey = (doc: DocumentRecord) => `${doc.id}\u0000${doc.contentHash}\u0000${doc.updatedAt}`;

/**
 * Document bodies in memory, by document, shared by the reads and this process's writes: a body just written has
 * no known row id, and reading it back by id scans the documents table's id column in every fragment, a cost
 * that grew with each upload (9.6 ms after 100 uploads to a 77k-chunk store, 25 ms after 300) while searches
 * kept landing on the new documents.
 */
export interface BodyCache {
  get(doc: DocumentRecord): DocumentBody | undefined;
  /** Keeps the text and pages (not the UTF-8 bytes a write may carry beside them). */
  set(doc: DocumentRecord, body: DocumentBody): void;
}

export function bodyCache(): BodyCache {
  const bodies = new LRUCache<string, DocumentBody>({ maxSize: BODY_CACHE_CHARS, sizeCalculation: (b) => Math.max(1, b.text.length) });
  return {
    get: (doc) => bodies.get(bodyKey(doc)),
    set: (doc, { text, pages }) => void bodies.set(bodyKey(doc), pages ? { text, pages } : { text }),
  };
}

export function storeReads(
  tables: Tables,
  allDocs: DocumentCache["get"],
  compat: EmbedderCheck,
  indexes: Indexes,
  bodies: BodyCache,
): StoreReads {
  /**
   * A search limited to knowledge bases and/or documents (an empty document list matches nothing). A question's
   * attachment (lib/tools/scope.ts isAttachmentKb) is searched only when the search names its document: a search
   * of knowledge bases, or of everything, never reaches one.
   */
  const kbFilter = (kbs?: readonly string[], documents?: readonly string[]) => {
    const inKbs = kbs && kbs.length > 0 ? sqlIn("kb", kbs) : "";
    const parts = [
      documents ? (inKbs ? `(${inKbs} OR ${ATTACHMENT_KB_SQL})` : "") : inKbs || `NOT ${ATTACHMENT_KB_SQL}`,
      documents ? (documents.length ? sqlIn("document_id", documents) : "document_id = ''") : "",
    ];
    return parts.filter(Boolean).join(" AND ") || undefined;
  };
  /**
   * Bodies of these documents, taken by the row ids the document cache knows (cheaper than a filtered query,
   * which scans the ids first), the rest in one query. Each query has a fixed cost, so bodies are read
   * together, not one by one (see docs/design-decisions.md). A row id that no longer holds its
   * document (another process compacted the table meanwhile) is noticed by its id and read by the query.
   */
  const readBodies = async (ids: readonly string[], { rowIds }: DocCache) => {
    const out = new Map<string, DocumentBody>();
    if (ids.length === 0) return out;
    const wanted = new Set(ids);
    const known = ids.filter((id) => rowIds.has(id));
    if (known.length > 0) {
      const rows = await tables.documents
        .takeRowIds(known.map((id) => rowIds.get(id)!))
        .select(["id", "text", "pages"])
        .toArray()
        .catch(() => []);
      for (const r of rows) if (wanted.has(String(r.id))) out.set(String(r.id), rowToBody(r));
    }
    const missing = ids.filter((id) => !out.has(id));
    if (missing.length === 0) return out;
    const rows = await tables.documents.query().select(["id", "text", "pages"]).where(sqlIn("id", missing)).toArray();
    for (const r of rows) out.set(String(r.id), rowToBody(r));
    return out;
  };
  const getDocumentBodies = async (ids: readonly string[]): Promise<Map<string, DocumentBody>> => {
    const cache = await allDocs();
    const { byId } = cache;
    const out = new Map<string, DocumentBody>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const doc = byId.get(id);
      const cached = doc && bodies.get(doc);
      if (cached) out.set(id, cached);
      else missing.push(id);
    }
    for (const [id, body] of await readBodies(missing, cache)) {
      const doc = byId.get(id);
      if (doc) bodies.set(doc, body);
      out.set(id, body);
    }
    return out;
  };
  const getDocumentBody: StoreReads["getDocumentBody"] = async (id) => (await getDocumentBodies([id])).get(id) ?? null;
  return {
    async listDocuments(o) {
      const list = titleSorted(await allDocs());
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
      return [...new Set(titleSorted(await allDocs()).map((d) => d.kb))].filter((kb) => !isAttachmentKb(kb)).sort();
    },
    async findDocument(kb, by) {
      const cache = await allDocs();
      return keyed(cache, "source" in by ? sourceKey(kb, by.source) : hashKey(kb, by.contentHash))[0] ?? null;
    },
    async matchDocument(kb, source, contentHash) {
      const cache = await allDocs();
      return { bySource: keyed(cache, sourceKey(kb, source))[0] ?? null, byHash: keyed(cache, hashKey(kb, contentHash))[0] ?? null };
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
        .select([...SEARCH_COLUMNS, "_distance"])
        .limit(o.limit);
      const where = kbFilter(o.kbs, o.documents);
      if (where) q = q.where(where);
      const [rows, { byId }] = await Promise.all([q.toArrow(), allDocs()]);
      return searchCandidates(rows, byId);
    },
    async textSearch(indexText, o): Promise<TextHit[]> {
      await compat.assertCompatible();
      if (!indexText.trim()) return [];
      if (!(await indexes.ftsAvailable())) return [];
      const at = o.at ?? (await indexes.ftsCoverage());
      const search = (chunks: lancedb.Table) => {
        let q = chunks
          .query()
          .fullTextSearch(indexText, { columns: FTS_COLUMN })
          .select([...SEARCH_COLUMNS, "_score"])
          .limit(o.limit);
        if (o.withRecent && at.inRecent) q = q.fastSearch();
        const where = kbFilter(o.kbs, o.documents);
        return (where ? q.where(where) : q).toArrow();
      };
      const [rows, { byId }] = await Promise.all([tables.chunksAt(at.version, search), allDocs()]);
      return searchCandidates(rows, byId);
    },
  };
}
