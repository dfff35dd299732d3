/** The document metadata cache: every document row, kept per documents-table version and updated by this process's commits. */
import type { Table as ArrowTable } from "apache-arrow";
import type { DocumentRecord } from "@/lib/types";
import { DOCUMENT_COLUMNS, rowToDocument } from "./schema";
import { readVersion, type Tables } from "./tables";

export interface DocCache {
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
export function keyed(cache: DocCache, key: string): DocumentRecord[] {
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
