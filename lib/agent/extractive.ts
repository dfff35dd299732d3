/**
 * Sentence splitting and sentence-level relevance, shared by the offline answerer (answer.ts, which
 * quotes whole sentences of the retrieved chunks) and the UI (which highlights the passage of a chunk
 * that an answer sentence cites). Pure functions; safe to import in the browser.
 *
 * Relevance is "coverage": the share of the question's content that a sentence (plus its chunk's
 * heading) contains. Latin words count one each (stemmed, stop words dropped); CJK text counts per
 * character, and a character is covered when a character pair of the question containing it occurs in
 * the sentence — pairs, because Chinese has no spaces and single characters match almost anything.
 */

import { CJK_RUN_RE as CJK_RUN } from "@/lib/text/cjk";
import { sentenceEnds, withoutFinalStop } from "@/lib/text/sentences";
import { fillerPattern, QUESTION_PUNCTUATION, ZH_PARTICLES, ZH_QUESTION_WORDS } from "@/lib/text/zh-fillers";
import { STOP_WORDS, stem, tokenize } from "@/lib/tokenize";

/** Question words and particles that carry no content (removed from questions before matching). */
const ZH_FILLER = fillerPattern(
  [
    ...ZH_QUESTION_WORDS,
    ..."介绍一下 介绍 说说 讲讲 解释一下 有没有 有哪些 有什么 有多少 是不是 能不能 可不可以 什么样 哪儿 哪个 多久 需要 应该 一下 告诉我 我们 你们".split(
      " ",
    ),
  ],
  `${ZH_PARTICLES.join("")}呀么是要${QUESTION_PUNCTUATION}\\s`,
);
const EXTRA_STOP = new Set(
  "many much get gets got need needs please tell know about any some there more most other way ways thing things give gives let lets say says said explain describe summarize"
    .split(" ")
    .map(stem),
);

export interface Units {
  /** Latin (and other spaced-script) terms, each weight 1. */
  words: string[];
  /** CJK runs of the text after removing filler words. */
  cjkRuns: string[];
}

export function contentUnits(text: string, opts: { question?: boolean } = {}): Units {
  const cleaned = opts.question ? text.replace(ZH_FILLER, " ") : text;
  const words = new Set<string>();
  for (const t of tokenize(cleaned.replace(CJK_RUN, " "))) if (!EXTRA_STOP.has(t) && !STOP_WORDS.has(t)) words.add(t);
  const cjkRuns = [...cleaned.matchAll(CJK_RUN)].map((m) => m[0]);
  return { words: [...words], cjkRuns };
}

function weight(u: Units): number {
  return u.words.length + u.cjkRuns.reduce((s, r) => s + Array.from(r).length, 0);
}

/** Tokens of a passage, for matching question units against it. */
export function passageTokens(text: string): Set<string> {
  return new Set(tokenize(text));
}

/** Weight of the question's units found in `tokens` (a set of tokens from lib/tokenize). */
function coveredWeight(q: Units, tokens: Set<string>): number {
  let covered = q.words.filter((w) => tokens.has(w)).length;
  for (const run of q.cjkRuns) {
    const chars = Array.from(run);
    if (chars.length === 1) {
      if (tokens.has(chars[0])) covered++;
      continue;
    }
    const hit = new Array<boolean>(chars.length).fill(false);
    for (let i = 0; i + 1 < chars.length; i++) {
      if (tokens.has(chars[i] + chars[i + 1])) hit[i] = hit[i + 1] = true;
    }
    covered += hit.filter(Boolean).length;
  }
  return covered;
}

/** Share (0..1) of the question's content found in the sentence, with the heading counted too. */
export function coverage(q: Units, sentence: Set<string>, context?: Set<string>): { score: number; inSentence: number } {
  const total = weight(q);
  if (total === 0) return { score: 0, inSentence: 0 };
  const inSentence = coveredWeight(q, sentence);
  if (!context) return { score: inSentence / total, inSentence };
  const union = new Set([...sentence, ...context]);
  return { score: coveredWeight(q, union) / total, inSentence };
}

export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
  /** 1-based line of the passage the sentence is on. */
  line?: number;
  /** The line is a list item (bullet or number). */
  item?: boolean;
  /**
   * A record, quoted and checked whole, never combined with its neighbours: "fields" (consecutive `name: value`
   * lines, how a CSV row is written, lib/parse/csv.ts), a table "row", or a table's "header" row.
   */
  record?: "fields" | "row" | "header";
  /** A table row's header row (its column names). */
  header?: string;
}

/** Line prefixes that are markup, not text: bullets, numbered items, quotes. */
const LINE_LEAD = /^\s*(?:[-*+]\s+|\d+[.)、]\s*|>\s*)?/;
const LIST_ITEM = /^\s*(?:[-*+]\s+|\d+[.)、]\s*)/;

/** A `name: value` line: a record's field (lib/parse/csv.ts writes each CSV row so). */
const FIELD_LINE = /^\s*[^\s:：|#>*+-][^:：\n]{0,59}(?::[^\S\n]+|：[^\S\n]*)\S/u;
const TABLE_ROW = /^\s*\|.*\|/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}/;

