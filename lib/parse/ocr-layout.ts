/**
 * A page's text from its recognised lines (lib/parse/ocr-engine.ts): in reading order, one row a line, the cells of a
 * row (a table on the page) joined by " | ", and a page set in two columns read column by column.
 */

import type { OcrLine } from "./ocr-engine";

interface Box {
  text: string;
  x: number;
  right: number;
  top: number;
  bottom: number;
  mid: number;
  height: number;
}

/** Lines whose vertical centres are this close (in line heights) are one row of text, read left to right. */
const SAME_ROW = 0.5;
/** Boxes of one row further apart than this (in line heights) are cells of a table row, joined by " | ". */
const CELL_GAP = 1.5;
/** Where a gutter may lie, as a share of the text's width from either side. */
const GUTTER_RANGE = [0.2, 0.8] as const;
/** Lines that cross a gutter (a heading over both columns) may hold at most this share of the lines. */
const MAX_CROSSING = 0.25;
/** A column runs down at least this share of the text's height, with at least this many lines. */
const MIN_COLUMN_SPAN = 0.5;
const MIN_COLUMN_LINES = 3;
/**
 * A column holds prose, not a table's cells: most of its lines (this share) fill most of its width (this share),
 * and its median line has at least this many characters.
 */
const FULL_LINES = 0.6;
const FULL_WIDTH = 0.6;
const MIN_PROSE_CHARS = 12;

function toBox(l: OcrLine): Box {
  const ys = l.box.map((p) => p[1]);
  const xs = l.box.map((p) => p[0]);
  const top = Math.min(...ys);
  const bottom = Math.max(...ys);
  return {
    text: l.text,
    x: Math.min(...xs),
    right: Math.max(...xs),
    top,
    bottom,
    mid: (top + bottom) / 2,
    height: Math.max(1, bottom - top),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A cell of a row: the boxes of a row closer than CELL_GAP, as one. */
interface Cell {
  text: string;
  x: number;
  right: number;
  height: number;
}

/** A table's header cell is a name: at most this many words. */
const MAX_HEADER_WORDS = 4;

/** Boxes as rows (top to bottom), each row's boxes left to right, as cells: boxes apart by more than CELL_GAP line heights. */
function cellRows(boxes: Box[]): Cell[][] {
  const rows: Box[][] = [];
  for (const b of [...boxes].sort((p, q) => p.mid - q.mid)) {
    const row = rows.at(-1);
    if (row && Math.abs(row[0].mid - b.mid) < SAME_ROW * Math.min(row[0].height, b.height)) row.push(b);
    else rows.push([b]);
  }
  return rows.map((row) => {
    const cells: Cell[] = [];
    for (const b of row.sort((a, c) => a.x - c.x)) {
      const prev = cells.at(-1);
      if (prev && b.x - prev.right <= CELL_GAP * Math.min(prev.height, b.height)) {
        prev.text += ` ${b.text}`;
        prev.right = b.right;
      } else cells.push({ text: b.text, x: b.x, right: b.right, height: b.height });
    }
    return cells;
  });
}

/**
 * A cell that runs over the start of a column its table's other rows have (a header's two names set closer than the
 * cells below them), cut there: at the space nearest that point of its text, as far along the text as along the cell.
 */
function splitAt(cells: Cell[], starts: number[]): Cell[] {
  return cells.flatMap((c) => {
    const inside = starts.filter((s) => s > c.x + c.height && s < c.right - c.height);
    if (inside.length === 0) return [c];
    const out: Cell[] = [];
    let rest = c;
    for (const s of inside) {
      const at = Math.round(((s - rest.x) / (rest.right - rest.x)) * rest.text.length);
      const spaces = [...rest.text.matchAll(/ /g)].map((m) => m.index);
      if (spaces.length === 0) break;
      const cut = spaces.reduce((best, i) => (Math.abs(i - at) < Math.abs(best - at) ? i : best));
      out.push({ ...rest, text: rest.text.slice(0, cut), right: s });
      rest = { ...rest, text: rest.text.slice(cut + 1), x: s };
    }
    return [...out, rest];
  });
}

const isName = (c: Cell) => /\p{L}/u.test(c.text) && c.text.split(" ").length <= MAX_HEADER_WORDS;

/**
 * Rows of cells as text: a row's cells joined by " | ". In a table (a run of rows of two or more cells, most of them as
 * many), a row with fewer cells is cut at the columns of the others; when the table's first row then names its columns
 * (short cells with letters), every row after it with as many cells says each cell's name ("Carrier: Rhenus | …"),
 * so a row quoted alone still says what its values are.
 */
function tableText(rows: Cell[][]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; ) {
    let j = i;
    while (j < rows.length && rows[j].length >= 2) j++;
    if (j - i < 3) {
      out.push(...rows.slice(i, Math.max(j, i + 1)).map((r) => r.map((c) => c.text).join(" | ")));
      i = Math.max(j, i + 1);
      continue;
    }
    const block = rows.slice(i, j);
    const counts = new Map<number, number>();
    for (const r of block) counts.set(r.length, (counts.get(r.length) ?? 0) + 1);
    const width = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0][0];
    const full = block.filter((r) => r.length === width);
    const starts = Array.from({ length: width }, (_, k) => median(full.map((r) => r[k].x)));
    const cut = block.map((r) => (r.length < width ? splitAt(r, starts.slice(1)) : r));
    const header = cut[0].length === width && cut[0].every(isName) ? cut[0].map((c) => c.text) : undefined;
    for (const [k, r] of cut.entries()) {
      const named = header && k > 0 && r.length === width;
      out.push(r.map((c, n) => (named ? `${header[n]}: ${c.text}` : c.text)).join(" | "));
    }
    i = j;
  }
  return out;
}

