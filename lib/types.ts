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
  /** How it got here. Start-up sync only removes documents that came from KNOWLEDGE_DIR ("knowledge"); "source": a web, Git, bucket or folder source (lib/sources). */
  origin: "knowledge" | "upload" | "cli" | "mcp" | "source";
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
export type IngestStage = "received" | "parsing" | "ocr" | "chunking" | "embedding" | "indexing" | "done" | "skipped" | "failed";
export interface IngestProgress {
  file: string;
  stage: IngestStage;
  /** For "embedding": chunks embedded so far / total; for "ocr": the page being read / pages to read. */
  done?: number;
  total?: number;
  documentId?: string;
  chunkCount?: number;
  error?: string;
}

/**
 * The error codes of the API and the HTTP status each answers with: the one table (the browser reads the
 * codes to pick its messages). `upstream` is a model or embedding service that failed or refused.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  embedder_mismatch: 409,
  too_large: 413,
  unsupported_type: 415,
  parse_failed: 422,
  rate_limited: 429,
  cancelled: 499,
  internal: 500,
  upstream: 502,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The code of an HTTP status (metrics of answers that were not AppErrors). */
export function errorCodeOfStatus(status: number): ErrorCode {
  const found = (Object.entries(ERROR_STATUS) as [ErrorCode, number][]).find(([, s]) => s === status);
  return found ? found[0] : status >= 500 ? "internal" : "bad_request";
}

/**
 * Typed error with a stable code and a message safe to show a user; its status comes from ERROR_STATUS. An
 * upstream service's refusal keeps its cause as the code (unauthorized, rate_limited…) with 502 or 503 as status.
 */
export class AppError extends Error {
  public readonly status: number;
  constructor(
    public readonly code: ErrorCode,
    message: string,
    status?: number,
    /** The knowledge base the refused request named, for the audit log. */
    public readonly kb?: string,
    /** Facts a client shows in its own words and language (for example which knowledge bases a reader lacks). */
    public readonly detail?: Readonly<Record<string, string | string[]>>,
  ) {
    super(message);
    this.name = "AppError";
    this.status = status ?? ERROR_STATUS[code];
  }
}
