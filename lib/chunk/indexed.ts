import { toIndexText } from "@/lib/tokenize/index-text";
import type { Chunk } from "@/lib/types";
import { type ChunkOptions, chunkText, embeddingText } from "./index";

/** The chunk size and overlap an ingest uses (CHUNK_SIZE, CHUNK_OVERLAP). */
export type ChunkSettings = Required<Pick<ChunkOptions, "size" | "overlap">>;

/** A chunk with the text it is embedded by (heading path + text) and that text's full-text index tokens. */
export interface IndexedChunk extends Chunk {
  embedText: string;
  indexText: string;
}

/**
 * Chunks a document and tokenizes each chunk for the full-text index: with parsing, the CPU-heavy part of an
 * ingest (jieba and Porter2 over every word). The parse worker runs it for new files (lib/parse/worker.ts), so
 * the main thread only writes; a stored body being re-chunked (reindex) runs it in place.
 */
export function indexedChunks(text: string, opts: ChunkOptions): IndexedChunk[] {
  return chunkText(text, opts).map((c) => {
    const embedText = embeddingText(c);
    return { ...c, embedText, indexText: toIndexText(embedText) };
  });
}
