import path from "node:path";
import { AppError, type ParsedDocument } from "@/lib/types";
import { headerNames, tableRecords } from "./csv";
import { type ParseLimits, type ParseOptions, resolveLimits } from "./limits";
import { coreTitle } from "./pptx";
import { openArchive } from "./zip";

/** One sheet's rows, numbered as the sheet numbers them; cells as the sheet shows them. */
export interface Sheet {
  name: string;
  rows: { n: number; cells: string[] }[];
}

/**
 * Sheets as tables: `# Sheet: name`, its first non-empty row the header, then every other row a record of
 * `header: value` lines like a CSV (lib/parse/csv.ts), grouped under `## Rows a–b` with the sheet's own row
 * numbers. Shared by XLSX and ODS (lib/parse/opendocument.ts).
 */
export function sheetsToText(sheets: Sheet[], filename: string, limits: ParseLimits): string {
  const parts: string[] = [];
  for (const sheet of sheets) {
    const rows = sheet.rows.filter((r) => r.cells.some((c) => c.trim() !== ""));
    if (rows.length === 0) continue;
    const [headerRow, ...records] = rows;
    const header = headerNames(headerRow.cells, Math.max(...rows.map((r) => r.cells.length)));
    parts.push(
      `# Sheet: ${sheet.name}`,
      ...tableRecords(header, records.length ? records : [headerRow], { heading: "##", filename, maxChars: limits.maxTextChars }),
    );
  }
  if (parts.length === 0) throw new AppError("parse_failed", `"${filename}": this spreadsheet has no cells with text.`);
  return parts.join("\n\n");
}

/** XLSX → one table per sheet (ExcelJS reads the workbook; cells as formatted text, formulas by their result). */
export async function parseXlsx(data: Uint8Array, filename: string, opts?: ParseOptions): Promise<ParsedDocument> {
  const limits = resolveLimits(opts);
  // The bomb guard and the workbook check run before ExcelJS inflates anything.
  const archive = await openArchive(data, filename, limits, "Excel", opts?.signal);
  if (!archive.has("xl/workbook.xml")) {
    throw new AppError("parse_failed", `"${filename}" is a ZIP archive but not an Excel workbook (no xl/workbook.xml).`);
  }
  const { default: ExcelJS } = await import("exceljs");
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(data.buffer, data.byteOffset, data.byteLength) as unknown as ArrayBuffer);
  } catch {
    throw new AppError("parse_failed", `"${filename}" could not be read: the Excel workbook is corrupt.`);
  }
  const sheets: Sheet[] = workbook.worksheets
    .filter((ws) => ws.state !== "hidden" && ws.state !== "veryHidden")
    .map((ws) => {
      const rows: Sheet["rows"] = [];
      ws.eachRow({ includeEmpty: false }, (row, n) => {
        const cells: string[] = [];
        row.eachCell({ includeEmpty: false }, (cell, col) => {
          cells[col - 1] = cell.text ?? "";
        });
        rows.push({ n, cells: Array.from(cells, (c) => c ?? "") });
      });
      return { name: ws.name, rows };
    });
  const title = (await coreTitle(archive)) ?? (path.basename(filename).replace(/\.[^.]+$/, "") || filename);
  return {
    text: sheetsToText(sheets, filename, limits),
    title,
    mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  };
}
