/**
 * FAQ first: search_knowledge (and every search_<kb>) puts the FAQ entries whose question matches the
 * query strongly before the passages, marked `type: "faq"`, with their source.
 */

import { faqUri } from "@/lib/limits";
import type { Store } from "@/lib/store";
import type { FaqSearchResult, SearchResult } from "@/lib/tools/search-result";
import { getFaqStore } from "./store";
import { type FaqHit, faqChunkId } from "./types";

/** At most this many context items go to the model when FAQs join the passages (unless top_k asks for more). */
const MAX_CONTEXT_ITEMS = 6;
/** At most this many FAQ entries go first. */
const MAX_FAQS_FIRST = 2;

export async function faqHitsToResults(store: Store, hits: FaqHit[]): Promise<FaqSearchResult[]> {
  const docs = await store.getDocuments(hits.map((h) => h.faq.source.documentId).filter((d): d is string => !!d));
  return hits.map(({ faq, score }, i) => {
    const doc = faq.source.documentId ? docs.get(faq.source.documentId) : undefined;
    return {
      ref: i + 1,
      type: "faq" as const,
      chunk_id: faqChunkId(faq.id),
      document: { id: doc?.id ?? "", title: "FAQ", source: doc?.source ?? `FAQ (${faq.source.label})` },
      kb: faq.kb,
      heading: faq.question,
      text: faq.answer,
      score,
      faq: {
        id: faq.id,
        question: faq.question,
        uri: faqUri(faq.kb, faq.id),
        source: { document_id: faq.source.documentId, chunk_id: faq.source.chunkId, label: faq.source.label },
      },
    };
  });
}

/** The FAQ entries that match a query strongly enough to go before its passages (none when the FAQ search fails). */
export async function strongFaqs(store: Store, query: string, kb: string | string[] | undefined): Promise<FaqSearchResult[]> {
  let hits: FaqHit[];
  try {
    const kbs = kb === undefined ? undefined : Array.isArray(kb) ? kb : [kb];
    hits = (await (await getFaqStore(store)).search(query, { kbs, limit: MAX_FAQS_FIRST })).filter((h) => h.strong);
  } catch (err) {
    // The passages still answer; a broken FAQ table must not break search.
    console.error("[faq] search failed:", err);
    return [];
  }
  return hits.length === 0 ? [] : faqHitsToResults(store, hits);
}

/** The passages of a search with the strongly matching FAQ entries (strongFaqs) first, renumbered. */
export function withFaqsFirst(faqs: FaqSearchResult[], passages: SearchResult[], topK: number): SearchResult[] {
  if (faqs.length === 0) return passages;
  const limit = Math.max(topK, Math.min(MAX_CONTEXT_ITEMS, topK + faqs.length));
  return [...faqs, ...passages].slice(0, limit).map((r, i) => ({ ...r, ref: i + 1 }));
}
