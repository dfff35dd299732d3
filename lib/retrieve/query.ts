/**
 * Query analysis: what of a question is worth matching. Question words and function words are dropped in
 * both languages (the index keeps them; only the query forgets them), English words are stemmed exactly as
 * the index stems them, numbers and dates stay, Chinese is cut into dictionary words.
 */

import { CJK_WORD_CLASS as CJK, KANA_HANGUL_WORD_CLASS } from "@/lib/text/cjk";
import { STOP_WORDS } from "@/lib/tokenize";
import { indexStem, toIndexText } from "@/lib/tokenize/index-text";
import { segmentWords } from "@/lib/tokenize/segment";

/** Chinese question and function words: they say what kind of answer is wanted, not what it is about. */
const ZH_STOP_WORDS = new Set(
  (
    "什么 什么样 哪 哪些 哪个 哪里 哪儿 哪家 哪位 哪种 哪年 哪天 谁 多少 几 几个 怎么 怎样 怎么样 如何 为什么 为何 是否 " +
    "吗 呢 吧 啊 呀 的 地 得 了 着 过 是 在 和 与 及 或 并 被 把 对 于 从 向 将 有 有何 有哪些 请问 请 这 那 这个 那个 " +
    "这些 那些 其 之 也 都 就 还 又 该 所 以 为 会 能 可以 可 要 中 时 到 给 让 由 而 等 等等 一个 一些"
  ).split(" "),
);

/** Chinese particles: never the start of a name. */
const PARTICLES = new Set("的 地 得 了 着 过 吗 呢 吧 啊 呀 之 所 和 与 及 或 并".split(" "));

/** English question words beyond the index's stop list (which already has what/which/who/how/…). */
const EN_QUESTION_WORDS = new Set("many much kind type name named called does did during whether among via".split(" "));
/**
 * Words the index keeps because they also name something ("May", "US"), dropped from a question only where it
 * writes them in lower case ("may cause", "tell us").
 */
const CASED_WORDS: Record<string, RegExp> = { may: /\bMay\b/, us: /\bU\.?S\b/ };

const RUN_RE = new RegExp(`[${CJK}]+|(?:(?![${CJK}])[\\p{L}\\p{N}\\p{M}])+`, "gu");
const HAN_RE = /^\p{Script=Han}/u;
const KANA_HANGUL_START = new RegExp(`^[${KANA_HANGUL_WORD_CLASS}]`, "u");

export interface QueryTerm {
  /** Stemmed lowercase word, a number, or a Chinese word (matched as a substring). */
  key: string;
  kind: "word" | "number" | "cjk";
}

export interface AnalyzedQuery {
  /** Full-text query: index tokens of the question with question and function words removed. */
  indexText: string;
  /** Content terms in question order, without repeats: what the reranker looks for. */
  terms: QueryTerm[];
}

/** Lowercased, NFKC-normalized, Latin diacritics folded: the form both query and chunk are matched in. */
export function normalizeForMatch(text: string): string {
  // The reranker normalizes every candidate of every query: skip the steps that cannot change the text.
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  const folded = text.normalize("NFKC").toLowerCase();
  return DECOMPOSABLE.test(folded)
    ? folded
        .normalize("NFD")
        .replace(/[\u0300-\u036f]/g, "")
        .normalize("NFC")
    : folded;
}
/** Anything beyond printable ASCII, tabs and line breaks. */
const NON_ASCII = /[^\t\n\r -~]/;
/**
 * Characters NFD can split into a base and the combining marks removed above (Latin, Greek and Cyrillic letters
 * with diacritics), and those marks themselves. No `u` flag and no \p{M}: with them the test took three times
 * as long as the normalization it guards (13 µs on a 1,500-character Chinese chunk, 50 chunks per search); marks
 * outside U+0300–U+036F are not removed, so finding them changed nothing.
 */
const DECOMPOSABLE = /[\u00c0-\u024f\u0370-\u04ff\u1e00-\u1fff]|[\u0300-\u036f]/;

export function analyzeQuery(query: string, opts: { stopWords?: boolean } = {}): AnalyzedQuery {
  const useStop = opts.stopWords ?? true;
  const norm = normalizeForMatch(query);
  const questionWord = (w: string) => EN_QUESTION_WORDS.has(w) || (Object.hasOwn(CASED_WORDS, w) && !CASED_WORDS[w].test(query));
  const kept: string[] = [];
  const terms: QueryTerm[] = [];
  const seen = new Set<string>();
  const addTerm = (key: string, kind: QueryTerm["kind"]) => {
    if (!seen.has(key)) {
      seen.add(key);
      terms.push({ key, kind });
    }
  };
  for (const [run] of norm.matchAll(RUN_RE)) {
    if (HAN_RE.test(run)) {
      // Drop stop words; what remains is kept as separate pieces so no bigram straddles a dropped word.
      const words = segmentWords(run);
      const single = (k: number) => words[k]?.length === 1 && HAN_RE.test(words[k]) && !ZH_STOP_WORDS.has(words[k]);
      let name = "";
      words.forEach((w, k) => {
        // A one-character stop word (not a particle) before another lone character starts a word the
        // dictionary lacks (a name: 于乐 segments as 于 / 乐): it stays, and the lone characters are one term.
        const partOfName = w.length === 1 && single(k + 1) && !PARTICLES.has(w);
        if (useStop && ZH_STOP_WORDS.has(w) && !partOfName) {
          kept.push(" ");
          if (name) addTerm(name, "cjk");
          name = "";
          return;
        }
        kept.push(w);
        if (w.length === 1 && (partOfName || single(k))) {
          name += w;
          return;
        }
        if (name) addTerm(name, "cjk");
        name = "";
        addTerm(w, "cjk");
      });
      if (name) addTerm(name, "cjk");
      kept.push(" ");
    } else if (KANA_HANGUL_START.test(run)) {
      kept.push(run, " ");
      addTerm(run, "cjk");
    } else {
      kept.push(" ", run, " ");
      if (STOP_WORDS.has(run) || (useStop && questionWord(run))) continue;
      addTerm(/^\p{N}+$/u.test(run) ? run : indexStem(run), /^\p{N}+$/u.test(run) ? "number" : "word");
    }
  }
  // Only the words that survived go to full-text search; fall back to the whole question if none did.
  const content = terms.length ? kept.join("").replace(/\s+/g, " ") : norm;
  const dropped = useStop
    ? content
        .split(" ")
        .filter((w) => !questionWord(w))
        .join(" ")
    : content;
  return { indexText: toIndexText(dropped) || toIndexText(norm), terms };
}
