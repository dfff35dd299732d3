/**
 * The offline answerer's reading of retrieved chunks: which whole sentences answer a question, and how
 * sure it can be. Server-only (Chinese goes through the jieba segmentation retrieval uses).
 *
 * A question's terms are its content words (English: stemmed tokens without stop and question words;
 * Chinese: dictionary words without question particles). Each term is weighted by its IDF over the
 * retrieved chunks (a term every chunk has says little about which sentence answers; one no chunk has
 * says the documents may not cover the question). A sentence's score is the weighted share of the terms it
 * contains, with its chunk's title and heading counting a little; a chunk's score is the share its whole
 * text and heading contain, which measures how well retrieval itself went.
 */
import { STOP_WORDS, stem, tokenize } from "@/lib/tokenize";
import { segmentWords } from "@/lib/tokenize/segment";
import { cleanSentence, hasCjk, type Passage, type SentenceSpan, splitSentences } from "./extractive";

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/** Question words and particles: they say what is asked, not what about. */
const EN_QUESTION = new Set(
  (
    "many much get gets got need needs please tell know about any some more most other way ways thing things give gives " +
    "let lets say says said explain describe summarize name named called call kind type one ones"
  )
    .split(" ")
    .map(stem),
);
const ZH_QUESTION = new Set(
  (
    "请问 介绍 一下 说说 讲讲 解释 有没有 哪些 什么 什么样 怎么样 怎么 怎样 如何 为什么 为何 哪里 哪儿 哪个 哪 多少 多久 几 谁 " +
    "是不是 是否 能不能 能否 可不可以 可以 可否 需要 应该 告诉 我们 你们 我 你 吗 呢 吧 啊 呀 的 了 么 是 要 有 在 和 与 及 或 对 把 被 " +
    "哪些 哪种 哪年 何时 何 主要 主打 一个 一些 这个 那个 这 那 其 该"
  ).split(" "),
);

export interface Term {
  /** Stemmed English token, or a Chinese word matched as a substring. */
  key: string;
  cjk: boolean;
  /** Emphasis of the term within the question (1; follow-ups give the previous turn's terms less). */
  boost: number;
}

export function questionTerms(question: string, boost = 1): Term[] {
  const terms = new Map<string, Term>();
  const latin = question.replace(CJK_RUN, " ");
  for (const t of tokenize(latin)) if (!EN_QUESTION.has(t) && !STOP_WORDS.has(t)) terms.set(t, { key: t, cjk: false, boost });
  for (const [run] of question.normalize("NFKC").matchAll(CJK_RUN)) {
    // Without a dictionary entry jieba splits a word into characters ("年假" → 年 假): adjacent single
    // characters are joined back into one term.
    let singles = "";
    const flush = () => {
      if (singles) terms.set(singles, { key: singles, cjk: true, boost });
      singles = "";
    };
    for (const w of segmentWords(run)) {
      if (ZH_QUESTION.has(w) || !/\p{Script=Han}/u.test(w)) {
        flush();
        continue;
      }
      if (Array.from(w).length === 1) {
        singles += w;
        continue;
      }
      flush();
      terms.set(w, { key: w, cjk: true, boost });
    }
    flush();
  }
  return [...terms.values()];
}

/** A piece of text prepared for matching: its tokens (English) and its folded text (Chinese substrings). */
interface Matchable {
  tokens: Set<string>;
  folded: string;
}

function matchable(text: string): Matchable {
  return { tokens: new Set(tokenize(text)), folded: text.normalize("NFKC").toLowerCase() };
}

function has(m: Matchable, t: Term): boolean {
  return t.cjk ? m.folded.includes(t.key) : m.tokens.has(t.key);
}

export interface Candidate {
  n: number;
  /** Rank of the chunk among the retrieved ones (0 = first). */
  rank: number;
  /** Index of the sentence within its chunk. */
  index: number;
  span: SentenceSpan;
  score: number;
}

export interface ChunkReading {
  passage: Passage;
  rank: number;
  sentences: SentenceSpan[];
  /** Share of the question's terms (not IDF-weighted) in the chunk's text and heading. */
  score: number;
}

export interface Reading {
  terms: Term[];
  chunks: ChunkReading[];
  /** Sentences, best first. */
  candidates: Candidate[];
}

/** Tunables of the answerer; one configuration for every language and document set. */
export const ANSWER_TUNING = {
  /**
  /** Below this chunk score (over its best SCORE_WINDOW), retrieval found nothing about the question: refuse. */
  refuseBelow: 0.5,
  /** A sentence with at least this score answers the question on its own. */
  sentenceAt: 0.6,
  /** Other sentences are quoted too (up to maxQuotes) when they reach this share of the best one's score. */
  alsoAt: 0.4,
  /** At most this many quotes (runs of adjacent sentences of one chunk) per question. */
  maxQuotes: 3,
  /** Length caps in characters for one answer part (CJK text counts double). */
  maxChars: 700,
  maxSentenceChars: 420,
  idfStrength: 1,
  /** Score taken off a sentence per place its chunk is ranked below the first. */
  rankPenalty: 0.03,
  absentDf: 0,
};

