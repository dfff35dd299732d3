/**
 * Shared domain types. Every stage of the pipeline (parse → chunk → embed → store → retrieve)
 * and every consumer (MCP tools, chat agent, routes, CLI) speaks these shapes.
 */

/** What a parser returns: the document as Markdown-ish text, plus where each page starts (PDF). */
export interface ParsedDocument {
  /** Full text of the document. Markdown headings (`#`…) become heading paths when chunked. */
  text: string;
  /** Title found in the document itself (first H1, <title>, PDF metadata…), if any. */
  title?: string;
  /** Detected MIME type, e.g. "text/markdown", "application/pdf". */
  mimeType: string;
  /** For paginated formats: character offset in `text` where each page begins, ascending. */
  pages?: { page: number; start: number }[];
  /** Tags and author the document declares itself (Markdown front matter). */
  tags?: string[];
  author?: string;
}

/** One chunk as produced by the chunker. Offsets are into ParsedDocument.text: text === source.slice(start, end). */
export interface Chunk {
  index: number;
  /** e.g. ["Handbook", "Leave", "Sick leave"]; empty when the chunk sits before any heading. */
  headingPath: string[];
  text: string;
  start: number;
  end: number;
  /** 1-based page number of the chunk's start, for paginated documents. */
  page?: number;
  /**
   * Indexed with the chunk but not part of its text: the header row of the table it starts inside, or the
   * sentence introducing the list it starts inside.
   */
  lead?: string;
}

export interface DocumentRecord {
  id: string;
  kb: string;
  title: string;
  /** File name as ingested, e.g. "handbook.md" (never a path). */
  source: string;
  contentHash: string;
  size: number;
  mimeType: string;
  author: string | null;
  tags: string[];
  /** How it got here. Start-up sync only removes documents that came from KNOWLEDGE_DIR ("knowledge"). */
  origin: "knowledge" | "upload" | "cli" | "mcp";
  chunkCount: number;
  createdAt: string; // ISO 8601
  updatedAt: string; // ISO 8601
}

export interface ChunkRecord {
  id: string;
  documentId: string;
  kb: string;
  index: number;
  /** Heading path joined with " › ". */
  heading: string;
  start: number;
  end: number;
  page: number | null;
  text: string;
}

/** One retrieval hit, as returned by lib/retrieve and shaped by the MCP search tool. */
export interface SearchHit {
  chunk: ChunkRecord;
  document: Pick<DocumentRecord, "id" | "title" | "source" | "kb">;
  /** Fused relevance score, higher is better. */
  score: number;
}

/** Progress of one file through the ingest pipeline (CLI progress bar, NDJSON upload stream). */
export type IngestStage = "received" | "parsing" | "chunking" | "embedding" | "indexing" | "done" | "skipped" | "failed";
export interface IngestProgress {
  file: string;
  stage: IngestStage;
  /** For "embedding": chunks embedded so far / total. */
  done?: number;
  total?: number;
  documentId?: string;
  chunkCount?: number;
  error?: string;
}

/** Typed error with a stable code and a message safe to show a user. */
export class AppError extends Error {
  constructor(
    public readonly code:
      | "bad_request"
      | "not_found"
      | "unsupported_type"
      | "too_large"
      | "parse_failed"
      | "embedder_mismatch"
      | "unauthorized"
      | "forbidden"
      | "rate_limited"
      | "conflict"
      | "internal",
    message: string,
    public readonly status: number = 400,
  ) {
    super(message);
    this.name = "AppError";
  }
}