/**
 * Sentences of a passage with their offsets and the line they are on, split where lib/text/sentences says
 * (the chunker's splitter too). Markdown headings and table rules are dropped, bullets stripped (`item`
 * marks list items). A record is one span, whatever sentences its cells hold: a table row, or a block of two
 * or more consecutive `name: value` lines (a CSV row): its values belong to each other, never to the next row.
 */
export function splitSentences(text: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  const lines = text.split("\n");
  const starts: number[] = [];
  lines.reduce((at, line) => {
    starts.push(at);
    return at + line.length + 1;
  }, 0);
  let header: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const base = starts[i];
    const lineNo = i + 1;
    if (TABLE_ROW.test(line)) {
      if (TABLE_RULE.test(line)) continue;
      const isHeader = TABLE_RULE.test(lines[i + 1] ?? "");
      if (isHeader) header = line.trim();
      const skip = line.match(/^\s*/)![0].length;
      const trimmed = line.trim();
      if (trimmed.replace(/[*_`|\s]/g, "").length >= 2) {
        out.push({
          text: trimmed,
          start: base + skip,
          end: base + skip + trimmed.length,
          line: lineNo,
          record: isHeader ? "header" : "row",
          ...(!isHeader && header ? { header } : {}),
        });
      }
      continue;
    }
    header = undefined;
    let j = i;
    while (j < lines.length && FIELD_LINE.test(lines[j]) && !LIST_ITEM.test(lines[j])) j++;
    if (j - i >= 2) {
      const skip = line.match(/^\s*/)![0].length;
      const end = starts[j - 1] + lines[j - 1].trimEnd().length;
      out.push({ text: text.slice(base + skip, end), start: base + skip, end, line: lineNo, record: "fields" });
      i = j - 1;
      continue;
    }
    if (/^\s*#{1,6}\s/.test(line) || TABLE_RULE.test(line)) continue;
    const lead = line.match(LINE_LEAD)![0].length;
    const item = LIST_ITEM.test(line);
    let from = lead;
    const push = (to: number) => {
      const raw = line.slice(from, to);
      const skip = raw.match(/^\s*/)![0].length;
      const trimmed = raw.trim();
      if (trimmed.replace(/[*_`|]/g, "").trim().length >= 2) {
        out.push({ text: trimmed, start: base + from + skip, end: base + from + skip + trimmed.length, line: lineNo, item });
      }
      from = to;
    };
    for (const end of sentenceEnds(line)) if (end > from) push(end);
    if (from < line.length) push(line.length);
  }
  return out;
}

/** The cells of a table row ("| a | b |" → ["a", "b"]). */
function tableCells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim());
}

/**
 * A record as one readable line: its fields joined by " · ", a table row's cells each with its column name
 * ("Office: Shanghai · Phone: +86 21 5555 0000"), so the quote says which column each value belongs to.
 */
export function recordText(span: SentenceSpan): string {
  if (span.record === "row" && span.header) {
    const names = tableCells(span.header);
    const cells = tableCells(span.text);
    if (names.length === cells.length)
      return cleanSentence(
        cells
          .map((c, i) => (names[i] && c ? `${names[i]}: ${c}` : c))
          .filter(Boolean)
          .join(" | "),
      );
  }
  return cleanSentence(span.text);
}

/** Strips inline Markdown emphasis and table pipes so a quoted sentence reads cleanly. */
export function cleanSentence(s: string): string {
  return s
    .replace(/\*\*|__|`/g, "")
    .replace(/[^\S\n]*\n\s*/g, " · ")
    .replace(/^\|\s*|\s*\|$/g, "")
    .replace(/\s*\|\s*/g, " · ")
    .replace(/\s+/g, " ")
    .trim();
}

export interface Passage {
  n: number;
  /** "Title › heading" of the chunk. */
  context: string;
  text: string;
}

/**
 * The span of `chunkText` that best supports `claim` (the answer sentence before a citation marker):
 * the exact quote when the claim is quoted verbatim, else the sentence with the highest coverage.
 */
export function supportingSpan(chunkText: string, claim: string): { start: number; end: number } | null {
  const sentences = splitSentences(chunkText);
  const norm = (s: string) => cleanSentence(s).toLowerCase();
  const c = norm(claim);
  if (c.length >= 4) {
    // A quote of several sentences highlights all of them.
    const quoted = sentences.filter((s) => {
      const t = withoutFinalStop(norm(s.text));
      return t.length >= 4 && c.includes(t);
    });
    if (quoted.length > 0) return { start: quoted[0].start, end: quoted.at(-1)!.end };
    for (const s of sentences) {
      const t = norm(s.text);
      if (t.length >= 4 && t.includes(c)) return { start: s.start, end: s.end };
    }
  }
  const q = contentUnits(claim);
  let best: { start: number; end: number; score: number } | null = null;
  for (const s of sentences) {
    const { score } = coverage(q, passageTokens(s.text));
    if (score > (best?.score ?? 0)) best = { start: s.start, end: s.end, score };
  }
  return best && best.score >= 0.25 ? { start: best.start, end: best.end } : null;
}
