import path from "node:path";
import { AppError, type ParsedDocument } from "@/lib/types";
import { type ParseOptions, resolveLimits } from "./limits";
import { coreTitle } from "./pptx";
import { type Sheet, sheetsToText } from "./sheets";
import { CellReader } from "./xlsx-cells";
import { type Archive, openArchive, tags } from "./zip";

/**
 * The number formats as written, by the form ExcelJS reads them in: ExcelJS drops the backslash of an escaped
 * literal (`#,##0.0,,\M` becomes `#,##0.0,,M`, a month), so the cell's format is looked up here.
 */
async function writtenFormats(archive: Archive): Promise<Map<string, string>> {
  const styles = await archive.xml("xl/styles.xml");
  const out = new Map<string, string>();
  for (const f of styles ? tags(styles, "numFmt") : []) {
    const code = f.getAttribute("formatCode");
    const read = code?.replace(/\\(.)/g, "$1");
    if (code && read && !out.has(read)) out.set(read, code);
  }
  return out;
}

/** XLSX → one table per sheet (ExcelJS reads the workbook; cells as the sheet shows them, ./xlsx-cells.ts). */
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
  const reader = new CellReader(workbook, await writtenFormats(archive));
  const sheets: Sheet[] = workbook.worksheets
    .filter((ws) => ws.state !== "hidden" && ws.state !== "veryHidden")
    .map((ws) => {
      const rows: Sheet["rows"] = [];
      ws.eachRow({ includeEmpty: false }, (row, n) => {
        const cells: string[] = [];
        const merged: number[] = [];
        row.eachCell({ includeEmpty: false }, (cell, col) => {
          cells[col - 1] = reader.text(cell);
          if (cell.isMerged && cell.master === cell && ws.getCell(Number(cell.row), col + 1).master === cell) merged.push(col - 1);
        });
        rows.push({ n, cells: Array.from(cells, (c) => c ?? ""), merged });
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
