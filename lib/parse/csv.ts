import path from "node:path";
import Papa from "papaparse";
import { AppError, type ParsedDocument } from "@/lib/types";
import { type ParseOptions, resolveLimits } from "./limits";
import { decodeText } from "./text";

/** Rows per group; each group is a section whose records all repeat the header names. */
export const CSV_ROWS_PER_GROUP = 10;

/** A header row's names, blank ones as "column N". */
export function headerNames(row: unknown[], width: number): string[] {
  return Array.from({ length: width }, (_, i) => String(row[i] ?? "").trim() || `column ${i + 1}`);
}

/**
 * Rows of a table as records of `header: value` lines (empty values left out), grouped CSV_ROWS_PER_GROUP at a
 * time under `<heading> Rows a–b` headings that name the rows' own numbers (a CSV's record numbers, a sheet's rows).
 */
function tableRecords(
  header: string[],
  rows: { n: number; cells: unknown[] }[],
  opts: { heading: string; filename: string; maxChars: number },
): string[] {
  const parts: string[] = [];
  let size = 0;
  for (let g = 0; g < rows.length; g += CSV_ROWS_PER_GROUP) {
    const group = rows.slice(g, g + CSV_ROWS_PER_GROUP);
    parts.push(`${opts.heading} Rows ${group[0].n}–${group.at(-1)!.n}`);
    for (const row of group) {
      const record = header
        .map(
          (h, i) =>
            [
              h,
              String(row.cells[i] ?? "")
                .replace(/\s+/g, " ")
                .trim(),
            ] as const,
        )
        .filter(([, v]) => v !== "")
        .map(([h, v]) => `${h}: ${v}`)
        .join("\n");
      size += record.length;
      if (size > opts.maxChars) {
        throw new AppError("too_large", `"${opts.filename}" holds more text than the ${opts.maxChars}-character limit.`);
      }
      parts.push(record);
    }
  }
  return parts;
}

/**
 * CSV/TSV → one record per row written as `header: value` lines, records grouped under
 * `## Rows a–b` headings, so a chunk always says which column each value belongs to.
 */
export function parseCsv(data: Uint8Array, filename: string, opts?: ParseOptions): ParsedDocument {
  const limits = resolveLimits(opts);
  const source = decodeText(data).replace(/^\uFEFF/, "");
  const result = Papa.parse<string[]>(source, { skipEmptyLines: "greedy" });
  const rows = result.data.filter((r) => Array.isArray(r) && r.some((c) => String(c).trim() !== ""));
  if (rows.length === 0) throw new AppError("parse_failed", `"${filename}": this CSV file has no rows.`);
  const [headerRow, ...records] = rows;
  const width = Math.max(...rows.map((r) => r.length));
  const header = headerNames(headerRow, width);
  const body = records.length ? records : [headerRow];
  const title = path.basename(filename).replace(/\.[^.]+$/, "") || filename;

  // No separate column list: it would form a chunk of its own that matches every question about the columns.
  const rowsOf = body.map((cells, i) => ({ n: i + 1, cells }));
  const parts = [`# ${title}`, ...tableRecords(header, rowsOf, { heading: "##", filename, maxChars: limits.maxTextChars })];
  return { text: parts.join("\n\n"), title, mimeType: "text/csv" };
}
