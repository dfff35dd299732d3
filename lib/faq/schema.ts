import { Field, Schema, Utf8 } from "apache-arrow";
import { FTS_COLUMN, vectorCell, vectorFields } from "@/lib/store/schema";
import type { FaqOrigin, FaqRecord, FaqStatus } from "./types";

export const FAQ_TABLE = "faqs";
/** Model-generated pairs per section text, so an unchanged section is never sent to the model twice. */
export const FAQ_GENERATIONS_TABLE = "faq_generations";

/** Columns a reader needs (no vector, no index text). */
export const FAQ_COLUMNS = [
  "id",
  "kb",
  "question",
  "phrasings",
  "answer",
  "tags",
  "source_document_id",
  "source_chunk_id",
  "source_label",
  "origin",
  "status",
  "created_at",
  "updated_at",
];

const str = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);

export function faqsSchema(dimension: number): Schema {
  return new Schema([
    str("id"),
    str("kb"),
    str("question"),
    str("phrasings"),
    str("answer"),
    str("tags"),
    str("source_document_id", true),
    str("source_chunk_id", true),
    str("source_label"),
    str("origin"),
    str("status"),
    // Tokens of the question and its phrasings (lib/tokenize), for the full-text index.
    str(FTS_COLUMN),
    // The embedder the vector was made with; rows from another one are re-embedded on open.
    str("embedder"),
    ...vectorFields(dimension),
    str("created_at"),
    str("updated_at"),
  ]);
}

export const generationsSchema = new Schema([str("key"), str("pairs"), str("created_at")]);

function list(v: unknown): string[] {
  try {
    const parsed = JSON.parse(String(v ?? "[]"));
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

export function rowToFaq(r: Record<string, unknown>): FaqRecord {
  return {
    id: String(r.id),
    kb: String(r.kb),
    question: String(r.question),
    phrasings: list(r.phrasings),
    answer: String(r.answer),
    tags: list(r.tags),
    source: {
      documentId: r.source_document_id == null ? null : String(r.source_document_id),
      chunkId: r.source_chunk_id == null ? null : String(r.source_chunk_id),
      label: String(r.source_label ?? ""),
    },
    origin: String(r.origin) as FaqOrigin,
    status: String(r.status) as FaqStatus,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

export function faqToRow(f: FaqRecord, extra: { indexText: string; embedder: string; vector: number[] }): Record<string, unknown> {
  return {
    id: f.id,
    kb: f.kb,
    question: f.question,
    phrasings: JSON.stringify(f.phrasings),
    answer: f.answer,
    tags: JSON.stringify(f.tags),
    source_document_id: f.source.documentId,
    source_chunk_id: f.source.chunkId,
    source_label: f.source.label,
    origin: f.origin,
    status: f.status,
    [FTS_COLUMN]: extra.indexText,
    embedder: extra.embedder,
    ...vectorCell(extra.vector),
    created_at: f.createdAt,
    updated_at: f.updatedAt,
  };
}
