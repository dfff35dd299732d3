/**
 * Spreadsheet functions computed as LibreOffice computes them where fast-formula-parser differs: rounding in
 * decimal (ROUND(6704.415, 2) is 6704.42, not the binary 6704.41) and months added to a month's end (EDATE of
 * 31 January is the last day of February, not 2 March).
 */
import FormulaParser from "fast-formula-parser";
import { dateFromSerial, dateToSerial } from "numfmt";

const { FormulaHelpers: H, Types } = FormulaParser;
const number = (arg: unknown, fallback?: number) => H.accept(arg, Types.NUMBER, fallback) as number;

/** A number to 15 significant digits, as a spreadsheet holds and shows it (6704.414999999999 is 6704.415). */
const significant = (n: number) => Number(n.toPrecision(15));

/** `n` to `digits` decimals in decimal arithmetic, the magnitude moved by `step` (half away from zero, up or down). */
function decimalRound(n: number, digits: number, step: (x: number) => number): number {
  const d = Math.trunc(digits);
  const abs = Math.abs(significant(n));
  const moved = step(significant(Number(`${abs}e${d}`)));
  return Math.sign(n) * Number(`${moved}e${-d}`);
}

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The serial date `months` after `serial`; its day of month kept, or the month's last day where it has fewer. */
function addMonths(serial: number, months: number, toMonthEnd: boolean): number {
  const [y, m, d] = dateFromSerial(Math.floor(serial));
  const total = y * 12 + (m - 1) + Math.trunc(months);
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  const last = daysIn(year, month);
  const out = dateToSerial([year, month, toMonthEnd ? last : Math.min(d, last), 0, 0, 0]);
  // Out of the spreadsheet's date range: the cell is then marked "not computed".
  if (out === null) throw new Error(`no date ${months} months from ${serial}`);
  return out;
}

export const LIBREOFFICE_FUNCTIONS = {
  ROUND: (n: unknown, digits: unknown) => decimalRound(number(n), number(digits, 0), Math.round),
  ROUNDUP: (n: unknown, digits: unknown) => decimalRound(number(n), number(digits, 0), Math.ceil),
  ROUNDDOWN: (n: unknown, digits: unknown) => decimalRound(number(n), number(digits, 0), Math.floor),
  EDATE: (start: unknown, months: unknown) => addMonths(number(start), number(months), false),
  EOMONTH: (start: unknown, months: unknown) => addMonths(number(start), number(months), true),
};
