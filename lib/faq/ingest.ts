/**
 * What ingest does for FAQs once a document is stored: recognise FAQ-shaped content offline (at once),
 * and, with a model configured, start generating pairs in the background (never awaited by ingest).
 */
import { createHash } from "node:crypto";
import type { Store } from "@/lib/store";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import { chunkFor, extractFaqPairs } from "./extract";
import { generateAfterIngest } from "./generate";
import { getFaqStore, type NewFaq } from "./store";

export function extractedFaqId(kb: string, documentId: string, question: string): string {
  return createHash("sha256").update(`${kb}\u0000${documentId}\u0000${question}`).digest("hex").slice(0, 24);
}

/** Replaces the document's extracted FAQ entries with those found in its text now. Returns how many. */
export async function extractDocumentFaqs(
  store: Store,
  doc: Pick<DocumentRecord, "id" | "kb">,
  text: string,
  chunks: readonly Pick<ChunkRecord, "id" | "start" | "end">[],
): Promise<number> {
  const pairs = extractFaqPairs(text);
  const faqs = await getFaqStore(store);
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
  await faqs.replaceForDocument(doc.id, "extracted", entries);
  return entries.length;
}

/**
 * The ingest hook: a failure here is logged and never fails the ingest (the document is already stored
 * and searchable).
 */
export async function afterDocumentStored(store: Store, doc: DocumentRecord, text: string, chunks: readonly ChunkRecord[]): Promise<void> {
  try {
    await extractDocumentFaqs(store, doc, text, chunks);
  } catch (err) {
    console.error(`[faq] extraction from "${doc.source}" failed:`, err);
  }
  try {
    generateAfterIngest(store, doc, chunks);
  } catch (err) {
    console.error(`[faq] could not start generation for "${doc.source}":`, err);
  }
}
