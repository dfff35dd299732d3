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

import { has, type Matchable, matchable, phrased, recordMatchable, related, type Term, termShare } from "./answer-terms";
import { type AnswerType, hasAnswerOfType } from "./answer-type";
import { type Passage, type SentenceSpan, splitSentences } from "./extractive";

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

export interface ChunkReading {
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

/** Display length: CJK characters count double (they carry about two letters' worth each). */
export function width(s: string): number {
  let w = 0;
  for (const ch of s) w += /[\p{Script=Han}]/u.test(ch) ? 2 : 1;
  return w;
}
