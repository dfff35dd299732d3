/**
 * The citation check: does chunk n say what the sentence citing `[n]` claims? Run on every answer, from a
 * model or the offline answerer, after it is complete; cheap (word matching, no model) and browser-safe.
 *
 * The answer is split into sentences by the splitter the highlighter uses (`splitSentences`), markers
 * removed first; a marker belongs to the sentence it ends, and sentences of a list item or line that carry
 * no marker of their own belong to the marker that ends them (the highlighter's claim rule). A claim's
 * support by a chunk is the share of its content found in the chunk (its context included): English words
 * (stemmed), names, numbers (which count double: a wrong figure is the costliest error), and Chinese words
 * as character pairs (`coverage` of extractive.ts). A citation below SUPPORTED moves to the retrieved chunk
 * that supports the claim best, when one does; else the sentence is marked "not supported by the sources".
 * A number or date that no retrieved chunk contains is marked the same way.
 */
import { wholeSentences } from "@/lib/retrieve/context";
import { contentUnits, coverage, passageTokens, splitSentences } from "./extractive";

/** A claim is supported by a chunk holding at least this share of its content. */
export const SUPPORTED = 0.8;

interface CheckedCitation {
  /** The number the answer cites after the check (the chunk that supports the claim). */
  n: number;
  /** Support of the claim by chunk n, 0..1. */
  support: number;
  /** The number the answer had written, when the check moved the citation. */
  from?: number;
}

interface CheckedSentence {
  /** The claim, without markers. */
  text: string;
  /** Offset in the checked text right after the claim and its markers (where a "not supported" marker goes). */
  end: number;
  citations: CheckedCitation[];
  /** Why the sentence is marked: no retrieved chunk supports its citation, or it has a number no chunk has. */
  unsupported?: "citation" | "number";
  /** Numbers or dates of the sentence found in no retrieved chunk. */
  numbers?: string[];
}

/** `data-check` of an answer: the text with moved citations, and every sentence that cites or was marked. */
export interface CitationCheck {
  text: string;
  sentences: CheckedSentence[];
}

export interface SourceChunk {
  n: number;
  text: string;
  heading?: string;
  document?: { title: string };
  context_before?: string;
  context_after?: string;
}

