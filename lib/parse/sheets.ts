/**
 * Sheets as text, shared by XLSX (./xlsx.ts) and ODS (./opendocument.ts): the header row is found below any
 * title rows, a header of two rows (group names merged over the columns below) is joined, and each record is a
 * section of its own headed `# Sheet, row N` with the sheet's own row number, so a citation names its row.
 */
import { AppError } from "@/lib/types";
import { headerNames } from "./csv";
import { recordHeading } from "./formats";
import type { ParseLimits } from "./limits";

/** One sheet's rows, numbered as the sheet numbers them; cells as the sheet shows them. */
export interface Sheet {
  name: string;
  rows: SheetRow[];
}

interface SheetRow {
  n: number;
  /** Cells by column; a cell covered by a merged one is "". */
  cells: string[];
  /** Columns (0-based) whose cell is merged across more than one column. */
  merged?: number[];
}

const filled = (r: SheetRow) => r.cells.filter((c) => c.trim() !== "").length;
const NUMERIC = /^[-+(]?[\d.,\s]+%?\)?$|^\d{4}-\d{2}-\d{2}/;

/**
 * Where a sheet's table starts: rows before it with at most one filled cell are titles (a merged title over the
 * columns leaves one); the header is the first row after them. A second header row is joined when the first has
 * a cell merged across columns (a group name over the columns below) and the second holds no numbers.
 */
function sheetTable(rows: SheetRow[]): { titles: SheetRow[]; header: string[]; records: SheetRow[] } {
  const width = Math.max(...rows.map((r) => r.cells.length));
  let h = 0;
  if (rows.some((r) => filled(r) > 1)) while (h < rows.length - 1 && filled(rows[h]) <= 1) h++;
  const titles = rows.slice(0, h);
  const first = rows[h];
  const second = rows[h + 1];
  const twoRows =
    !!first?.merged?.length && !!second && second.cells.every((c) => c.trim() === "" || !NUMERIC.test(c.trim())) && filled(second) > 1;
  let names = first.cells;
  if (twoRows) {
    // A group name stands over every column its merged cell covers.
    const groups: string[] = [];
    let group = "";
    for (let i = 0; i < width; i++) {
      const own = first.cells[i]?.trim() ?? "";
      if (own) group = first.merged!.includes(i) ? own : "";
      groups.push(own || group);
    }
    names = groups.map((g, i) => {
      const sub = second.cells[i]?.trim() ?? "";
      return g && sub && g !== sub ? `${g} ${sub}` : g || sub;
    });
  }
  const records = rows.slice(h + (twoRows ? 2 : 1));
  return { titles, header: headerNames(names, width), records: records.length ? records : [first] };
}

/** Sheets → text: `# Sheet: name`, its title rows, then each record as `header: value` lines under its own heading. */
export function sheetsToText(sheets: Sheet[], filename: string, limits: ParseLimits): string {
  const parts: string[] = [];
  let size = 0;
  for (const sheet of sheets) {
    const rows = sheet.rows.filter((r) => filled(r) > 0);
    if (rows.length === 0) continue;
    const { titles, header, records } = sheetTable(rows);
    parts.push(`# Sheet: ${sheet.name}`, ...titles.map((t) => t.cells.filter((c) => c.trim()).join(" ")));
    for (const row of records) {
      const record = header
        .map((name, i) => [name, (row.cells[i] ?? "").replace(/\s+/g, " ").trim()] as const)
        .filter(([, v]) => v !== "")
        .map(([name, v]) => `${name}: ${v}`)
        .join("\n");
      if (!record) continue;
      size += record.length;
      if (size > limits.maxTextChars) {
        throw new AppError("too_large", `"${filename}" holds more text than the ${limits.maxTextChars}-character limit.`);
      }
      parts.push(recordHeading(sheet.name, row.n), record);
    }
  }
  if (parts.length === 0) throw new AppError("parse_failed", `"${filename}": this spreadsheet has no cells with text.`);
  return parts.join("\n\n");
}
