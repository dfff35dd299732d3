/**
 * The offline answerer's reading of retrieved chunks: which whole sentences answer a question, and how
 * sure it can be. Server-only (Chinese goes through the jieba segmentation retrieval uses).
 *
 * A question's terms are its content words (English: stemmed tokens without stop and question words;
 * Chinese: dictionary words without question particles). Each term is weighted by its IDF over the
 * retrieved chunks (a term every chunk has says little about which sentence answers; one no chunk has
 * says the documents may not cover the question). A sentence's score is the weighted share of the terms it
 * contains, with its chunk's title and heading counting a little, plus bonuses for holding the kind of
 * answer asked for, the question's adjacent word pairs, and the question's words in the sentences around it;
 * a chunk's score is the share its whole text and heading contain, which measures how well retrieval itself
 * went. Whether to answer at all is judged on evidence() (the best chunk's score and a few signals of the
 * best sentence), calibrated on questions of another set against the same language's documents.
 */

import { CJK_RUN_RE as CJK_RUN, hasCjk } from "@/lib/text/cjk";
import { endsClause } from "@/lib/text/sentences";
import { ZH_PARTICLES, ZH_QUESTION_WORDS } from "@/lib/text/zh-fillers";
import { STOP_WORDS, stem, tokenize } from "@/lib/tokenize";
import { segmentWords } from "@/lib/tokenize/segment";
import { type AnswerType, hasAnswerOfType } from "./answer-type";
import { cleanSentence, type Passage, recordText, type SentenceSpan, splitSentences } from "./extractive";

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
interface Matchable {
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

function matchable(text: string): Matchable {
  const tokens = tokenize(text.replace(CJK_RUN, " "));
  return {
    tokens: new Set(tokenize(text)),
    pairs: new Set(tokens.slice(1).map((b, i) => `${tokens[i]} ${b}`)),
    prefixes: new Set(tokens.filter((x) => x.length >= RELATED_PREFIX).map((x) => x.slice(0, RELATED_PREFIX))),
    folded: text.normalize("NFKC").toLowerCase(),
  };
}

/** Whether two terms stand next to each other in the text (English: adjacent tokens; Chinese: one after the other). */
function phrased(m: Matchable, [a, b]: readonly [Term, Term]): boolean {
  if (a.cjk && b.cjk) return m.folded.includes(a.key + b.key);
  if (a.cjk || b.cjk) return false;
  return m.pairs.has(`${a.key} ${b.key}`);
}

function has(m: Matchable, t: Term): boolean {
  return t.cjk ? m.folded.includes(t.key) : m.tokens.has(t.key);
}

/** has(), or an English word of the same first RELATED_PREFIX letters. */
function related(m: Matchable, t: Term): boolean {
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

interface Candidate {
  n: number;
  /** Rank of the chunk among the retrieved ones (0 = first). */
  rank: number;
  /** Index of the sentence within its chunk. */
  index: number;
  span: SentenceSpan;
  score: number;
  /** What the score is made of (for tuning and tests). */
  features?: Record<string, number>;
}

interface ChunkReading {
  passage: Passage;
  rank: number;
  sentences: SentenceSpan[];
  /** Share of the question's terms (weighted by specificity, not IDF) in the chunk's text and heading. */
  score: number;
}

export interface Reading {
  terms: Term[];
  chunks: ChunkReading[];
  /** Sentences, best first. */
  candidates: Candidate[];
  /** Share of the question's terms (by specificity) found anywhere in the retrieved chunks. */
  covered: number;
}

/** Tunables of the answerer; one configuration for every language and document set. */
export const ANSWER_TUNING = {
  /** Below this evidence (see evidence()), retrieval found nothing about the question: refuse. */
  refuseBelow: 1.21,
  /**
   * What the evidence adds to the best chunk's score: the share of the question's words found anywhere
   * retrieved, the best sentence's share of adjacent question-word pairs and of question words around it,
   * the best sentence's own score, and ln(1 + the question's words, at most evidenceTermsCap): the same
   * shares are stronger evidence for a question of many words, which a chance match rarely covers.
   */
  evidenceCovered: 0.25,
  evidencePhrase: 0.4,
  evidenceLocal: 0.25,
  evidenceScore: 0.1,
  evidenceTerms: 0.15,
  evidenceTermsCap: 14,
  /** What it takes off: for a question of at most fewTerms words (a chance match is likelier), and when the best sentence lacks the kind of answer asked for. */
  fewTerms: 3,
  fewTermsPenalty: 0.1,
  untypedPenalty: 0.1,
  /** A sentence with at least this score answers the question on its own. */
  sentenceAt: 0.6,
  /** Other sentences of the best one's chunk are quoted too (up to maxQuotes) when they reach this share of its score. */
  alsoAt: 0.65,
  /** Sentences of other chunks only when they match the question about as well as the best: this share of its score. */
  closeAt: 0.85,
  /** At most this many quotes (runs of adjacent sentences of one chunk) per question. */
  maxQuotes: 3,
  /** At most this many sentences in all (a list quoted whole counts its items). */
  maxSentences: 2,
  /** Added to a sentence's score when it holds the kind of answer the question asks for (a year, a number, a name). */
  typeBonus: 0.3,
  /** Added in proportion to the share of the question's adjacent word pairs that a sentence has together. */
  phraseBonus: 0.18,
  /** Weight of the heading and title when scoring a sentence (the sentence itself weighs 1). */
  contextWeight: 0.5,
  /** Weight of a question word found only in the sentence before (what "it" or "the network" refers to). */
  neighbourWeight: 0.35,
  /** Length caps in characters for one answer part (CJK text counts double). */
  maxChars: 700,
  maxSentenceChars: 420,
  idfStrength: 1,
  /** Score taken off a sentence per place its chunk is ranked below the first. */
  rankPenalty: 0.05,
  absentDf: 0,
  /**
   * Added in proportion to the share of the question's words (by specificity) that the sentence and its
   * neighbours hold together: an answer sits among the question's other words, not in a passing mention.
   */
  localWeight: 0.17,
};

/** What the question asks for, when its question word says (answer-type.ts), with the question to tell new from repeated. */
export interface Expected {
  type: AnswerType;
  question: string;
}

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
  const hits = readings.map((m) => terms.map((t) => related(m, t)));
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

/** Share of the question's terms (plain weights) in the window of sentences around sentence `i` (its own, one before, one after). */
function localShare(
  readings: readonly Matchable[],
  terms: readonly Term[],
  inCtx: readonly boolean[],
  weights: readonly number[],
  i: number,
): number {
  const lo = Math.max(0, i - 1);
  const hi = Math.min(readings.length - 1, i + 1);
  return terms.reduce((s, t, k) => {
    if (inCtx[k]) return s + weights[k];
    for (let j = lo; j <= hi; j++) if (has(readings[j], t)) return s + weights[k];
    return s;
  }, 0);
}

export function readPassages(terms: readonly Term[], passages: readonly Passage[], t = ANSWER_TUNING, expected?: Expected): Reading {
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
  const plain = terms.map((term) => term.boost * term.weight);
  const plainTotal = plain.reduce((s, w) => s + w, 0);
  const chunks: ChunkReading[] = [];
  const candidates: Candidate[] = [];
  // Pairs of question words next to each other: a sentence that has them together says what the question says.
  const pairs = terms.slice(1).map((b, i) => [terms[i], b] as const);
  prepared.forEach(({ p, ctx, body }, rank) => {
    const inCtx = terms.map((t) => has(ctx, t));
    // A table's header row answers nothing alone; its column names belong to each of its rows.
    const sentences = splitSentences(p.text).filter((x) => x.record !== "header");
    const read = sentences.map(recordMatchable);
    const chunkScore = plainTotal ? bestWindowShare(sentences, read, terms, inCtx, plain) / plainTotal : 0;
    // A chunk whose sentences cannot be told apart (none found) is judged as a whole.
    const score = sentences.length
      ? chunkScore
      : terms.reduce((s, term, i) => s + (inCtx[i] || has(body, term) ? plain[i] : 0), 0) / (plainTotal || 1);
    chunks.push({ passage: p, rank, sentences, score });
    sentences.forEach((span, index) => {
      const m = read[index];
      const prev = index > 0 ? read[index - 1] : undefined;
      let s = 0;
      let own = 0;
      let ownIdf = 0;
      let ownPlain = 0;
      terms.forEach((term, i) => {
        if (has(m, term)) {
          s += idf[i];
          ownIdf += idf[i];
          ownPlain += plain[i];
          own++;
        } else if (inCtx[i]) s += t.contextWeight * idf[i];
        else if (prev && has(prev, term)) s += t.neighbourWeight * idf[i];
      });
      // A chunk that starts mid-sentence ("back into the chloroplast…"): its first piece is not quoted.
      if (own === 0 || !total || (index === 0 && /^[\p{Ll},;)]/u.test(span.text))) return;
      const typed = expected && hasAnswerOfType(expected.type, span.text, expected.question) ? t.typeBonus : 0;
      const phrase = pairs.length ? (t.phraseBonus * pairs.filter((x) => phrased(m, x)).length) / pairs.length : 0;
      const local = plainTotal ? localShare(read, terms, inCtx, plain, index) / plainTotal : 0;
      const features = {
        share: s / total,
        own: ownIdf / total,
        plain: ownPlain / (plainTotal || 1),
        typed: typed ? 1 : 0,
        phrase: pairs.length ? pairs.filter((x) => phrased(m, x)).length / pairs.length : 0,
        local,
        chunk: chunkScore,
        rank,
        index,
        len: Math.log(1 + width(span.text)),
        hasType: expected ? 1 : 0,
      };
      const score = s / total - t.rankPenalty * rank + typed + phrase + t.localWeight * local;
      candidates.push({ n: p.n, rank, index, span, score, features });
    });
  });
  candidates.sort((a, b) => b.score - a.score || a.rank - b.rank || a.index - b.index);
  const all = { n: 0, context: passages.map((x) => x.context).join("\n"), text: passages.map((x) => x.text).join("\n") };
  return { terms: [...terms], chunks, candidates, covered: termShare(terms, all, true) };
}

/**
 * How sure the answerer can be that the retrieved chunks answer the question at all: the best chunk's
 * score (the question's words, by specificity, in its best window), plus how much of the question the
 * retrieved chunks hold anywhere, how closely the best sentence follows the question (its adjacent word
 * pairs, its words around it, its score) and how many words the question has; less for a question of very
 * few words, and for a best sentence without the kind of answer the question asks for (no year for "when",
 * no number for "how many"). Calibrated on questions of another set against the same language's documents
 * (which they cannot answer).
 */
export function evidence(reading: Reading, t = ANSWER_TUNING, expected?: Expected): number {
  if (reading.chunks.length === 0) return 0;
  const bestChunk = Math.max(...reading.chunks.map((c) => c.score));
  const f = reading.candidates[0]?.features;
  const untyped = expected !== undefined && !f?.typed;
  return (
    bestChunk +
    t.evidenceCovered * reading.covered +
    t.evidencePhrase * (f?.phrase ?? 0) +
    t.evidenceLocal * (f?.local ?? 0) +
    t.evidenceScore * (reading.candidates[0]?.score ?? 0) +
    t.evidenceTerms * Math.log1p(Math.min(reading.terms.length, t.evidenceTermsCap)) -
    (reading.terms.length <= t.fewTerms ? t.fewTermsPenalty : 0) -
    (untyped ? t.untypedPenalty : 0)
  );
}

// ---------------------------------------------------------------------------------------------

export interface Quote {
  n: number;
  text: string;
}

export type PartAnswer = { kind: "sentences"; quotes: Quote[] } | { kind: "closest"; quotes: Quote[] } | { kind: "none" };

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
 * A long record cut to its fields that matter: the first (its key: which row it is) and those holding the
 * question's words, in their order, "…" where fields were left out. Never a field of another record.
 */
function trimRecord(text: string, terms: readonly Term[], limit: number): string {
  if (width(text) <= limit) return text;
  const fields = text.split(" · ");
  const kept = fields.filter((f, i) => {
    const m = matchable(f);
    return i === 0 || terms.some((t) => has(m, t));
  });
  return `${kept.join(" · ")}${kept.length < fields.length ? " · …" : ""}`;
}

/**
 * Extends a chosen sentence to a readable unit: the rest of its list when it is a list item or introduces
 * one ("…as follows:"). A sentence opening with a pronoun ("It was…") is quoted alone, the answer first:
 * its chunk, one click away, has the sentence before.
 */
function unitAround(chunk: ChunkReading, index: number): number[] {
  const ss = chunk.sentences;
  const out = [index];
  const s = ss[index];
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
export function answerPart(terms: readonly Term[], passages: readonly Passage[], t = ANSWER_TUNING, expected?: Expected): PartAnswer {
  if (terms.length === 0 || passages.length === 0) return { kind: "none" };
  const reading = readPassages(terms, passages, t, expected);
  const bestChunk = reading.chunks.reduce((a, b) => (b.score > a.score ? b : a));
  if (evidence(reading, t, expected) < t.refuseBelow) return { kind: "none" };
  const best = reading.candidates[0];
  // The chunk is about the question but no sentence stands out: quote its best sentences as the closest passage.
  const kind = best && best.score >= t.sentenceAt ? "sentences" : "closest";
  if (!best) {
    if (bestChunk.sentences.length === 0) return { kind: "none" };
    return { kind, quotes: quotesFrom(bestChunk, [0], terms, t) };
  }
  // The answer first: the best sentence (with its list: see unitAround), then only sentences
  // that add to the same answer: from the same chunk (its section), or matching the question about as well.
  const units: { rank: number; indices: number[] }[] = [];
  const picked: string[] = [];
  let used = 0;
  let sentences = 0;
  for (const c of reading.candidates) {
    if (c.score < best.score * t.alsoAt || units.length >= t.maxQuotes) break;
    if (picked.some((p) => similar(p, c.span.text))) continue;
    if (units.length > 0 && c.rank !== best.rank && c.score < best.score * t.closeAt) continue;
    if (units.some((u) => u.rank === c.rank && u.indices.includes(c.index))) continue;
    // Another record joins a record's answer only when it holds every question word the best one does (two
    // offices in Germany, not Berlin's row after Shanghai's: "the Shanghai office's phone number").
    if (units.length > 0 && best.span.record && c.span.record && !holdsAll(c.span, terms, best.span)) continue;
    const chunk = reading.chunks[c.rank];
    const unit = unitAround(chunk, c.index);
    if (units.length > 0 && sentences + unit.length > t.maxSentences) continue;
    const w = unit.reduce((s, i) => s + Math.min(width(chunk.sentences[i].text), t.maxSentenceChars), 0);
    if (units.length > 0 && used + w > t.maxChars) continue;
    used += w;
    sentences += unit.length;
    picked.push(c.span.text);
    // A sentence right after a unit of its chunk continues that quote; anything else is a quote of its own, after the answer.
    const before = units.find((u) => u.rank === c.rank && u.indices.at(-1)! + 1 >= unit[0] && u.indices[0] <= unit[0]);
    if (before) before.indices = [...new Set([...before.indices, ...unit])].sort((a, b) => a - b);
    else units.push({ rank: c.rank, indices: unit });
  }
  return { kind, quotes: units.flatMap((u) => quotesFrom(reading.chunks[u.rank], u.indices, terms, t)) };
}

const recordMatchable = (span: SentenceSpan) => matchable(span.header ? `${span.header}\n${span.text}` : span.text);

/** Whether `span` holds every one of `terms` that `other` holds. */
function holdsAll(span: SentenceSpan, terms: readonly Term[], other: SentenceSpan): boolean {
  const m = recordMatchable(span);
  const o = recordMatchable(other);
  return terms.every((t) => !has(o, t) || has(m, t));
}

/** The chosen sentences of one chunk as quotes: adjacent ones merged, in reading order. */
function quotesFrom(chunk: ChunkReading, indices: number[], terms: readonly Term[], t = ANSWER_TUNING): Quote[] {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const runs: number[][] = [];
  for (const i of sorted) {
    const last = runs.at(-1);
    // A record is a quote of its own.
    if (last && last.at(-1) === i - 1 && !chunk.sentences[i].record && !chunk.sentences[i - 1].record) last.push(i);
    else runs.push([i]);
  }
  const cjk = hasCjk(chunk.passage.text);
  return runs.map((run) => {
    const text = run
      .map((i) => {
        const s = chunk.sentences[i];
        const body = s.record
          ? trimRecord(recordText(s), terms, t.maxSentenceChars)
          : trimSentence(cleanSentence(s.text), terms, t.maxSentenceChars);
        // List items read as one sentence: "…: a; b; c."
        return s.item && run.length > 1 && !endsClause(body) ? `${body}${cjk ? "；" : ";"}` : body;
      })
      .join(cjk ? "" : " ")
      .replace(/[;；]$/, cjk ? "。" : ".");
    return { n: chunk.passage.n, text };
  });
}
