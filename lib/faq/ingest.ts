/**
 * What ingest does for FAQs once a document is stored: recognise FAQ-shaped content offline (at once),
 * and, with a model configured, start generating pairs in the background (never awaited by ingest).
 */
import { createHash } from "node:crypto";
import type { Store } from "@/lib/store";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import { chunkFor, type ExtractedPair, extractFaqPairs } from "./extract";
import { generateAfterIngest } from "./generate";
import { getFaqStore, type NewFaq } from "./store";

function extractedFaqId(kb: string, documentId: string, question: string): string {
  return createHash("sha256").update(`${kb}\u0000${documentId}\u0000${question}`).digest("hex").slice(0, 24);
}

/** The FAQ entries recognised in a document's text, as extracted entries of that document. */
function extractedEntries(
  doc: Pick<DocumentRecord, "id" | "kb">,
  pairs: readonly ExtractedPair[],
  chunks: readonly Pick<ChunkRecord, "id" | "start" | "end">[],
): NewFaq[] {
  const seen = new Set<string>();
  const entries: NewFaq[] = [];
  for (const p of pairs) {
    const id = extractedFaqId(doc.kb, doc.id, p.question);
    if (seen.has(id)) continue;
    seen.add(id);
    entries.push({
      id,
      kb: doc.kb,
      question: p.question,
      answer: p.answer,
      source: { documentId: doc.id, chunkId: chunkFor(chunks, p.answerStart), label: "document" },
      origin: "extracted",
    });
  }
  return entries;
}

export interface StoredDocument {
  doc: DocumentRecord;
  text: string;
  chunks: readonly ChunkRecord[];
  /** The text's FAQ pairs when already recognised (by the parse worker); else they are recognised here. */
  faqPairs?: readonly ExtractedPair[];
}

/**
 * The ingest hook, for one document or a batch committed together (one FAQ table read and write for all):
 * a failure here is logged and never fails the ingest (the documents are already stored and searchable).
 */
export async function afterDocumentsStored(store: Store, stored: readonly StoredDocument[]): Promise<void> {
  try {
    const docs = stored.map((s) => ({
      documentId: s.doc.id,
      entries: extractedEntries(s.doc, s.faqPairs ?? extractFaqPairs(s.text), s.chunks),
    }));
    await (await getFaqStore(store)).replaceForDocuments("extracted", docs);
  } catch (err) {
    console.error(`[faq] extraction from ${stored.map((s) => `"${s.doc.source}"`).join(", ")} failed:`, err);
  }
  for (const { doc, chunks } of stored) {
    try {
      generateAfterIngest(store, doc, chunks);
    } catch (err) {
      console.error(`[faq] could not start generation for "${doc.source}":`, err);
    }
  }
}
