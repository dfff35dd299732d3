/**
 * The chunks this process wrote since maintenance last folded new rows into the full-text index. LanceDB's
 * full-text search scans rows its index does not cover yet, but scores them low (and not at all against an
 * index of a few rows); a search that ran while the index lagged also looks here (lib/retrieve), in memory,
 * so a document is findable the moment it is added. Any scan of the table per query was far too slow on a
 * large store (see docs/design-decisions.md). Writes of other processes are found by the full-text index alone.
 */
import type { ChunkRecord } from "@/lib/types";

/** At most this many chunks are kept (the oldest go first: a bulk ingest relies on the index). */
const MAX_RECENT_CHUNKS = 5000;

/** A chunk as the store wrote it. */
type Written = ChunkRecord & { indexText: string; vector?: unknown; textHash?: string };

export interface RecentChunk {
  chunk: ChunkRecord;
  /** The chunk's full-text index tokens. */
  terms: ReadonlySet<string>;
}

/** Chunks put in the net ahead of their commit (see RecentWrites.stage). */
interface StagedWrite {
  /** The commit landed: the chunks are this process's writes from now on. */
  commit(): void;
  /** The write failed: its chunks leave the net, which no longer holds the replaced documents' rows either. */
  abort(): void;
}

export interface RecentWrites {
  add(chunks: readonly Written[]): void;
  /**
   * Puts `chunks` in the net before the write that commits them, in place of the chunks of the `replacing`
   * documents: once the commit lands a search may read the table at its new version, whose rows the full-text
   * index does not cover, before the write's next line runs (Lance scores unindexed rows against a small index
   * not at all), so the net must hold them by then. A new document's chunks stay unseen until its row exists.
   */
  stage(chunks: readonly Written[], replacing: readonly string[]): StagedWrite;
  removeDocument(id: string): void;
  clear(): void;
  /** The generation of the latest write; pass it to foldedUpTo once maintenance covered everything written by then. */
  generation(): number;
  foldedUpTo(generation: number): void;
  /** Whether a chunk not yet folded into the index was dropped (over the cap): then the net misses it. */
  overflowed(): boolean;
  list(): RecentChunk[];
}

/** The write generation of a set of chunks (PENDING until its commit lands), and whether one was evicted before. */
type Stamp = { gen: number; evicted: boolean };
const PENDING = Number.POSITIVE_INFINITY;

/**
 * The chunk as written, its record and term set made when a search first needs them (rarely: only while the
 * index lags), not on every write: a bulk ingest adds every chunk it writes, and copying each (which decodes a
 * packed chunk's text) was 2 % of its main thread.
 */
function lazyEntry(written: Written, stamp: Stamp): RecentChunk & { stamp: Stamp; id: string; documentId: string } {
  let chunk: ChunkRecord | undefined;
  let terms: ReadonlySet<string> | undefined;
  return {
    stamp,
    id: written.id,
    documentId: written.documentId,
    get chunk() {
      if (!chunk) {
        const { indexText: _index, vector: _vector, textHash: _hash, ...record } = written;
        chunk = record;
      }
      return chunk;
    },
    get terms() {
      terms ??= new Set(written.indexText.split(" "));
      return terms;
    },
  };
}

export function recentWrites(max = MAX_RECENT_CHUNKS): RecentWrites {
  let gen = 0;
  let folded = 0;
  let dropped = 0;
  // Insertion order is write order: the first entries are the oldest.
  const byId = new Map<string, ReturnType<typeof lazyEntry>>();
  const removeDocument = (id: string) => {
    for (const [key, r] of byId) if (r.documentId === id) byId.delete(key);
  };
  const put = (chunks: readonly Written[], stamp: Stamp) => {
    // Only the newest `max` can stay: a big document's earlier chunks would be evicted again at once.
    if (chunks.length > max) stamp.evicted = true;
    const entries = chunks.slice(-max).map((written) => lazyEntry(written, stamp));
    for (const entry of entries) {
      byId.delete(entry.id);
      byId.set(entry.id, entry);
    }
    for (const [id, { stamp: s }] of byId) {
      if (byId.size <= max) break;
      if (s.gen === PENDING) s.evicted = true;
      else dropped = Math.max(dropped, s.gen);
      byId.delete(id);
    }
    return entries;
  };
  const stamped = (stamp: Stamp) => {
    stamp.gen = ++gen;
    if (stamp.evicted) dropped = stamp.gen;
  };
  return {
    add(chunks) {
      const stamp: Stamp = { gen: PENDING, evicted: false };
      put(chunks, stamp);
      stamped(stamp);
    },
    stage(chunks, replacing) {
      for (const id of replacing) removeDocument(id);
      const stamp: Stamp = { gen: PENDING, evicted: false };
      const entries = put(chunks, stamp);
      let ended = false;
      return {
        commit() {
          if (ended) return;
          ended = true;
          stamped(stamp);
        },
        abort() {
          if (ended) return;
          ended = true;
          for (const e of entries) if (byId.get(e.id) === e) byId.delete(e.id);
          // The replaced documents' rows may still be in the table, outside the index and now outside the net.
          dropped = ++gen;
        },
      };
    },
    removeDocument,
    clear() {
      // What was not folded yet is no longer in the net: a search must not rely on it until the next fold.
      if (byId.size > 0) dropped = gen;
      byId.clear();
    },
    generation: () => gen,
    foldedUpTo(g) {
      folded = Math.max(folded, g);
      for (const [key, r] of byId) if (r.stamp.gen <= g) byId.delete(key);
    },
    overflowed: () => dropped > folded,
    list: () => [...byId.values()],
  };
}
