/**
 * Small-to-big: a search hit can carry the sentences just before and after its chunk, so a reader gets
 * whole thoughts without the index needing bigger chunks. Bounded by characters and cut at sentence ends.
 */
import type { Store } from "@/lib/store";
import { CJK_SPACELESS_CLASS } from "@/lib/text/cjk";
import { endsClause, sentenceEnds } from "@/lib/text/sentences";
import type { SearchHit } from "@/lib/types";

/** At most this many characters on each side. */
const CONTEXT_CHARS = 300;

/**
 * Trimmed, except for one line break on the side that touches the chunk: it says the chunk starts (or ends)
 * a line, where text without it says the chunk was cut inside a sentence that the context completes.
 */
function trimTowards(s: string, side: "start" | "end"): string {
  const t = s.trim();
  if (!t) return "";
  const gap = side === "end" ? s.slice(s.trimEnd().length) : s.slice(0, s.length - s.trimStart().length);
  const br = gap.includes("\n") ? "\n" : "";
  return side === "end" ? t + br : br + t;
}

/**
 * The whole sentences that end right before `start`, at most `max` characters (with the head of the
 * sentence the chunk starts in, when it starts inside one).
 */
export function textBefore(doc: string, start: number, max = CONTEXT_CHARS): string {
  const from = Math.max(0, start - max);
  const window = doc.slice(from, start);
  if (from === 0) return trimTowards(window, "end");
  // Start after the first sentence end inside the window, so the context begins with a whole sentence.
  const ends = sentenceEnds(window).filter((e) => e < window.length);
  return ends.length ? trimTowards(window.slice(ends[0]), "end") : "";
}

/** The whole sentences that start right after `end`, at most `max` characters (see textBefore). */
export function textAfter(doc: string, end: number, max = CONTEXT_CHARS): string {
  const to = Math.min(doc.length, end + max);
  const window = doc.slice(end, to);
  if (to === doc.length) return trimTowards(window, "start");
  const ends = sentenceEnds(window);
  return ends.length ? trimTowards(window.slice(0, ends[ends.length - 1]), "start") : "";
}

const CJK_EDGE = new RegExp(`[${CJK_SPACELESS_CLASS}]`, "u");

function join(a: string, b: string): string {
  return CJK_EDGE.test(a.at(-1) ?? "") || CJK_EDGE.test(b[0] ?? "") ? a + b : `${a} ${b}`;
}

/**
 * A chunk's text with the sentences it was cut inside made whole from its context (textBefore/textAfter):
 * chunks overlap and are cut at words, so a quote taken from one would otherwise start or stop mid-sentence.
 */
export function wholeSentences(text: string, before = "", after = ""): string {
  let out = text.trim();
  if (!out) return out;
  if (before && !before.endsWith("\n")) {
    const ends = sentenceEnds(before);
    const head = before.slice(ends.at(-1) ?? 0);
    const line = head.slice(head.lastIndexOf("\n") + 1).trim();
    if (line) out = join(line, out);
  }
  if (after && !after.startsWith("\n") && !endsClause(out)) {
    const first = sentenceEnds(after)[0] ?? after.length;
    const tail = after.slice(0, first);
    const line = tail.slice(0, tail.includes("\n") ? tail.indexOf("\n") : undefined).trim();
    if (line) out = join(out, line);
  }
  return out;
}

export interface HitContext {
  before: string;
  after: string;
}

/** The neighbouring sentences of each hit, in hit order (empty strings where the document text is gone). */
export async function hitContexts(store: Store, hits: readonly SearchHit[], max = CONTEXT_CHARS): Promise<HitContext[]> {
  const texts = await store.getDocumentTexts(hits.map((h) => h.document.id));
  return hits.map((h) => {
    const text = texts.get(h.document.id);
    if (!text) return { before: "", after: "" };
    return { before: textBefore(text, h.chunk.start, max), after: textAfter(text, h.chunk.end, max) };
  });
}
