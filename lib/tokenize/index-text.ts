/**
 * The full-text index's tokens (server side): tokenize() with the Porter2 stemmer, plus the dictionary words
 * of Chinese runs (jieba, lib/tokenize/segment.ts). Kept apart from lib/tokenize/index.ts so the browser's
 * highlighter, which needs only tokenize(), bundles neither.
 */
import porter2 from "wink-porter2-stemmer";
import { memoized } from "@/lib/memo";
import { memoTerms, tokenizeWith } from "./index";
import { segmentWords } from "./segment";

/** Bumped whenever toIndexText's output changes: stores indexed with another version need a reindex. */
export const INDEX_TEXT_VERSION = "4";

/**
 * The full-text index's English stemmer, on index and query alike: Porter2 (Snowball English), which
 * conflates more than stem() ("infection/infected", "prevention/prevent", "economic/economy").
 */
export function indexStem(word: string): string {
  return word.length > 3 && /^[a-z]+$/.test(word) ? porterStem(word) : word;
}
/** Memoized: the reranker stems the words of every candidate of every query (a tenth of a search's CPU). */
const porterStem = memoized(porter2, (word: string) => word, 100_000);

/** tokenize() with indexStem, plus the dictionary words (2+ characters) of every Han run: the full-text index's tokens. */
export function indexTokens(text: string): string[] {
  const out = tokenizeWith(text, indexTerms);
  for (const [run] of text.normalize("NFKC").toLowerCase().matchAll(HAN_RUN_RE)) {
    // A two-character word is also one of the run's bigrams: counted twice, it outweighs straddling pairs.
    for (const w of segmentWords(run)) if (w.length >= 2) out.push(w);
  }
  return out;
}

/** Index tokens joined by single spaces: the form stored for, and queried against, full-text search. */
export function toIndexText(text: string): string {
  return indexTokens(text).join(" ");
}

const HAN_RUN_RE = /\p{Script=Han}{2,}/gu;

const indexTerms = memoTerms((w) => indexStem(w));
