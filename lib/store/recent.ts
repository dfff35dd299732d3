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

export interface RecentWrites {
  add(chunks: readonly Written[]): void;
  removeDocument(id: string): void;
  clear(): void;
  /** The generation of the latest write; pass it to foldedUpTo once maintenance covered everything written by then. */
  generation(): number;
  foldedUpTo(generation: number): void;
  /** Whether a chunk not yet folded into the index was dropped (over the cap): then the net misses it. */
  overflowed(): boolean;
  list(): RecentChunk[];
}

/**
 * The chunk as written, its record and term set made when a search first needs them (rarely: only while the
 * index lags), not on every write: a bulk ingest adds every chunk it writes, and copying each (which decodes a
 * packed chunk's text) was 2 % of its main thread.
 */
function lazyEntry(written: Written, gen: number): RecentChunk & { gen: number; documentId: string } {
  let chunk: ChunkRecord | undefined;
  let terms: ReadonlySet<string> | undefined;
  return {
    gen,
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
  return {
    add(chunks) {
      gen++;
      // Only the newest `max` can stay: a big document's earlier chunks would be evicted again at once.
      if (chunks.length > max) dropped = gen;
      for (const written of chunks.slice(-max)) {
        byId.delete(written.id);
        byId.set(written.id, lazyEntry(written, gen));
      }
      for (const id of byId.keys()) {
        if (byId.size <= max) break;
        dropped = Math.max(dropped, byId.get(id)!.gen);
        byId.delete(id);
      }
    },
    removeDocument(id) {
      for (const [key, r] of byId) if (r.documentId === id) byId.delete(key);
    },
    clear() {
      // What was not folded yet is no longer in the net: a search must not rely on it until the next fold.
      if (byId.size > 0) dropped = gen;
      byId.clear();
    },
    generation: () => gen,
    foldedUpTo(g) {
      folded = Math.max(folded, g);
      for (const [key, r] of byId) if (r.gen <= g) byId.delete(key);
    },
    overflowed: () => dropped > folded,
    list: () => [...byId.values()],
  };
}
