/** The part of fast-formula-parser (untyped) that lib/parse/xlsx-cells.ts uses. */
declare module "fast-formula-parser" {
  interface CellRef {
    sheet?: string;
    row: number;
    col: number;
  }
  export default class FormulaParser {
    constructor(config: {
      onCell?: (ref: CellRef) => unknown;
      onRange?: (ref: { sheet?: string; from: CellRef; to: CellRef }) => unknown[][];
      /** Functions by name, replacing the built-in ones of that name. */
      functions?: Record<string, (...args: unknown[]) => unknown>;
    });
    /** Turns an argument into a value of the given type (Types.NUMBER…), throwing the Excel error it would give. */
    static FormulaHelpers: { accept(param: unknown, type?: number | null, defValue?: unknown): unknown };
    static Types: { NUMBER: number };
    /** The formula's value; an Excel error (#DIV/0!…) is returned as a FormulaError, a formula it cannot read throws. */
    parse(formula: string, position: CellRef): unknown;
  }
}