/** Weight of the heading and title when scoring a sentence (the sentence itself weighs 1). */
const CONTEXT_WEIGHT = 0.5;

/**
 * Characters of consecutive sentences a chunk's score is read over (its heading counting throughout): a
 * chunk of a whole section (up to 1,500 characters) holds more of any question's words than the passage that
 * answers it, so the share is taken over its best window, about the size of the 500-character chunks the
 * refusal threshold was measured with.
 */
const SCORE_WINDOW = 500;

function bestWindowShare(
  sentences: readonly SentenceSpan[],
  readings: readonly Matchable[],
  terms: readonly Term[],
  inCtx: readonly boolean[],
  weights: readonly number[],
): number {
  const hits = readings.map((m) => terms.map((t) => has(m, t)));
  let best = 0;
  for (let i = 0; i < sentences.length; i++) {
    const covered = [...inCtx];
    for (let j = i; j < sentences.length && (j === i || sentences[j].end - sentences[i].start <= SCORE_WINDOW); j++)
      hits[j].forEach((h, k) => {
        if (h) covered[k] = true;
      });
    best = Math.max(
      best,
      covered.reduce((s, c, k) => s + (c ? weights[k] : 0), 0),
    );
  }
  return best;
}

export function readPassages(terms: readonly Term[], passages: readonly Passage[], t = ANSWER_TUNING): Reading {
  const prepared = passages.map((p) => ({ p, ctx: matchable(p.context), body: matchable(p.text) }));
  const n = prepared.length;
  const idf = terms.map((term) => {
    const df = prepared.filter((x) => has(x.body, term) || has(x.ctx, term)).length;
    // Chinese single characters match almost anything: half weight.
    const short = term.cjk && Array.from(term.key).length === 1 ? 0.5 : 1;
    return term.boost * short * (1 + t.idfStrength * Math.log((n + 1) / (Math.max(df, t.absentDf) + 1)));
  });
  const total = idf.reduce((s, w) => s + w, 0);
  // Whether retrieval found the question's subject is judged without IDF: a term every retrieved chunk
  // shares (the topic) is then evidence, not noise.
  const plain = terms.map((term) => term.boost * (term.cjk && Array.from(term.key).length === 1 ? 0.5 : 1));
  const plainTotal = plain.reduce((s, w) => s + w, 0);
  const chunks: ChunkReading[] = [];
  const candidates: Candidate[] = [];
  prepared.forEach(({ p, ctx, body }, rank) => {
    const inCtx = terms.map((t) => has(ctx, t));
    const sentences = splitSentences(p.text);
    const readings = sentences.map((span) => matchable(span.text));
    const chunkScore = plainTotal ? bestWindowShare(sentences, readings, terms, inCtx, plain) / plainTotal : 0;
    // A chunk whose sentences cannot be told apart (none found) is judged as a whole.
    const score = sentences.length
      ? chunkScore
      : terms.reduce((s, term, i) => s + (inCtx[i] || has(body, term) ? plain[i] : 0), 0) / (plainTotal || 1);
    chunks.push({ passage: p, rank, sentences, score });
    sentences.forEach((span, index) => {
      const m = readings[index];
      let s = 0;
      let own = 0;
      terms.forEach((t, i) => {
        if (has(m, t)) {
          s += idf[i];
          own++;
        } else if (inCtx[i]) s += CONTEXT_WEIGHT * idf[i];
      });
      // A chunk that starts mid-sentence ("back into the chloroplast…"): its first piece is not quoted.
      if (own === 0 || !total || (index === 0 && /^[\p{Ll},;)]/u.test(span.text))) return;
      candidates.push({ n: p.n, rank, index, span, score: s / total - t.rankPenalty * rank });
    });
  });
  candidates.sort((a, b) => b.score - a.score || a.rank - b.rank || a.index - b.index);
  return { terms: [...terms], chunks, candidates };
}

// ---------------------------------------------------------------------------------------------

export interface Quote {
  n: number;
  text: string;
}

export type PartAnswer = { kind: "sentences"; quotes: Quote[] } | { kind: "closest"; quotes: Quote[] } | { kind: "none" };

const ANAPHORA =
  /^(?:it|its|this|these|that|those|they|their|them|he|his|she|her|such|both|the latter|the former)\b|^(?:他|她|它|其|该|此|这|这些|上述)/i;

/** Display length: CJK characters count double (they carry about two letters' worth each). */
function width(s: string): number {
  let w = 0;
  for (const ch of s) w += /[\p{Script=Han}]/u.test(ch) ? 2 : 1;
  return w;
}

function similar(a: string, b: string): boolean {
  const ta = new Set(tokenize(a));
  const tb = new Set(tokenize(b));
  if (ta.size === 0 || tb.size === 0) return false;
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  return shared / Math.min(ta.size, tb.size) >= 0.8;
}

