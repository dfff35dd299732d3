/** The store's reads and queries: document metadata (cached per table version), bodies, chunks and searches. */
import type { Table as ArrowTable } from "apache-arrow";
import { LRUCache } from "lru-cache";
import type { DocumentRecord } from "@/lib/types";
import type { EmbedderCheck } from "./compat";
import type { Indexes } from "./indexes";
import {
  CHUNK_COLUMNS,
  DOCUMENT_COLUMNS,
  type DocumentBody,
  FTS_COLUMN,
  parseChunkId,
  rowToBody,
  rowToChunk,
  rowToDocument,
  SEARCH_COLUMNS,
} from "./schema";
import { sqlEq, sqlIn } from "./sql";
import { readVersion, type Tables } from "./tables";
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

interface DocCache {
  version: number;
  /** Sorted by title as of the last titleSorted(), which applies `unsorted`: what commits changed since. */
  sorted: DocumentRecord[];
  unsorted?: { gone: Set<string>; added: Map<string, DocumentRecord> };
  byId: Map<string, DocumentRecord>;
  /** Documents by knowledge base + source and by knowledge base + content hash, oldest first; built when first asked. */
  byKey?: Map<string, DocumentRecord[]>;
  /** Where each document's row was in this version (Lance row ids; written by this process since: unknown). */
  rowIds: Map<string, bigint>;
}

const collator = new Intl.Collator();
const byTitle = (a: DocumentRecord, b: DocumentRecord) =>
  collator.compare(a.title, b.title) || collator.compare(a.source, b.source) || collator.compare(a.id, b.id);
const byCreation = (a: DocumentRecord, b: DocumentRecord) => a.createdAt.localeCompare(b.createdAt);
/** How a document is found again (the same file, or the same bytes, in its knowledge base): the keys of a lookup map. */
export const sourceKey = (kb: string, source: string) => `${kb}\u0000s\u0000${source}`;
export const hashKey = (kb: string, hash: string) => `${kb}\u0000h\u0000${hash}`;
export const documentKeys = (d: DocumentRecord) => [sourceKey(d.kb, d.source), hashKey(d.kb, d.contentHash)];

/** The documents of a knowledge base with this source (or content hash), oldest first. */
function keyed(cache: DocCache, key: string): DocumentRecord[] {
  if (!cache.byKey) {
    const byKey = new Map<string, DocumentRecord[]>();
    for (const d of titleSorted(cache))
      for (const k of documentKeys(d)) {
        const list = byKey.get(k);
        if (list) list.push(d);
        else byKey.set(k, [d]);
      }
    for (const list of byKey.values()) list.sort(byCreation);
    cache.byKey = byKey;
  }
  return cache.byKey.get(key) ?? [];
}

/**
 * The documents sorted by title. Commits only note what they changed; the list is merged when next asked for:
 * a bulk ingest commits every few hundred documents and reads no list, and merging 57,000 titles per commit
 * was 4 % of its main thread. A list a reader got is never changed.
 */
export function titleSorted(cache: DocCache): DocumentRecord[] {
  const { unsorted } = cache;
  if (unsorted) {
    const kept = unsorted.gone.size > 0 ? cache.sorted.filter((d) => !unsorted.gone.has(d.id)) : cache.sorted;
    cache.sorted = mergeByTitle(kept, [...unsorted.added.values()].sort(byTitle));
    cache.unsorted = undefined;
  }
  return cache.sorted;
}

/**
 * `cache` updated in place to `change`: the maps in place (a key's list is replaced, never changed, so a list
 * a reader got stays as it was), the title-sorted list when next asked for (titleSorted). Copying every map
 * per commit cost a bulk ingest time that grew with the store. A deletion moves no other row, so the row ids stand.
 */
function applyChange(cache: DocCache, { upserted = [], deleted = [] }: DocumentChange, version: number): void {
  const gone = new Set([...deleted, ...upserted.map((d) => d.id)]);
  const replaced = [...gone].flatMap((id) => cache.byId.get(id) ?? []);
  if (cache.byKey) {
    for (const d of replaced)
      for (const k of documentKeys(d)) {
        const rest = (cache.byKey.get(k) ?? []).filter((x) => x.id !== d.id);
        if (rest.length > 0) cache.byKey.set(k, rest);
        else cache.byKey.delete(k);
      }
    for (const d of upserted) for (const k of documentKeys(d)) cache.byKey.set(k, [...(cache.byKey.get(k) ?? []), d].sort(byCreation));
  }
  for (const id of deleted) {
    cache.byId.delete(id);
    cache.rowIds.delete(id);
  }
  for (const d of upserted) {
    cache.byId.set(d.id, d);
    cache.rowIds.delete(d.id); // appended or rewritten: other rows keep theirs
  }
  cache.unsorted ??= { gone: new Set(), added: new Map() };
  for (const id of gone) {
    cache.unsorted.gone.add(id); // from the sorted list, if there
    cache.unsorted.added.delete(id);
  }
  for (const d of upserted) cache.unsorted.added.set(d.id, d);
  cache.version = version;
}

