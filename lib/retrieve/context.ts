/**
 * Small-to-big: a search hit can carry the sentences just before and after its chunk, so a reader gets
 * whole thoughts without the index needing bigger chunks. Bounded by characters and cut at sentence ends.
 */
import type { Store } from "@/lib/store";
import type { SearchHit } from "@/lib/types";

/** At most this many characters on each side. */
export const CONTEXT_CHARS = 300;

/** Positions just after a sentence end (Latin or CJK punctuation, or a blank line). */
const SENTENCE_END = /[.!?。！？；;…](?:["'”’」』)）\]])*(?=\s|$)|[。！？；](?:["'”’」』)）\]])*|\n\s*\n/gu;

function sentenceEnds(text: string): number[] {
  return [...text.matchAll(SENTENCE_END)].map((m) => m.index + m[0].length);
}

/** The whole sentences that end right before `start`, at most `max` characters. */
export function textBefore(doc: string, start: number, max = CONTEXT_CHARS): string {
  const from = Math.max(0, start - max);
  const window = doc.slice(from, start);
  if (from === 0) return window.trim();
  // Start after the first sentence end inside the window, so the context begins with a whole sentence.
  const ends = sentenceEnds(window).filter((e) => e < window.length);
  return ends.length ? window.slice(ends[0]).trim() : "";
}

/** The whole sentences that start right after `end`, at most `max` characters. */
export function textAfter(doc: string, end: number, max = CONTEXT_CHARS): string {
  const to = Math.min(doc.length, end + max);
  const window = doc.slice(end, to);
  if (to === doc.length) return window.trim();
  const ends = sentenceEnds(window);
  return ends.length ? window.slice(0, ends[ends.length - 1]).trim() : "";
}

export interface HitContext {
  before: string;
  after: string;
}

/** The neighbouring sentences of each hit, in hit order (empty strings where the document text is gone). */
export async function hitContexts(store: Store, hits: readonly SearchHit[], max = CONTEXT_CHARS): Promise<HitContext[]> {
  const ids = [...new Set(hits.map((h) => h.document.id))];
  const texts = new Map(await Promise.all(ids.map(async (id) => [id, await store.getDocumentText(id)] as const)));
  return hits.map((h) => {
    const text = texts.get(h.document.id);
    if (!text) return { before: "", after: "" };
    return { before: textBefore(text, h.chunk.start, max), after: textAfter(text, h.chunk.end, max) };
  });
}
