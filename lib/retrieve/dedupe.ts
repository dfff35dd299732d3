/** What near-duplicate detection needs to know about a chunk. */
export interface Span {
  documentId: string;
  start: number;
  end: number;
  text: string;
}

/** Share of the shorter chunk that must be covered by another chunk of the same document to count as a duplicate. */
const SAME_DOC_OVERLAP = 0.5;

/**
 * Drops near-duplicates from a best-first list, keeping the first (best) of each group. Two chunks are
 * near-duplicates when their whitespace-normalized texts are equal (the same passage in two files), or when
 * they come from the same document and their character ranges overlap by at least half of the shorter one
 * (ordinary chunk overlap is a sentence or two, far less than half). Stops once `limit` are kept.
 */
export function collapseNearDuplicates<T>(items: readonly T[], span: (item: T) => Span, limit = Infinity): T[] {
  const kept: { item: T; span: Span; norm: string }[] = [];
  const texts = new Set<string>();
  for (const item of items) {
    if (kept.length >= limit) break;
    const s = span(item);
    const norm = s.text.replace(/\s+/g, " ").trim();
    if (texts.has(norm)) continue;
    if (kept.some((k) => k.span.documentId === s.documentId && overlapRatio(k.span, s) >= SAME_DOC_OVERLAP)) continue;
    kept.push({ item, span: s, norm });
    texts.add(norm);
  }
  return kept.map((k) => k.item);
}

/** Overlap of two ranges as a share of the shorter one (0 when disjoint). */
export function overlapRatio(a: Pick<Span, "start" | "end">, b: Pick<Span, "start" | "end">): number {
  const inter = Math.min(a.end, b.end) - Math.max(a.start, b.start);
  const shorter = Math.min(a.end - a.start, b.end - b.start);
  if (inter <= 0 || shorter <= 0) return 0;
  return inter / shorter;
}
