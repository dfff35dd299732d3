import { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } from "apache-arrow";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";

/** The column of chunks and FAQ entries that holds their index text (lib/tokenize toIndexText), full-text indexed. */
export const FTS_COLUMN = "index_text";

/** Bumped when the table layout changes incompatibly. */
export const SCHEMA_VERSION = "1";

export const TABLES = { documents: "documents", chunks: "chunks", meta: "meta" } as const;

/** Columns of `documents` other than the (possibly large) full text. */
export const DOCUMENT_COLUMNS = [
  "id",
  "kb",
  "title",
  "source",
  "content_hash",
  "size",
  "mime_type",
  "author",
  "tags",
  "origin",
  "chunk_count",
  "created_at",
  "updated_at",
];
/** Columns of `chunks` a reader needs (no vector, no index text). */
export const CHUNK_COLUMNS = ["id", "document_id", "kb", "chunk_index", "heading", "start_offset", "end_offset", "page", "text"];
/**
 * What a search takes of each of its candidates: the document and place are in the id (chunkId) and the
 * knowledge base is the document's, so they are not read. Each column is read for all 50 candidates of every
 * query, so each one left out saves time on every search (see docs/design-decisions.md).
 */
export const SEARCH_COLUMNS = ["id", "heading", "start_offset", "end_offset", "page", "text"];

/** A text column of a store table. */
export const textField = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
const str = textField;
/**
 * A chunk's text and index text: many short values, which Lance 2.1 compresses with FSST alone unless asked for
 * more. Asking for zstd adds block compression over them, which shrinks the index text by about a third (see
 * docs/design-decisions.md). (The documents' full texts are long values, which Lance already
 * compresses one by one.)
 */
const packedStr = (name: string) => new Field(name, new Utf8(), false, new Map([["lance-encoding:compression", "zstd"]]));
const int = (name: string, nullable = false) => new Field(name, new Int32(), nullable);

export const documentsSchema = new Schema([
  str("id"),
  str("kb"),
  str("title"),
  str("source"),
  str("content_hash"),
  int("size"),
  str("mime_type"),
  str("author", true),
  str("tags"),
  str("origin"),
  int("chunk_count"),
  str("text"),
  str("pages", true),
  str("created_at"),
  str("updated_at"),
]);

export function chunksSchema(dimension: number): Schema {
  return new Schema([
    str("id"),
    str("document_id"),
    str("kb"),
    int("chunk_index"),
    str("heading"),
    int("start_offset"),
    int("end_offset"),
    int("page", true),
    packedStr("text"),
    packedStr(FTS_COLUMN),
    str("text_hash"),
    ...vectorFields(dimension),
  ]);
}

/** The `vector` column for vectors of this many dimensions; none for an embedder that makes no vectors (0). */
export function vectorFields(dimension: number): Field[] {
  return dimension > 0 ? [new Field("vector", new FixedSizeList(dimension, new Field("item", new Float32(), true)), false)] : [];
}

/** The dimension of a table's `vector` column; 0 when it has none. */
export function vectorDimension(schema: Schema): number {
  return (schema.fields.find((f) => f.name === "vector")?.type as { listSize?: number } | undefined)?.listSize ?? 0;
}

/** A row's `vector` cell, or nothing when there is no vector (the column does not exist then). */
export function vectorCell(vector: number[]): { vector?: number[] } {
  return vector.length > 0 ? { vector } : {};
}

export const metaSchema = new Schema([str("key"), str("value")]);

/** A chunk as written: the reader's record plus what search needs. */
export interface StoredChunk extends ChunkRecord {
  /** Tokens for full-text search (lib/tokenize toIndexText of the embedded text). */
  indexText: string;
  /** sha256 of the embedded text; with the store's single embedder it keys the embedding cache (empty without vectors). */
  textHash: string;
  /** Empty when the store's embedder makes no vectors. */
  vector: number[];
}

/** A chunk's id: its document's and its place in it. */
export function chunkId(documentId: string, index: number): string {
  return `${documentId}:${index}`;
}

/** The document and place a chunk id names (chunkId reversed), or null when it is not one. */
export function parseChunkId(id: string): { documentId: string; index: number } | null {
  const at = id.lastIndexOf(":");
  const index = Number(id.slice(at + 1));
  return at > 0 && Number.isInteger(index) && index >= 0 && at + 1 < id.length ? { documentId: id.slice(0, at), index } : null;
}

export type DocumentRow = Record<string, unknown>;

/** The parsed content kept with a document, so it can be re-chunked and re-embedded without the original file. */
export interface DocumentBody {
  text: string;
  pages?: { page: number; start: number }[];
  /** `text` as UTF-8, when the parse worker encoded it already: a write then stores these bytes as they are. */
  utf8?: Uint8Array;
}

export function documentToRow(doc: DocumentRecord, body: DocumentBody): DocumentRow {
  return {
    id: doc.id,
    kb: doc.kb,
    title: doc.title,
    source: doc.source,
    content_hash: doc.contentHash,
    size: doc.size,
    mime_type: doc.mimeType,
    author: doc.author,
    tags: JSON.stringify(doc.tags),
    origin: doc.origin,
    chunk_count: doc.chunkCount,
    text: body.text,
    pages: body.pages?.length ? JSON.stringify(body.pages) : null,
    created_at: doc.createdAt,
    updated_at: doc.updatedAt,
  };
}

export function rowToDocument(r: DocumentRow): DocumentRecord {
  let tags: string[] = [];
  try {
    const parsed = JSON.parse(String(r.tags ?? "[]"));
    if (Array.isArray(parsed)) tags = parsed.map(String);
  } catch {
    /* a malformed tags cell reads as no tags */
  }
  return {
    id: String(r.id),
    kb: String(r.kb),
    title: String(r.title),
    source: String(r.source),
    contentHash: String(r.content_hash),
    size: Number(r.size),
    mimeType: String(r.mime_type),
    author: r.author == null ? null : String(r.author),
    tags,
    origin: String(r.origin) as DocumentRecord["origin"],
    chunkCount: Number(r.chunk_count),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

export function chunkToRow(c: StoredChunk): Record<string, unknown> {
  return {
    id: c.id,
    document_id: c.documentId,
    kb: c.kb,
    chunk_index: c.index,
    heading: c.heading,
    start_offset: c.start,
    end_offset: c.end,
    page: c.page,
    text: c.text,
    [FTS_COLUMN]: c.indexText,
    text_hash: c.textHash,
    ...vectorCell(c.vector),
  };
}

export function rowToChunk(r: Record<string, unknown>): ChunkRecord {
  return {
    id: String(r.id),
    documentId: String(r.document_id),
    kb: String(r.kb),
    index: Number(r.chunk_index),
    heading: String(r.heading ?? ""),
    start: Number(r.start_offset),
    end: Number(r.end_offset),
    page: r.page == null ? null : Number(r.page),
    text: String(r.text),
  };
}

export function rowToBody(r: DocumentRow): DocumentBody {
  const body: DocumentBody = { text: String(r.text) };
  if (r.pages != null) {
    try {
      body.pages = JSON.parse(String(r.pages));
    } catch {
      /* pages are a nicety; text alone still re-chunks */
    }
  }
  return body;
}
