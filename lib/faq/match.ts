/**
 * How strongly a query matches a FAQ question: the overlap of their search tokens (lib/tokenize, so
 * Chinese and English are compared the same way), after dropping question words that carry no content.
 * Pure; the FAQ search re-scores its candidates with it.
 */
import { fillerPattern, QUESTION_PUNCTUATION, ZH_PARTICLES, ZH_QUESTION_WORDS } from "@/lib/text/zh-fillers";
import { tokenize } from "@/lib/tokenize";

/** Chinese question words and particles: "如何重置令牌？" and "令牌怎么重置" ask the same. */
const ZH_FILLER = fillerPattern([...ZH_QUESTION_WORDS, ...ZH_PARTICLES, "我"], QUESTION_PUNCTUATION);

export function questionTokens(text: string): Set<string> {
  return new Set(tokenize(text.replace(ZH_FILLER, " ")));
}

/** Dice coefficient of two token sets, 0..1. */
function dice(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/** Best overlap of the query with the question or any of its phrasings. */
export function lexicalMatch(query: string, questions: readonly string[]): number {
  return bestOverlap(questionTokens(query), questions.map(questionTokens));
}

/** lexicalMatch on token sets already made by questionTokens. */
export function bestOverlap(query: Set<string>, questions: readonly Set<string>[]): number {
  return Math.max(0, ...questions.map((s) => dice(query, s)));
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * A FAQ matches strongly (and goes before the passages) when most of the query's content is in its question
 * (token overlap), or, with a real embedding model, when the meaning is very close. The offline embedder
 * hashes the same tokens, so with it only the overlap counts.
 */
export const STRONG_LEXICAL = 0.6;
const STRONG_SEMANTIC = 0.8;

export function matchScore(lexical: number, semantic: number, offlineEmbedder: boolean): number {
  return offlineEmbedder ? lexical : Math.max(lexical, semantic * (STRONG_LEXICAL / STRONG_SEMANTIC));
}
