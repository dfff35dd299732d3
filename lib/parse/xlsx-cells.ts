/**
 * An XLSX cell as the sheet shows it: numbers through their number format (numfmt: percent, currency,
 * thousands), dates as ISO dates, formulas by their cached result, and a formula saved without one (what most
 * libraries write) computed by fast-formula-parser over the workbook's cells, else marked "not computed".
 */
import type { Cell, CellValue, Workbook, Worksheet } from "exceljs";
import FormulaParser from "fast-formula-parser";
import { dateFromSerial, dateToSerial, format as formatNumber, isDateFormat } from "numfmt";
import { LIBREOFFICE_FUNCTIONS } from "./formula-functions";

type Plain = number | string | boolean | Date | null;

/** Cells a formula may reach when it names whole columns or rows (A:A): no further than the sheet's used area. */
const MAX_FORMULA_DEPTH = 64;

const pad = (n: number) => String(n).padStart(2, "0");

/** A date as an ISO date, with its time of day when it has one. */
function isoDate(d: Date): string {
  const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = d.getUTCHours() || d.getUTCMinutes() || d.getUTCSeconds() ? ` ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}` : "";
  return `${day}${time}`;
}

const serialOf = (d: Date) =>
  dateToSerial([d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()]);

/** A date format that shows no day, month or year ("h:mm", "[h]:mm:ss"): a time of day or a duration. */
const isTimeFormat = (format: string) =>
  isDateFormat(format) &&
  !/[dmyeg]/i.test(
    format
      .replace(/\[([hms]+)\]/gi, "$1")
      .replace(/"[^"]*"|\\.|\[[^\]]*\]/g, "")
      .replace(/(h[^a-z]*)m+/gi, "$1")
      .replace(/m+([^a-z]*s)/gi, "$1")
      .replace(/AM\/PM|A\/P/gi, ""),
  );

/** A time of day as "14:30" (seconds when it has them); a duration ([h]:mm) as its format writes it. */
function timeOfDay(serial: number, format: string): string {
  if (format.includes("[")) return formatNumber(format, serial);
  const [, , , h, mi, sec] = dateFromSerial(serial);
  return `${pad(h)}:${pad(mi)}${sec ? `:${pad(sec)}` : ""}`;
}

/** A plain value through the cell's number format. */
function display(value: Plain, format: string | undefined): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return "";
    // ExcelJS reads a number as a date for any format with a letter of a date in it, escaped (\M) or not.
    if (format && format !== "General" && (!isDateFormat(format) || isTimeFormat(format))) return display(serialOf(value), format);
    return isoDate(value);
  }
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "string") return value;
  if (format && format !== "General") {
    try {
      if (isTimeFormat(format)) return timeOfDay(value, format);
      if (isDateFormat(format)) {
        const [y, mo, d, h, mi, sec] = dateFromSerial(value);
        return isoDate(new Date(Date.UTC(y, mo - 1, d, h, mi, sec)));
      }
      return formatNumber(format, value);
    } catch {
      // a format numfmt cannot read: the number as it is
    }
  }
  return formatNumber("General", value);
}

/** The stored value of a non-formula cell, or the cached result of a formula one (undefined: none cached). */
function plain(value: CellValue): Plain | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || value instanceof Date) return value;
  if ("richText" in value) return value.richText.map((r) => r.text).join("");
  if ("hyperlink" in value) return typeof value.text === "string" ? value.text : null;
  if ("error" in value) return value.error;
  if ("formula" in value || "sharedFormula" in value) {
    const r = value.result;
    if (r === undefined || r === null) return undefined;
    return typeof r === "object" && !(r instanceof Date) ? ((r as { error?: string }).error ?? null) : r;
  }
  return null;
}

/** Reads a workbook's cells, computing formulas that have no cached result (each once, cycles refused). */
export class CellReader {
  private readonly computed = new Map<string, Plain | Error>();
  private readonly pending = new Set<string>();
  private readonly parser: FormulaParser;
  private depth = 0;

  /** `formats`: each number format as the file writes it, by the form ExcelJS gives (./xlsx.ts writtenFormats). */
  constructor(
    private readonly workbook: Workbook,
    private readonly formats: Map<string, string> = new Map(),
  ) {
    this.parser = new FormulaParser({
      functions: LIBREOFFICE_FUNCTIONS,
      onCell: ({ sheet, row, col }) => this.raw(this.sheet(sheet), row, col),
      onRange: ({ sheet, from, to }) => {
        const ws = this.sheet(sheet);
        const lastRow = Math.min(to.row, ws?.rowCount ?? 0);
        const lastCol = Math.min(to.col, ws?.columnCount ?? 0);
        const out: unknown[][] = [];
        for (let r = from.row; r <= lastRow; r++) {
          const line: unknown[] = [];
          for (let c = from.col; c <= lastCol; c++) line.push(this.raw(ws, r, c));
          out.push(line);
        }
        return out;
      },
    });
  }

  private sheet(name: string | undefined): Worksheet | undefined {
    return name ? this.workbook.getWorksheet(name) : undefined;
  }

  /** A cell's value for a formula: numbers and text as stored, dates as serial numbers. */
  private raw(ws: Worksheet | undefined, row: number, col: number): unknown {
    if (!ws) return null;
    const v = this.value(ws.getCell(row, col));
    if (v instanceof Error) throw v;
    return v instanceof Date ? serialOf(v) : v;
  }

  /** A cell's value: stored, cached or computed; an Error when a formula could not be computed. */
  value(cell: Cell): Plain | Error {
    const cached = plain(cell.value);
    if (cached !== undefined) return cached;
    const key = `${cell.worksheet.name}!${cell.address}`;
    const known = this.computed.get(key);
    if (known !== undefined) return known;
    if (this.pending.has(key) || this.depth >= MAX_FORMULA_DEPTH) return new Error("circular or too deep");
    this.pending.add(key);
    this.depth++;
    let out: Plain | Error;
    try {
      const r: unknown = this.parser.parse(cell.formula, { sheet: cell.worksheet.name, row: Number(cell.row), col: Number(cell.col) });
      // An Excel error value (#DIV/0!) is a result the sheet would show too.
      out = typeof r === "object" && r !== null ? String((r as { error?: string }).error ?? r) : (r as Plain);
    } catch (err) {
      out = err instanceof Error ? err : new Error(String(err));
    } finally {
      this.depth--;
      this.pending.delete(key);
    }
    this.computed.set(key, out);
    return out;
  }

  /** A cell as the sheet shows it ("" for one covered by a merged cell). */
  text(cell: Cell): string {
    if (cell.isMerged && cell.master !== cell) return "";
    const v = this.value(cell);
    if (v instanceof Error) return `=${cell.formula} (not computed)`;
    return display(v, cell.numFmt && (this.formats.get(cell.numFmt) ?? cell.numFmt));
  }
}
