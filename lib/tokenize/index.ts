/**
 * Search tokens shared by keyword search (BM25 over LanceDB's whitespace tokenizer) and the
 * offline embedder, so Chinese and English text are matched the same way everywhere.
 *
 * - Latin & other spaced scripts: lowercased words, diacritics folded, light English stemming,
 *   a short English stop-word list dropped.
 * - CJK runs (Han, kana, hangul): every character plus every adjacent pair (tokenize), and for the
 *   full-text index also the dictionary words of Chinese runs (toIndexText), so a word-aligned pair
 *   counts more than a pair that straddles two words and long words match whole.
 * - Numbers are kept as tokens.
 */
import { memoized } from "@/lib/memo";
import { CJK_WORD_CLASS as CJK } from "@/lib/text/cjk";

/** A CJK run, or a run of letters/digits/marks that are not CJK. */
const TOKEN_RE = new RegExp(`[${CJK}]+|(?:(?![${CJK}])[\\p{L}\\p{N}\\p{M}])+`, "gu");
const CJK_RE = new RegExp(`^[${CJK}]`, "u");

export const STOP_WORDS = new Set(
  (
    "a an the and or but if of to in on at by for with from as into onto about over than then so " +
    "is are was were be been being am do does did done have has had having " +
    "it its this that these those there here their theirs they them he him his she her hers " +
    "we our ours you your yours i me my mine " +
    "can could will would shall should might must " +
    "what which who whom whose when where why how " +
    "not no nor also just only very s t"
  ).split(" "),
);

/** Tokens with the light stemmer (stem): what the offline embedder and the extractive answerer see. */
export function tokenize(text: string): string[] {
  return tokenizeWith(text, lightTerms);
}

/** A word run's term ("" for a stop word) under one stemmer, memoized: ingest and search see the same few
 * thousand words over and over, and folding and stemming them was a third of ingest's CPU time. */
type TermOf = (run: string) => string;
export function memoTerms(stemWord: (word: string) => string): TermOf {
  return memoized(
    (run: string) => {
      const word = run
        .normalize("NFD")
        .replace(/[\u0300-\u036f]/g, "")
        .normalize("NFC");
      return !word || STOP_WORDS.has(word) ? "" : stemWord(word);
    },
    (run) => run,
    100_000,
  );
}
const lightTerms = memoTerms((w) => stem(w));

export function tokenizeWith(text: string, termOf: TermOf): string[] {
  const out: string[] = [];
  for (const [run] of text.normalize("NFKC").toLowerCase().matchAll(TOKEN_RE)) {
    if (CJK_RE.test(run)) {
      pushCjk(run, out);
    } else {
      const term = termOf(run);
      if (term) out.push(term);
    }
  }
  return out;
}

function pushCjk(run: string, out: string[]): void {
  const chars = Array.from(run);
  for (let i = 0; i < chars.length; i++) {
    out.push(chars[i]);
    if (i + 1 < chars.length) out.push(chars[i] + chars[i + 1]);
  }
}

const VOWEL = /[aeiouy]/;

/**
 * A deliberately small English stemmer: plurals, -ed, -ing and a final -e, so that
 * "policies/policy", "leaves/leave/leaving", "approved/approve", "submitted/submit" meet.
 * Only pure a–z words longer than 3 letters are touched.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);

  if (w.endsWith("ied") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("ing") && w.length >= 6 && VOWEL.test(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length >= 5 && VOWEL.test(w.slice(0, -2))) w = undouble(w.slice(0, -2));

  if (w.endsWith("e") && w.length >= 4) w = w.slice(0, -1);
  return w;
}

/** "submitt" → "submit", "runn" → "run"; keeps -ll, -ss, -zz ("called" → "call"). */
function undouble(w: string): string {
  const n = w.length;
  if (n >= 3 && w[n - 1] === w[n - 2] && !/[aeiouylsz]/.test(w[n - 1])) return w.slice(0, -1);
  return w;
}