const MARKER = /[^\S\n]*\[(\d{1,3})\](?![(:])/g;
const NUMBER = /\d+(?:[.,:/]\d+)*/g;

const fold = (s: string) => s.normalize("NFKC").toLowerCase();
/** Numbers as compared: "1,200" = "1200". */
const bareNumber = (s: string) => s.replace(/(?<=\d),(?=\d{3}\b)/g, "");

function numbersOf(text: string): string[] {
  return [...new Set([...fold(text).matchAll(NUMBER)].map((m) => bareNumber(m[0])))];
}

interface Window {
  tokens: Set<string>;
  /** A record's own folded text: its numbers are looked for there, not in the rest of the chunk. */
  numbers?: string;
}

interface Prepared {
  n: number;
  /** Tokens of each run of consecutive sentences of the chunk (see windows), with its title and heading; each record alone. */
  windows: (width: number) => Window[];
  /** Tokens of each of the chunk's records (table rows with their header). */
  records: Set<string>[];
  numbers: string;
}

/**
 * What a chunk says: its text, with the sentences it was cut inside made whole from its context (as the
 * offline answerer quotes them), and its title and heading; not the rest of its context, which the reader
 * opening [n] does not see as the chunk (a neighbouring chunk's sentence there is not this chunk's support).
 * A claim is matched against runs of consecutive sentences (the highlighter's sentences), not the chunk's
 * words wherever they stand; a record (a table row, a CSV row's fields) is a window of its own, so a claim
 * cannot take its name from one row and its figure from the next.
 */
function prepare(c: SourceChunk): Prepared {
  const text = wholeSentences(c.text, c.context_before, c.context_after);
  const label = passageTokens([c.document?.title, c.heading].filter(Boolean).join("\n"));
  const spans = splitSentences(text).filter((x) => x.record !== "header");
  const recordText = (x: (typeof spans)[number]) => (x.header ? `${x.header}\n${x.text}` : x.text);
  const records = spans.filter((x) => x.record).map((x) => passageTokens(recordText(x)));
  // Runs of consecutive sentences that are not records.
  const runs: Set<string>[][] = [];
  let run: Set<string>[] = [];
  for (const x of spans) {
    if (x.record) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push(passageTokens(x.text));
  }
  if (run.length || runs.length === 0) runs.push(run);
  const recordWindows: Window[] = spans
    .filter((x) => x.record)
    .map((x) => ({ tokens: new Set([...label, ...passageTokens(recordText(x))]), numbers: bareNumber(fold(recordText(x))) }));
  const cache = new Map<number, Window[]>();
  const windows = (width: number) => {
    if (!cache.has(width)) {
      const out: Window[] = [...recordWindows];
      for (const sentences of runs) {
        if (sentences.length === 0 && recordWindows.length) continue;
        for (let i = 0; i < Math.max(1, sentences.length - width + 1); i++) {
          out.push({ tokens: new Set([...label, ...sentences.slice(i, i + width).flatMap((t) => [...t])]) });
        }
      }
      cache.set(width, out);
    }
    return cache.get(width)!;
  };
  return { n: c.n, windows, records, numbers: bareNumber(fold([c.document?.title, c.heading, text].filter(Boolean).join("\n"))) };
}

/** Whether `numbers` (a chunk's folded text) has the number `x` standing alone (not inside a longer one). */
function hasNumber(numbers: string, x: string): boolean {
  let i = numbers.indexOf(x);
  while (i >= 0) {
    const before = numbers[i - 1] ?? "";
    const after = numbers[i + x.length] ?? "";
    if (!/\d/.test(before) && !/\d/.test(after)) return true;
    i = numbers.indexOf(x, i + 1);
  }
  return false;
}

/** Support (0..1) of `claim` by a chunk: the share of its content the chunk contains, numbers counting double. */
export function supportOf(claim: string, chunk: SourceChunk | Prepared): number {
  const p = "windows" in chunk ? chunk : prepare(chunk);
  const units = contentUnits(claim.replace(NUMBER, " "));
  const nums = numbersOf(claim);
  const weightOf = units.words.length + units.cjkRuns.reduce((s, r) => s + Array.from(r).length, 0);
  const total = weightOf + 2 * nums.length;
  if (total === 0) return 1;
  // A claim of k sentences is looked for in runs of k + 1 sentences of the chunk.
  const width = splitSentences(claim).length + 1;
  const chunkNumbers = nums.filter((x) => hasNumber(p.numbers, x)).length * 2;
  // The claim's words that tell the chunk's records apart (a row's key: "Shanghai"): a record lacking one is not the row the claim is about.
  const claimTokens = passageTokens(claim.replace(NUMBER, " "));
  const keys = [...claimTokens].filter((t) => p.records.some((r) => r.has(t)) && !p.records.every((r) => r.has(t)));
  let best = 0;
  for (const w of p.windows(width)) {
    if (w.numbers !== undefined && keys.some((k) => !w.tokens.has(k))) continue;
    const words = weightOf ? coverage(units, w.tokens).score * weightOf : 0;
    const numbers = w.numbers === undefined ? chunkNumbers : nums.filter((x) => hasNumber(w.numbers!, x)).length * 2;
    best = Math.max(best, (words + numbers) / total);
  }
  return best;
}

interface Group {
  sentences: { text: string; start: number; end: number }[];
  markers: { n: number; at: number; origStart: number; origEnd: number }[];
}

/**
 * Checks every sentence of `text` against the turn's retrieved chunks. `question`: numbers the user wrote
 * are not flagged.
 */
export function checkCitations(text: string, chunks: readonly SourceChunk[], question = ""): CitationCheck {
  const prepared = new Map(chunks.map((c) => [c.n, prepare(c)]));
  // Markers out, remembering where each stood in the text without them.
  const markers: Group["markers"] = [];
  let stripped = "";
  let last = 0;
  for (const m of text.matchAll(MARKER)) {
    stripped += text.slice(last, m.index);
    markers.push({ n: Number(m[1]), at: stripped.length, origStart: m.index!, origEnd: m.index! + m[0].length });
    last = m.index! + m[0].length;
  }
  stripped += text.slice(last);
  // `name: value` lines are one claim ("Office: Shanghai\nPhone: +86 … [1]"), unless a line before the last cites on its own.
  const spans = splitSentences(stripped).flatMap((span) => {
    const lastLine = span.start + span.text.lastIndexOf("\n");
    if (span.record !== "fields" || !markers.some((m) => m.at > span.start && m.at <= lastLine)) return [span];
    let at = span.start;
    return span.text.split("\n").map((text, i) => {
      const start = at;
      at += text.length + 1;
      return { ...span, text: text.trimEnd(), start, end: start + text.trimEnd().length, line: (span.line ?? 1) + i, record: undefined };
    });
  });
  // Each sentence with the markers that end it; sentences of a line before its next marker join that marker's group.
  const groups: Group[] = [];
  let open: Group | null = null;
  let mi = 0;
  spans.forEach((s, i) => {
    const next = spans[i + 1];
    const limit = next ? next.start : Number.POSITIVE_INFINITY;
    if (!open || open.markers.length > 0) {
      open = { sentences: [], markers: [] };
      groups.push(open);
    }
    open.sentences.push({ text: s.text, start: s.start, end: s.end });
    while (mi < markers.length && markers[mi].at <= limit) {
      if (markers[mi].at > s.start) open.markers.push(markers[mi]);
      mi++;
    }
    // A sentence without markers stays open only while the next one is on the same line.
    if (open.markers.length === 0 && next && next.line !== s.line) open = null;
  });

  const allNumbers = [...prepared.values()].map((p) => p.numbers).join("\n");
  const asked = new Set(numbersOf(question));
  const out: CheckedSentence[] = [];
  const edits: { start: number; end: number; text: string }[] = [];
  for (const g of groups) {
    const claim = g.sentences.map((s) => s.text).join(" ");
    const numbers = numbersOf(claim).filter((x) => !asked.has(x) && !hasNumber(allNumbers, x));
    const citations: CheckedCitation[] = [];
    let supported = false;
    const scores = (exclude: Set<number>) =>
      [...prepared.values()].filter((p) => !exclude.has(p.n)).map((p) => ({ n: p.n, support: supportOf(claim, p) }));
    const written = new Set(g.markers.map((m) => m.n));
    for (const m of g.markers) {
      const p = prepared.get(m.n);
      const support = p ? supportOf(claim, p) : 0;
      if (support >= SUPPORTED) {
        supported = true;
        citations.push({ n: m.n, support });
        continue;
      }
      const best = scores(written).reduce<{ n: number; support: number } | null>((a, b) => (b.support > (a?.support ?? -1) ? b : a), null);
      if (best && best.support >= SUPPORTED) {
        supported = true;
        written.add(best.n);
        citations.push({ n: best.n, support: best.support, from: m.n });
        edits.push({ start: m.origStart, end: m.origEnd, text: text.slice(m.origStart, m.origEnd).replace(/\d+/, String(best.n)) });
      } else {
        citations.push({ n: m.n, support });
      }
    }
    const unsupported = g.markers.length > 0 && !supported ? "citation" : numbers.length > 0 ? "number" : undefined;
    if (g.markers.length === 0 && !unsupported) continue;
    const endStripped = g.sentences.at(-1)!.end;
    out.push({
      text: claim,
      end: endStripped,
      citations,
      ...(unsupported ? { unsupported } : {}),
      ...(numbers.length ? { numbers } : {}),
    });
  }
  // Offsets back to the checked text: past the markers that end each sentence.
  let checked = "";
  let pos = 0;
  for (const e of edits.sort((a, b) => a.start - b.start)) {
    checked += text.slice(pos, e.start) + e.text;
    pos = e.end;
  }
  checked += text.slice(pos);
  const delta = (orig: number) => edits.filter((e) => e.end <= orig).reduce((d, e) => d + e.text.length - (e.end - e.start), 0);
  for (const s of out) {
    const orig = toOriginal(s.end, markers);
    s.end = orig + delta(orig);
  }
  return { text: checked, sentences: out };
}

/** An offset of the marker-free text as an offset of the original: after every marker standing at or before it. */
function toOriginal(at: number, markers: Group["markers"]): number {
  let orig = at;
  let lastEnd = -1;
  for (const m of markers) {
    if (m.at > at) break;
    orig += m.origEnd - m.origStart;
    lastEnd = m.origEnd;
  }
  return Math.max(orig, lastEnd);
}

/** Whether the check found something to show: a moved citation or a sentence marked not supported. */
export function checkChanged(check: CitationCheck): boolean {
  return check.sentences.some((s) => s.unsupported || s.citations.some((c) => c.from !== undefined));
}
