import path from "node:path";
import Papa from "papaparse";
import { AppError, type ParsedDocument } from "@/lib/types";
import { type ParseOptions, resolveLimits } from "./limits";
import { decodeText } from "./text";

/** Rows per group; each group is a section whose records all repeat the header names. */
export const CSV_ROWS_PER_GROUP = 10;

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
  const header = Array.from({ length: width }, (_, i) => String(headerRow[i] ?? "").trim() || `column ${i + 1}`);
  const body = records.length ? records : [headerRow];
  const title = path.basename(filename).replace(/\.[^.]+$/, "") || filename;

  // No separate column list: it would form a chunk of its own that matches every question about the columns.
  const parts: string[] = [`# ${title}`];
  let size = 0;
  for (let g = 0; g < body.length; g += CSV_ROWS_PER_GROUP) {
    const group = body.slice(g, g + CSV_ROWS_PER_GROUP);
    const first = g + 1;
    const last = g + group.length;
    parts.push(`## Rows ${first}–${last}`);
    for (const row of group) {
      const lines = header
        .map(
          (h, i) =>
            [
              h,
              String(row[i] ?? "")
                .replace(/\s+/g, " ")
                .trim(),
            ] as const,
        )
        .filter(([, v]) => v !== "")
        .map(([h, v]) => `${h}: ${v}`);
      const record = lines.join("\n");
      size += record.length;
      if (size > limits.maxTextChars) {
        throw new AppError("too_large", `"${filename}" holds more text than the ${limits.maxTextChars}-character limit.`);
      }
      parts.push(record);
    }
  }
  return { text: parts.join("\n\n"), title, mimeType: "text/csv" };
}