/** Boxes as rows of text (top to bottom), a table's cells joined by " | " (tableText). */
const rowsText = (boxes: Box[]): string[] => tableText(cellRows(boxes));

/** Whether the boxes of one side of a gutter, between `from` and `to` across, are a column of prose down the page. */
function isProseColumn(side: Box[], from: number, to: number, height: number): boolean {
  if (side.length < MIN_COLUMN_LINES) return false;
  const span = Math.max(...side.map((b) => b.bottom)) - Math.min(...side.map((b) => b.top));
  if (span < MIN_COLUMN_SPAN * height) return false;
  const width = Math.max(1, to - from);
  const full = side.filter((b) => b.right - b.x >= FULL_WIDTH * width).length;
  return full >= FULL_LINES * side.length && median(side.map((b) => [...b.text].length)) >= MIN_PROSE_CHARS;
}

/**
 * The x of a gutter between two columns of prose, from the boxes: a vertical line in the middle of the text that
 * (almost) no line crosses, with a column of prose on either side running down most of the page; none when the
 * page is one column or a table.
 */
function findGutter(boxes: Box[]): number | undefined {
  if (boxes.length < 2 * MIN_COLUMN_LINES) return undefined;
  const left = Math.min(...boxes.map((b) => b.x));
  const right = Math.max(...boxes.map((b) => b.right));
  const top = Math.min(...boxes.map((b) => b.top));
  const height = Math.max(...boxes.map((b) => b.bottom)) - top;
  const width = right - left;
  // Candidates: just right of each line's end, within the middle of the text; the one fewest lines cross wins.
  let best: { at: number; crossing: number } | undefined;
  for (const b of boxes) {
    const at = b.right + 1;
    if (at < left + GUTTER_RANGE[0] * width || at > left + GUTTER_RANGE[1] * width) continue;
    const crossing = boxes.filter((o) => o.x < at && o.right > at).length;
    if (!best || crossing < best.crossing) best = { at, crossing };
  }
  if (!best || best.crossing > MAX_CROSSING * boxes.length) return undefined;
  const at = best.at;
  const leftSide = boxes.filter((b) => b.right <= at);
  const rightSide = boxes.filter((b) => b.x >= at);
  if (rightSide.length === 0) return undefined;
  const rightStart = Math.min(...rightSide.map((b) => b.x));
  const leftEnd = Math.max(...leftSide.map((b) => b.right), left);
  return isProseColumn(leftSide, left, leftEnd, height) && isProseColumn(rightSide, rightStart, right, height) ? at : undefined;
}

/**
 * The text of a page from its lines, in reading order: one row a line, top to bottom; a row's cells (a table)
 * joined by " | ". A page in two columns is read column by column — the left one top to bottom, then the right —
 * between the lines that run across both (a title over both columns keeps its place).
 */
export function layoutText(lines: OcrLine[]): string {
  const boxes = lines.map(toBox);
  const gutter = findGutter(boxes);
  if (gutter === undefined) return rowsText(boxes).join("\n");
  const out: string[] = [];
  let block: Box[] = [];
  const flush = () => {
    out.push(...rowsText(block.filter((b) => b.right <= gutter)), ...rowsText(block.filter((b) => b.right > gutter)));
    block = [];
  };
  for (const b of [...boxes].sort((p, q) => p.mid - q.mid)) {
    if (b.x < gutter && b.right > gutter) {
      flush();
      out.push(b.text);
    } else block.push(b);
  }
  flush();
  return out.join("\n");
}