/** A long sentence cut to its best clauses (whole clauses, "…" where text was left out). */
function trimSentence(text: string, terms: readonly Term[], limit: number): string {
  if (width(text) <= limit) return text;
  const clauses = text.match(/[^，,；;：:]+[，,；;：:]?/gu) ?? [text];
  const scores = clauses.map((c) => {
    const m = matchable(c);
    return terms.reduce((s, t) => s + (has(m, t) ? t.boost : 0), 0);
  });
  let best = 0;
  scores.forEach((s, i) => {
    if (s > scores[best]) best = i;
  });
  let lo = best;
  let hi = best;
  let w = width(clauses[best]);
  while (true) {
    const next = hi + 1 < clauses.length ? width(clauses[hi + 1]) : Infinity;
    const prev = lo > 0 ? width(clauses[lo - 1]) : Infinity;
    if (next <= prev && w + next <= limit) {
      w += next;
      hi++;
    } else if (prev < Infinity && w + prev <= limit) {
      w += prev;
      lo--;
    } else if (next < Infinity && w + next <= limit) {
      w += next;
      hi++;
    } else {
      break;
    }
  }
  const body = clauses
    .slice(lo, hi + 1)
    .join("")
    .trim()
    .replace(/[，,；;：:]$/, "");
  return `${lo > 0 ? "…" : ""}${body}${hi < clauses.length - 1 ? "…" : ""}`;
}

/**
 * Extends a chosen sentence to a readable unit: the sentence before it when it opens with a pronoun
 * ("It was…"), and the rest of its list when it is a list item or introduces one ("…as follows:").
 */
function unitAround(chunk: ChunkReading, index: number): number[] {
  const ss = chunk.sentences;
  const out = [index];
  const s = ss[index];
  if (index > 0 && ANAPHORA.test(s.text) && ss[index - 1].line === s.line) out.unshift(index - 1);
  const listFrom = s.item ? index : /[:：]$/.test(s.text) && ss[index + 1]?.item ? index + 1 : -1;
  if (listFrom >= 0) {
    // Items before the chosen one (the same list), then after it; at most 8 in all.
    for (let i = index - 1; i >= 0 && s.item && ss[i].item && ss[i].line === (ss[i + 1].line ?? 0) - 1 && out.length < 8; i--)
      out.unshift(i);
    for (let i = index + 1; i < ss.length && ss[i].item && ss[i].line === (ss[i - 1].line ?? 0) + 1 && out.length < 8; i++) out.push(i);
  }
  return out;
}

/** Decides how to answer one question (or part of one) from what was retrieved for it. */
export function answerPart(terms: readonly Term[], passages: readonly Passage[], t = ANSWER_TUNING): PartAnswer {
  if (terms.length === 0 || passages.length === 0) return { kind: "none" };
  const reading = readPassages(terms, passages, t);
  const bestChunk = reading.chunks.reduce((a, b) => (b.score > a.score ? b : a));
  if (bestChunk.score < t.refuseBelow) return { kind: "none" };
  const best = reading.candidates[0];
  // The chunk is about the question but no sentence stands out: quote its best sentences as the closest passage.
  const kind = best && best.score >= t.sentenceAt ? "sentences" : "closest";
  if (!best) {
    if (bestChunk.sentences.length === 0) return { kind: "none" };
    return { kind, quotes: quotesFrom(bestChunk, [0], terms, t) };
  }
  const chosen = new Map<number, Set<number>>();
  const picked: string[] = [];
  let used = 0;
  for (const c of reading.candidates) {
    if (c.score < best.score * t.alsoAt) break;
    if (picked.some((p) => similar(p, c.span.text))) continue;
    const chunk = reading.chunks[c.rank];
    const unit = unitAround(chunk, c.index);
    const w = unit.reduce((s, i) => s + Math.min(width(chunk.sentences[i].text), t.maxSentenceChars), 0);
    if (picked.length > 0 && (used + w > t.maxChars || chosen.size >= t.maxQuotes)) continue;
    used += w;
    picked.push(c.span.text);
    const set = chosen.get(c.rank) ?? new Set<number>();
    for (const i of unit) set.add(i);
    chosen.set(c.rank, set);
  }
  const quotes: Quote[] = [];
  for (const [rank, set] of chosen) quotes.push(...quotesFrom(reading.chunks[rank], [...set], terms, t));
  return { kind, quotes };
}

/** The chosen sentences of one chunk as quotes: adjacent ones merged, in reading order. */
function quotesFrom(chunk: ChunkReading, indices: number[], terms: readonly Term[], t = ANSWER_TUNING): Quote[] {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const runs: number[][] = [];
  for (const i of sorted) {
    const last = runs.at(-1);
    if (last && last.at(-1) === i - 1) last.push(i);
    else runs.push([i]);
  }
  const cjk = hasCjk(chunk.passage.text);
  return runs.map((run) => {
    const text = run
      .map((i) => {
        const s = chunk.sentences[i];
        const body = trimSentence(cleanSentence(s.text), terms, t.maxSentenceChars);
        // List items read as one sentence: "…: a; b; c."
        return s.item && run.length > 1 && !/[.!?。！？；;:：]$/.test(body) ? `${body}${cjk ? "；" : ";"}` : body;
      })
      .join(cjk ? "" : " ")
      .replace(/[;；]$/, cjk ? "。" : ".");
    return { n: chunk.passage.n, text };
  });
}
