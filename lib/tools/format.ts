/**
 * Pure shaping of store records into what the MCP tools return: structured results and the text a model
 * reads. The one place that text is written: the MCP tools and the chat agent both use it.
 */
import { z } from "zod";
import { titleWithHeading } from "@/lib/chunk/heading";
import type { ChunkRecord, DocumentRecord, SearchHit } from "@/lib/types";
import type { SearchResult } from "./search-result";

export function toSearchResults(hits: SearchHit[], contexts?: readonly { before: string; after: string }[]): SearchResult[] {
  return hits.map((hit, i) => ({
    ref: i + 1,
    chunk_id: hit.chunk.id,
    document: { id: hit.document.id, title: hit.document.title, source: hit.document.source },
    kb: hit.document.kb,
    heading: hit.chunk.heading,
    text: hit.chunk.text,
    score: hit.score,
    ...(hit.chunk.page != null ? { page: hit.chunk.page } : {}),
    ...(contexts?.[i] ? { context_before: contexts[i].before, context_after: contexts[i].after } : {}),
  }));
}

function round(score: number): string {
  return Number.isFinite(score) ? String(Number(score.toPrecision(4))) : String(score);
}

function formatSearchResult(r: SearchResult): string {
  const meta = [`source: ${r.document.source}`];
  if (r.page !== undefined) meta.push(`page ${r.page}`);
  meta.push(`chunk_id: ${r.chunk_id}`, `score: ${round(r.score)}`);
  return `[${r.ref}] ${titleWithHeading(r.document.title, r.heading)}\n(${meta.join(", ")})\n${r.text.trim()}`;
}

export function formatSearchResults(results: SearchResult[], query: string, kb?: string): string {
  const where = kb ? ` in knowledge base "${kb}"` : "";
  if (results.length === 0) {
    return `No results found for "${query}"${where}. Try other or fewer keywords, or call list_documents to see what is available.`;
  }
  const head = `${results.length} result${results.length === 1 ? "" : "s"} for "${query}"${where}. Cite them by their [number].`;
  return [head, ...results.map(formatSearchResult)].join("\n\n");
}

/** A document as the tools list it (list_documents, add_document). */
export const documentSummarySchema = z.object({
  id: z.string().describe("document_id for read_document"),
  title: z.string(),
  source: z.string().describe("File name as ingested"),
  kb: z.string(),
  chunk_count: z.number().int(),
  mime_type: z.string(),
  updated_at: z.string(),
});
type DocumentSummary = z.infer<typeof documentSummarySchema>;

export function toDocumentSummary(d: DocumentRecord): DocumentSummary {
  return {
    id: d.id,
    title: d.title,
    source: d.source,
    kb: d.kb,
    chunk_count: d.chunkCount,
    mime_type: d.mimeType,
    updated_at: d.updatedAt,
  };
}

export function formatDocumentList(docs: DocumentSummary[], kb?: string): string {
  const where = kb ? `knowledge base "${kb}"` : "the knowledge base";
  if (docs.length === 0) return `No documents in ${where}.`;
  const lines = docs.map(
    (d) => `- ${d.title} (${d.source}) — document_id: ${d.id}, kb: ${d.kb}, ${d.chunk_count} chunk${d.chunk_count === 1 ? "" : "s"}`,
  );
  return [`${docs.length} document${docs.length === 1 ? "" : "s"} in ${where}:`, ...lines].join("\n");
}

export const MAX_READ_CHARS = 20_000;

export interface TextSlice {
  text: string;
  offset: number;
  /** Offset just past the returned text. */
  end: number;
  total_chars: number;
  truncated: boolean;
  next_offset?: number;
}

/** The part of a document's text starting at `offset`, at most `max` characters. Null when offset is past the end. */
export function sliceText(full: string, offset: number, max = MAX_READ_CHARS): TextSlice | null {
  if (offset > 0 && offset >= full.length) return null;
  const end = Math.min(full.length, offset + max);
  const truncated = end < full.length;
  return {
    text: full.slice(offset, end),
    offset,
    end,
    total_chars: full.length,
    truncated,
    ...(truncated ? { next_offset: end } : {}),
  };
}

function docHeader(d: Pick<DocumentRecord, "id" | "title" | "source" | "kb">): string {
  return `Document: ${d.title} (${d.source}) · document_id: ${d.id} · kb: ${d.kb}`;
}

export function formatDocumentText(d: Pick<DocumentRecord, "id" | "title" | "source" | "kb">, slice: TextSlice): string {
  const parts = [docHeader(d)];
  if (slice.offset > 0) parts.push(`[Continuing at character ${slice.offset} of ${slice.total_chars}.]`);
  parts.push(slice.text);
  if (slice.truncated) {
    parts.push(
      `[Truncated: showed characters ${slice.offset}–${slice.end} of ${slice.total_chars}. ` +
        `Call read_document again with offset: ${slice.end} to read on.]`,
    );
  }
  return parts.join("\n\n");
}

/** The chunks around `chunkId` (which must be in `chunks`, ordered by index): `before` ones, it, `after` ones. */
export function chunkWindow(chunks: ChunkRecord[], chunkId: string, before: number, after: number): ChunkRecord[] | null {
  const at = chunks.findIndex((c) => c.id === chunkId);
  if (at < 0) return null;
  return chunks.slice(Math.max(0, at - before), at + after + 1);
}

export interface WindowChunk {
  chunk_id: string;
  index: number;
  heading: string;
  text: string;
  page?: number;
  requested: boolean;
}

export function toWindowChunks(window: ChunkRecord[], requestedId: string): WindowChunk[] {
  return window.map((c) => ({
    chunk_id: c.id,
    index: c.index,
    heading: c.heading,
    text: c.text,
    ...(c.page != null ? { page: c.page } : {}),
    requested: c.id === requestedId,
  }));
}

export function formatChunkWindow(
  d: Pick<DocumentRecord, "id" | "title" | "source" | "kb">,
  window: WindowChunk[],
  totalChunks: number,
): string {
  const blocks = window.map((c) => {
    const label = [`chunk #${c.index}`];
    if (c.requested) label.push("requested");
    if (c.page !== undefined) label.push(`page ${c.page}`);
    const heading = c.heading ? ` ${titleWithHeading(d.title, c.heading)}` : "";
    return `[${label.join(", ")}]${heading}\n${c.text.trim()}`;
  });
  const first = window[0]?.index;
  const last = window[window.length - 1]?.index;
  return [docHeader(d), `Chunks #${first}–#${last} of ${totalChunks}, in document order:`, ...blocks].join("\n\n");
}
