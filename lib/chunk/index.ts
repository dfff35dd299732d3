import type { Chunk } from "@/lib/types";
import { type Block, findBlocks } from "./blocks";
import { HEADING_SEPARATOR } from "./heading";
import { type Section, splitSections } from "./sections";
import { splitUnits, type Unit } from "./units";

export { HEADING_SEPARATOR } from "./heading";

/**
 * Default chunk size: a heading's section up to this many characters stays one chunk, so an answer and the
 * lead-in that carries the question's words stay together (the best range on the four public sets; see docs/design-decisions.md).
 */
export const DEFAULT_CHUNK_SIZE = 1500;

export interface ChunkOptions {
  /** Maximum chunk length in characters (UTF-16 code units). Default DEFAULT_CHUNK_SIZE. */
  size?: number;
  /** Characters of the previous chunk's tail repeated at the start of the next one, same section only. Default 60. */
  overlap?: number;
  /** Page start offsets (paginated documents); each chunk gets the page of its start. */
  pages?: { page: number; start: number }[];
}

/**
 * Splits a document into chunks along its structure: Markdown sections, then paragraphs, then
 * sentences (Chinese and Latin punctuation), then characters as a last resort.
 * Invariants: `text === source.slice(start, end)`, `text.length <= size`, chunks in order,
 * every non-whitespace character of the source lies in at least one chunk.
 */
export function chunkText(text: string, opts: ChunkOptions = {}): Chunk[] {
  const size = opts.size ?? DEFAULT_CHUNK_SIZE;
  if (!Number.isInteger(size) || size < 2) throw new RangeError(`chunk size must be an integer >= 2, got ${size}`);
  const overlap = Math.max(0, Math.min(Math.floor(opts.overlap ?? 60), Math.floor(size / 2)));
  const pages = opts.pages?.length ? [...opts.pages].sort((a, b) => a.start - b.start) : undefined;

  const chunks: Chunk[] = [];
  for (const section of splitSections(text)) {
    // A chunk never spans two pages, so its page number is right for every sentence in it.
    for (const [from, to] of splitAtPages(section.start, section.end, pages)) {
      const units = splitUnits(text, from, to, size - overlap, size);
      const blocks = findBlocks(text, from, to);
      if (blocks.length) keepBlocksTogether(units, blocks, from);
      let b = 0; // chunks start in order, so the block a chunk starts in is found by walking forward once
      for (const [start, end] of packSection(text, units, size, overlap)) {
        const chunk = makeChunk(text, chunks.length, section, start, end, pages);
        while (b < blocks.length && blocks[b].end <= start) b++;
        const block = blocks[b];
        if (block?.lead && start > block.start && start >= block.bodyStart) chunk.lead = block.lead;
        chunks.push(chunk);
      }
    }
  }
  return chunks;
}

/**
 * What gets embedded and full-text indexed: the heading path as a first line, the lead (a table's header row
 * or a list's intro sentence, for a chunk that starts inside the table or list) as the next, then the text.
 */
export function embeddingText(chunk: Pick<Chunk, "headingPath" | "text" | "lead">): string {
  const head = [chunk.headingPath.join(HEADING_SEPARATOR), chunk.lead ?? ""].filter(Boolean);
  return head.length ? `${head.join("\n")}\n${chunk.text}` : chunk.text;
}

/**
 * Boundary strengths inside tables and lists: a table or list is not cut from the text that introduces it
 * (its start is no stronger than a line break), a table is cut only between rows and not right after its
 * header, a list only between items; anywhere else inside them only when nothing else fits (strength 0).
 */
function keepBlocksTogether(units: Unit[], blocks: Block[], sectionStart: number): void {
  // Units, blocks and each block's rows are all in text order: one forward walk over each (a list of 100k
  // items must not cost a search through its rows per unit).
  let b = 0;
  let r = 0;
  for (const u of units) {
    while (b < blocks.length && blocks[b].end <= u.start) {
      b++;
      r = 0;
    }
    const block = blocks[b];
    if (!block || u.start < block.start) continue;
    while (r < block.rows.length && block.rows[r] < u.start) r++;
    if (u.start === block.start) {
      if (block.start > sectionStart && (block.kind === "table" || block.lead)) u.strength = Math.min(u.strength, 1) as Unit["strength"];
    } else if (block.rows[r] === u.start && (block.kind === "list" || r !== 0)) u.strength = 1;
    else u.strength = 0;
  }
}

function splitAtPages(from: number, to: number, pages: ChunkOptions["pages"]): [number, number][] {
  const bounds = [from, ...(pages ?? []).map((p) => p.start).filter((s) => s > from && s < to), to];
  return bounds.slice(1).map((end, i) => [bounds[i], end]);
}

function makeChunk(text: string, index: number, section: Section, start: number, end: number, pages: ChunkOptions["pages"]): Chunk {
  const chunk: Chunk = { index, headingPath: [...section.headingPath], text: text.slice(start, end), start, end };
  if (pages) {
    let page = pages[0].page;
    for (const p of pages) if (p.start <= start) page = p.page;
    chunk.page = page;
  }
  return chunk;
}

/** Minimum fill before the packer prefers a stronger boundary (paragraph over sentence) to a fuller chunk. */
const MIN_FILL = 0.5;

/** Packs consecutive units (each <= size) into [start, end) ranges of at most `size`, with overlap. */
function packSection(text: string, units: Unit[], size: number, overlap: number): [number, number][] {
  const out: [number, number][] = [];
  let start = units[0]?.start ?? 0;
  let i = 0;
  while (i < units.length) {
    let j = i;
    while (j < units.length && units[j].end - start <= size) j++;
    if (j === i) {
      // The overlap prefix left no room for the next unit: start afresh at the unit.
      start = units[i].start;
      continue;
    }
    const cut = j < units.length ? bestCut(units, i, j, start, size) : j;
    const end = units[cut - 1].end;
    out.push([start, end]);
    if (cut >= units.length) break;
    start = overlapStart(text, units, i, cut, start, overlap);
    i = cut;
  }
  return out;
}

/** Cut before unit k in (i, j]: the strongest boundary that still leaves the chunk at least half full, latest wins. */
function bestCut(units: Unit[], i: number, j: number, start: number, size: number): number {
  let best = j;
  for (let k = j - 1; k > i; k--) {
    if (units[k - 1].end - start < size * MIN_FILL) break;
    if (units[k].strength > units[best].strength) best = k;
  }
  return best;
}

/** Where the next chunk starts: whole trailing sentences of the previous chunk when they fit in `overlap`, else its last characters. */
function overlapStart(text: string, units: Unit[], first: number, cut: number, prevStart: number, overlap: number): number {
  const end = units[cut - 1].end;
  const next = units[cut].start;
  if (overlap === 0) return next;
  let m = cut;
  while (m - 1 > first && end - units[m - 1].start <= overlap) m--;
  if (m < cut) return units[m].start;
  // No whole sentence fits: take the tail, starting after a space when there is one (avoid half words).
  let s = Math.max(end - overlap, prevStart + 1);
  const space = text.slice(s, end).search(/\s/);
  if (space >= 0) s += space;
  while (s < end && /\s/.test(text[s])) s++;
  if (isLowSurrogate(text, s)) s++;
  return s < end ? s : next;
}

function isLowSurrogate(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff;
}
