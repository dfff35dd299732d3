/** The offline answerer's quotes: the sentences it answers a part of a question with (see answer.ts). */

import { hasCjk } from "@/lib/text/cjk";
import { endsClause } from "@/lib/text/sentences";
import { tokenize } from "@/lib/tokenize";
import { ANSWER_TUNING, type ChunkReading, type Expected, evidence, readPassages, width } from "./answer";
import { has, matchable, recordMatchable, type Term } from "./answer-terms";
import { cleanSentence, type Passage, recordText, type SentenceSpan } from "./extractive";

export interface Quote {
  n: number;
  text: string;
}

export type PartAnswer = { kind: "sentences"; quotes: Quote[] } | { kind: "closest"; quotes: Quote[] } | { kind: "none" };

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
