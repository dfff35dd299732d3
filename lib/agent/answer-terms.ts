/** A question's terms and how a passage matches them, for the offline answerer (see answer.ts). */

import { CJK_RUN_RE as CJK_RUN } from "@/lib/text/cjk";
import { ZH_PARTICLES, ZH_QUESTION_WORDS } from "@/lib/text/zh-fillers";
import { STOP_WORDS, stem, tokenize } from "@/lib/tokenize";
import { segmentWords } from "@/lib/tokenize/segment";
import type { Passage, SentenceSpan } from "./extractive";

/** Question words and particles: they say what is asked, not what about. */
const EN_QUESTION = new Set(
  (
    "many much get gets got need needs please tell know about any some more most other way ways thing things give gives " +
    "let lets say says said explain describe summarize name named called call kind type one ones"
  )
    .split(" ")
    .map(stem),
);
const ZH_QUESTION = new Set([
  ...ZH_QUESTION_WORDS,
  ...ZH_PARTICLES,
  ...(
    "介绍 一下 说说 讲讲 解释 有没有 什么样 为何 哪儿 哪个 哪 多久 几 谁 是不是 能不能 可不可以 需要 应该 告诉 我们 你们 我 你 " +
    "呀 么 是 要 有 在 和 与 及 或 对 把 被 哪种 哪年 何时 何 主要 主打 一个 一些 这个 那个 这 那 其 该"
  ).split(" "),
]);

export interface Term {
  /** Stemmed English token, or a Chinese word matched as a substring. */
  key: string;
  cjk: boolean;
  /** Emphasis of the term within the question (1; follow-ups give the previous turn's terms less). */
  boost: number;
  /** How specific the term is (see specificity): weighs it when judging whether a chunk is about the question. */
  weight: number;
}

/**
 * How specific a term is, without corpus statistics: names and numbers (capitalized past the first word,
 * digits) and long words say more than short common ones; a Chinese word of three or more characters more
 * than one of two, a single character least. Weighs the question's terms when judging whether retrieval
 * found its subject at all (a chunk sharing only "year", "first", "中国" with it did not).
 */
function specificity(key: string, cjk: boolean, names: ReadonlySet<string>): number {
  if (cjk) {
    const n = Array.from(key).length;
    return n === 1 ? 0.5 : n === 2 ? 1 : 2;
  }
  const long = key.length >= 7 ? 2 : key.length >= 5 ? 1.3 : 1;
  return names.has(key) ? 2 * long : long;
}

export function questionTerms(question: string, boost = 1): Term[] {
  const terms = new Map<string, Term>();
  const latin = question.replace(CJK_RUN, " ");
  const names = new Set((latin.match(/(?<!^\s*)\b\p{Lu}\p{L}+|\d+/gu) ?? []).flatMap((w) => tokenize(w)));
  for (const t of tokenize(latin))
    if (!EN_QUESTION.has(t) && !STOP_WORDS.has(t)) terms.set(t, { key: t, cjk: false, boost, weight: specificity(t, false, names) });
  for (const [run] of question.normalize("NFKC").matchAll(CJK_RUN)) {
    // Without a dictionary entry jieba splits a word into characters ("年假" → 年 假): adjacent single
    // characters are joined back into one term.
    let singles = "";
    const flush = () => {
      if (singles) terms.set(singles, { key: singles, cjk: true, boost, weight: specificity(singles, true, names) });
      singles = "";
    };
    for (const word of segmentWords(run)) {
      // "几天", "多少年": the question word asks, the unit after it is content.
      const w = word.replace(/^(?:几|多少)(?=\p{Script=Han})/u, "");
      if (ZH_QUESTION.has(w) || !/\p{Script=Han}/u.test(w)) {
        flush();
        continue;
      }
      if (Array.from(w).length === 1) {
        singles += w;
        continue;
      }
      flush();
      terms.set(w, { key: w, cjk: true, boost, weight: specificity(w, true, names) });
    }
    flush();
  }
  return [...terms.values()];
}

/** A piece of text prepared for matching: its tokens (English) and its folded text (Chinese substrings). */
export interface Matchable {
  tokens: Set<string>;
  /** Adjacent token pairs ("annual leav"). */
  pairs: Set<string>;
  /** The first RELATED_PREFIX letters of its longer English tokens (see related). */
  prefixes: Set<string>;
  folded: string;
}

/**
 * English words sharing their first six letters are taken as one word when judging whether the documents cover
 * a question at all ("sculptural" in the question, "sculpture" in the text; "restoration", "restored"): the
 * stemmer leaves such derived forms apart, and an answerable question was refused for it. Sentences are still
 * ranked on exact stems (prefix matches there ranked the wrong sentence first more often on covidqa-en).
 */
const RELATED_PREFIX = 6;

export function matchable(text: string): Matchable {
  const tokens = tokenize(text.replace(CJK_RUN, " "));
  return {
    tokens: new Set(tokenize(text)),
    pairs: new Set(tokens.slice(1).map((b, i) => `${tokens[i]} ${b}`)),
    prefixes: new Set(tokens.filter((x) => x.length >= RELATED_PREFIX).map((x) => x.slice(0, RELATED_PREFIX))),
    folded: text.normalize("NFKC").toLowerCase(),
  };
}

/** Whether two terms stand next to each other in the text (English: adjacent tokens; Chinese: one after the other). */
export function phrased(m: Matchable, [a, b]: readonly [Term, Term]): boolean {
  if (a.cjk && b.cjk) return m.folded.includes(a.key + b.key);
  if (a.cjk || b.cjk) return false;
  return m.pairs.has(`${a.key} ${b.key}`);
}

export function has(m: Matchable, t: Term): boolean {
  return t.cjk ? m.folded.includes(t.key) : m.tokens.has(t.key);
}

/** has(), or an English word of the same first RELATED_PREFIX letters. */
export function related(m: Matchable, t: Term): boolean {
  return has(m, t) || (!t.cjk && t.key.length >= RELATED_PREFIX && m.prefixes.has(t.key.slice(0, RELATED_PREFIX)));
}

/**
 * Share (0..1) of `terms`, weighted by specificity, that a passage (its text, title and heading) contains;
 * `loose`: counting words related by their first letters (see related).
 */
export function termShare(terms: readonly Term[], p: Passage, loose = false): number {
  const total = terms.reduce((s, t) => s + t.weight, 0);
  if (!total) return 0;
  const body = matchable(p.text);
  const ctx = matchable(p.context);
  const found = loose ? related : has;
  return terms.reduce((s, t) => s + (found(body, t) || found(ctx, t) ? t.weight : 0), 0) / total;
}

export const recordMatchable = (span: SentenceSpan) => matchable(span.header ? `${span.header}\n${span.text}` : span.text);