/** Two title-sorted lists as one. */
function mergeByTitle(a: readonly DocumentRecord[], b: readonly DocumentRecord[]): DocumentRecord[] {
  const out: DocumentRecord[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++) out[k] = j >= b.length || (i < a.length && byTitle(a[i], b[j]) <= 0) ? a[i++] : b[j++];
  return out;
}

/** What one commit does to the documents table: documents written (new or replacing those of their ids), ids deleted. */
interface DocumentChange {
  upserted?: readonly DocumentRecord[];
  deleted?: readonly string[];
}

export interface DocumentCache {
  get(): Promise<DocCache>;
  /**
   * Runs `write`, this process's commit of `change` to the documents table, and returns the table's version
   * before and after it. When that was the only commit in between, the cache takes the rows as written instead
   * of reading every document again, and a get() meanwhile answers with the documents before the commit:
   * a bulk ingest commits every few hundred documents while the next ones are prepared, and each full read
   * (and each copy of the cache) cost time that grew with the store (see docs/design-decisions.md).
   */
  commit(change: DocumentChange, write: () => Promise<unknown>): Promise<{ before: number; after: number }>;
}

/**
 * Every document's metadata, cached per version of the documents table: every search resolves its chunks'
 * documents and every MCP request lists them. Another process's commit is seen within readVersion's 100 ms,
 * this process's own at once.
 */
export function documentCache(tables: Tables): DocumentCache {
  const { documents } = tables;
  let docCache: DocCache | null = null;
  let docLoad: { version: number; promise: Promise<DocCache> } | null = null;
  let writing: Promise<unknown> | null = null;
  return {
    async get() {
      // During this process's commit the documents as they were before it: the table's version may already
      // have moved, but the commit has not updated the cache yet, and reading every document then was the
      // cost (waiting for the commit instead kept /api/health waiting on a 45 MB document's row).
      if (writing && docCache) return docCache;
      while (writing) await writing.catch(() => undefined);
      const version = await readVersion(documents);
      if (docCache?.version === version) return docCache;
      if (docLoad?.version !== version) {
        const promise = (async () => {
          const rows = plainRows(await documents.query().select(DOCUMENT_COLUMNS).withRowId().toArrow(), [...DOCUMENT_COLUMNS, "_rowid"]);
          const rowIds = new Map(rows.map((r) => [String(r.id), r._rowid as bigint]));
          const list = rows.map(rowToDocument).sort(byTitle);
          const loaded: DocCache = { version, sorted: list, byId: new Map(list.map((d) => [d.id, d])), rowIds };
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
    },
    async commit(change, write) {
      while (writing) await writing.catch(() => undefined);
      const run = (async () => {
        const before = await documents.version();
        await write();
        const after = await documents.version();
        // Another commit in between: the next get() reads them all.
        if (docCache?.version === before && after === before + 1) applyChange(docCache, change, after);
        return { before, after };
      })();
      writing = run;
      try {
        return await run;
      } finally {
        if (writing === run) writing = null;
      }
    },
  };
}

/**
 * The rows of an Arrow table as plain objects, read column by column: Arrow's row proxies cost more than
 * twice as much (73,000 documents: 0.8–0.9 s against 0.3–0.5 s, each time the cache is read again).
 */
function plainRows(table: ArrowTable, columns: readonly string[]): Record<string, unknown>[] {
  const values = columns.map((c) => table.getChild(c)?.toArray() ?? []);
  return Array.from({ length: table.numRows }, (_, i) => Object.fromEntries(columns.map((c, k) => [c, values[k][i]])));
}

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
  // A search limited to knowledge bases and/or documents (an empty document list matches nothing).
  const kbFilter = (kbs?: readonly string[], documents?: readonly string[]) => {
    const parts = [
      kbs && kbs.length > 0 ? sqlIn("kb", kbs) : "",
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
      return [...new Set(titleSorted(await allDocs()).map((d) => d.kb))].sort();
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
      let q = tables.chunks
        .query()
        .fullTextSearch(indexText, { columns: FTS_COLUMN })
        .select([...SEARCH_COLUMNS, "_score"])
        .limit(o.limit);
      if (o.withRecent && (await indexes.ftsCoverage()).inRecent) q = q.fastSearch();
      const where = kbFilter(o.kbs, o.documents);
      if (where) q = q.where(where);
      const [rows, { byId }] = await Promise.all([q.toArrow(), allDocs()]);
      return searchCandidates(rows, byId);
    },
  };
}
