/**
 * Retrieval metrics for the eval sets under shared/eval (SQuAD / CMRC recast as passage retrieval).
 * Pure: used by scripts/eval.ts and the Vitest regression test alike.
 */

export interface EvalQuestion {
  id: string;
  question: string;
  gold_ids: string[];
  /** File name of the document holding the gold passage, e.g. "1973_oil_crisis.md". */
  gold_doc: string;
  answer: string;
  answers?: string[];
  /** Question type where the set has one (covidqa: single-/multi-passage; crud-rag: 1/2/3 news). */
  type?: string;
}

export interface CorpusPassage {
  id: string;
  title: string;
  text: string;
  doc: string;
}

/** One retrieved chunk as the metric sees it: its document's file name and its text. */
export interface RetrievedChunk {
  source: string;
  text: string;
}

/** A chunk "is" the gold passage when at least this share of the shorter of the two is shared text. */
const PASSAGE_OVERLAP = 0.5;

/**
 * Length of the text two spans of one document share. A chunk and a passage are both contiguous slices of
 * the same document, so what they share is contiguous too and is one of: all of one inside the other, a
 * suffix of `a` that is a prefix of `b`, or a suffix of `b` that is a prefix of `a`. This computes the
 * largest of those exactly (KMP prefix function, linear time). Spans that merely share words score 0.
 */
export function sharedSpanLength(a: string, b: string): number {
  if (!a || !b) return 0;
  if (a.includes(b)) return b.length;
  if (b.includes(a)) return a.length;
  return Math.max(suffixPrefix(a, b), suffixPrefix(b, a));
}

/** Longest k such that a ends with b.slice(0, k). */
function suffixPrefix(a: string, b: string): number {
  // Prefix function of b + SEP + a; the value at the end is the longest prefix of b that ends a.
  const s = `${b}\u0000${a}`;
  const pi = new Int32Array(s.length);
  for (let i = 1; i < s.length; i++) {
    let k = pi[i - 1];
    while (k > 0 && s[i] !== s[k]) k = pi[k - 1];
    if (s[i] === s[k]) k++;
    pi[i] = k;
  }
  return pi[s.length - 1];
}

/** Shared span as a share of the shorter text (0..1). */
export function overlapShare(chunkText: string, passageText: string): number {
  const shorter = Math.min(chunkText.length, passageText.length);
  return shorter === 0 ? 0 : sharedSpanLength(chunkText, passageText) / shorter;
}

/**
 * Passage-level hit: the chunk comes from the gold document AND either contains the answer (or any
 * annotator answer) verbatim, or shares at least PASSAGE_OVERLAP of the shorter of itself and a gold
 * passage (overlapShare).
 */
export function isPassageHit(q: EvalQuestion, chunk: RetrievedChunk, goldPassages: readonly string[]): boolean {
  if (chunk.source !== q.gold_doc) return false;
  const answers = [q.answer, ...(q.answers ?? [])].filter((a) => a?.trim());
  if (answers.some((a) => chunk.text.includes(a))) return true;
  return goldPassages.some((p) => overlapShare(chunk.text, p) >= PASSAGE_OVERLAP);
}

/** Document-level hit: the chunk comes from the gold document. */
export function isDocumentHit(q: EvalQuestion, chunk: RetrievedChunk): boolean {
  return chunk.source === q.gold_doc;
}

/** 1-based rank of the first hit, or null when none. */
export function firstHitRank(hits: readonly boolean[]): number | null {
  const i = hits.indexOf(true);
  return i < 0 ? null : i + 1;
}

export interface RecallSummary {
  questions: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  /** Mean reciprocal rank, counting only ranks ≤ 10. */
  mrrAt10: number;
}

/** Recall@k = share of questions whose first hit is at rank ≤ k; MRR@10 = mean of 1/rank (0 beyond 10). */
export function summarize(ranks: readonly (number | null)[]): RecallSummary {
  const n = ranks.length;
  const recall = (k: number) => (n ? ranks.filter((r) => r !== null && r <= k).length / n : 0);
  const mrr = n ? ranks.reduce<number>((s, r) => s + (r !== null && r <= 10 ? 1 / r : 0), 0) / n : 0;
  return { questions: n, recallAt1: recall(1), recallAt5: recall(5), recallAt10: recall(10), mrrAt10: mrr };
}

/** Ranks of the first passage-level and document-level hit for one question's results (best first). */
export function scoreQuestion(
  q: EvalQuestion,
  results: readonly RetrievedChunk[],
  corpus: ReadonlyMap<string, CorpusPassage>,
): { passageRank: number | null; documentRank: number | null } {
  const gold = q.gold_ids.map((id) => corpus.get(id)?.text).filter((t): t is string => !!t);
  return {
    passageRank: firstHitRank(results.map((c) => isPassageHit(q, c, gold))),
    documentRank: firstHitRank(results.map((c) => isDocumentHit(q, c))),
  };
}

export function parseJsonl<T>(text: string): T[] {
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
