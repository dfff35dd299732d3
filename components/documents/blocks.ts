/**
 * How the document view lays out a document: its parsed text cut into reader blocks (a heading, a
 * paragraph, a fenced code block, a CSV record, a PDF page's paragraph), each with its offsets into the
 * text, so the chunks (which are offset ranges into the same text) can be mapped onto what the reader sees.
 */
import { RECORD_HEADING_RE } from "@/lib/parse/formats";
import type { ChunkRecord } from "@/lib/types";

export interface Block {
  kind: "markdown" | "text" | "record";
  start: number;
  end: number;
  text: string;
  /** 1-based page the block starts on (PDF). */
  page?: number;
  /** For "record" (a CSV row): its columns in order. */
  fields?: [string, string][];
  /** For a sheet's record: its row in the sheet. */
  row?: number;
}

/** Splits text into blocks at blank lines; a fenced code block stays whole; a heading line is its own block. */
export function splitBlocks(text: string, from = 0, to = text.length): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let blockStart = -1;
  let fence: string | null = null;
  let pos = from;
  const close = (end: number) => {
    if (blockStart >= 0) {
      let e = end;
      while (e > blockStart && /\s/.test(text[e - 1])) e--;
      if (e > blockStart) out.push({ start: blockStart, end: e });
    }
    blockStart = -1;
  };
  while (pos < to) {
    const nl = text.indexOf("\n", pos);
    const lineEnd = nl < 0 || nl >= to ? to : nl;
    const line = text.slice(pos, lineEnd);
    const next = lineEnd + 1;
    const fenceMatch = line.match(/^\s*(```|~~~)/);
    if (fence) {
      if (fenceMatch && fenceMatch[1] === fence) {
        fence = null;
        close(lineEnd);
      }
    } else if (fenceMatch) {
      close(pos);
      blockStart = pos;
      fence = fenceMatch[1];
    } else if (line.trim() === "") {
      close(pos);
    } else if (/^#{1,6}\s/.test(line)) {
      close(pos);
      blockStart = pos;
      close(lineEnd);
    } else if (blockStart < 0) {
      blockStart = pos + (line.length - line.trimStart().length);
    }
    pos = next;
  }
  close(to);
  return out;
}

/** A CSV record as the CSV parser writes it: `header: value` lines. */
function recordFields(text: string): [string, string][] | null {
  const lines = text.split("\n");
  const fields: [string, string][] = [];
  for (const l of lines) {
    const i = l.indexOf(": ");
    if (i <= 0) return null;
    fields.push([l.slice(0, i), l.slice(i + 2)]);
  }
  return fields;
}

/** Documents the parsers wrote as records of `header: value` lines (CSV, spreadsheets' sheets): shown as tables. */
function isRecordTable(mimeType: string): boolean {
  return mimeType === "text/csv" || mimeType.includes("spreadsheetml") || mimeType === "application/vnd.oasis.opendocument.spreadsheet";
}

export function documentBlocks(text: string, mimeType: string, pages?: { page: number; start: number }[] | null): Block[] {
  // Page by page: PDFs and images (OCR). Slides keep their pages as "# Slide N" headings.
  if ((mimeType === "application/pdf" || mimeType.startsWith("image/")) && pages?.length) {
    const out: Block[] = [];
    pages.forEach((p, i) => {
      const end = pages[i + 1]?.start ?? text.length;
      for (const b of splitBlocks(text, p.start, end)) out.push({ kind: "text", ...b, text: text.slice(b.start, b.end), page: p.page });
    });
    return out;
  }
  const kind: Block["kind"] = /markdown|csv|html|docx|wordprocessing|json|presentationml|spreadsheetml|opendocument|epub|rfc822/.test(
    mimeType,
  )
    ? "markdown"
    : "text";
  const out: Block[] = [];
  let row: number | undefined;
  for (const b of splitBlocks(text)) {
    const t = text.slice(b.start, b.end);
    if (isRecordTable(mimeType)) {
      // A sheet record's "# Sheet, row N" heading is no part of the sheet: its row goes with the record below it.
      const heading = RECORD_HEADING_RE.exec(t);
      if (heading) {
        row = Number(heading[2]);
        continue;
      }
      const fields = t.startsWith("#") ? null : recordFields(t);
      if (fields) {
        out.push({ kind: "record", ...b, text: t, fields, ...(row !== undefined && { row }) });
        row = undefined;
        continue;
      }
    }
    out.push({ kind, ...b, text: t });
  }
  return out;
}

/** Chunks overlapping a block: [start, end) ranges that intersect. */
export function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start < b.end && b.start < a.end;
}

/** For each block, the index of the first chunk that starts inside it or before it and still covers it (for boundary markers). */
export function chunkStarts(blocks: Block[], chunks: ChunkRecord[]): Map<number, ChunkRecord[]> {
  const out = new Map<number, ChunkRecord[]>();
  for (const c of chunks) {
    const i = blocks.findIndex((b) => b.end > c.start);
    if (i < 0) continue;
    out.set(i, [...(out.get(i) ?? []), c]);
  }
  return out;
}
