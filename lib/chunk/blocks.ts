/**
 * The blocks a section must not be cut through carelessly: Markdown tables (pipe rows) and lists, with what
 * introduces them. The packer reads them as boundary strengths (lib/chunk/index.ts): a table is cut only
 * between rows and never right after its header, a list not between it and its intro sentence, and a chunk
 * that starts inside one carries its header row or intro sentence as a lead (indexed, not shown).
 */
import { sentenceEnds } from "@/lib/text/sentences";

export interface Block {
  kind: "table" | "list";
  start: number;
  end: number;
  /** Table: end of the header row (and its delimiter row). List: its start. */
  bodyStart: number;
  /** Table: its header rows. List: the sentence that introduces it ("… as follows:"), or "". */
  lead: string;
  /** Offsets of its row / item starts after the first (where it may be cut). */
  rows: number[];
}

const TABLE_ROW_RE = /^ {0,3}\|/;
const DELIMITER_RE = /^ {0,3}\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const ITEM_RE = /^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S/;
const CONTINUATION_RE = /^(?: {2,}|\t)\S/;

interface Line {
  start: number;
  end: number;
  text: string;
}

function linesOf(text: string, from: number, to: number): Line[] {
  const out: Line[] = [];
  let s = from;
  while (s < to) {
    let e = text.indexOf("\n", s);
    if (e < 0 || e > to) e = to;
    out.push({ start: s, end: e, text: text.slice(s, e) });
    s = e + 1;
  }
  return out;
}

/** Tables and lists in text[from, to), in order. */
export function findBlocks(text: string, from: number, to: number): Block[] {
  const lines = linesOf(text, from, to);
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; ) {
    if (TABLE_ROW_RE.test(lines[i].text)) {
      let j = i + 1;
      while (j < lines.length && TABLE_ROW_RE.test(lines[j].text)) j++;
      const header = j > i + 1 && DELIMITER_RE.test(lines[i + 1].text) ? i + 2 : i + 1;
      blocks.push({
        kind: "table",
        start: lines[i].start,
        end: lines[j - 1].end,
        bodyStart: lines[header - 1].end,
        lead: text.slice(lines[i].start, lines[header - 1].end).trim(),
        rows: lines.slice(header, j).map((l) => l.start),
      });
      i = j;
      continue;
    }
    if (ITEM_RE.test(lines[i].text)) {
      const rows: number[] = [];
      let j = i + 1;
      let last = i;
      while (j < lines.length) {
        const t = lines[j].text;
        if (ITEM_RE.test(t)) rows.push(lines[j].start);
        else if (!CONTINUATION_RE.test(t) && !(t.trim() === "" && j + 1 < lines.length && ITEM_RE.test(lines[j + 1].text))) break;
        if (t.trim()) last = j;
        j++;
      }
      blocks.push({
        kind: "list",
        start: lines[i].start,
        end: lines[last].end,
        bodyStart: lines[i].start,
        lead: intro(text, from, lines[i].start),
        rows,
      });
      i = j;
      continue;
    }
    i++;
  }
  return blocks;
}

/** The sentence just before a list when it introduces it: ends with a colon (ASCII or full-width). */
function intro(text: string, from: number, listStart: number): string {
  const before = text.slice(Math.max(from, listStart - INTRO_CHARS), listStart).trimEnd();
  if (!/[:：]$/.test(before)) return "";
  return before.slice(sentenceEnds(before).at(-1) ?? 0).trim();
}

/** How far back the intro sentence is looked for (a list of many items in one section must not cost the section per list). */
const INTRO_CHARS = 1000;
