import type { OcrRun } from "./ocr";

/** Bounds that keep one hostile or enormous file from exhausting the server while it is parsed. */
export interface ParseLimits {
  /** A PDF with more pages is refused before any page is read. */
  maxPdfPages: number;
  /** Total uncompressed size of a DOCX's XML parts. */
  maxDocxUncompressedBytes: number;
  /** Uncompressed/compressed ratio above which a large DOCX part is treated as a decompression bomb. */
  maxDocxRatio: number;
  /** Extracted text longer than this is refused (characters). */
  maxTextChars: number;
  /** CPU-time budget for one file's parsing (lib/worker/cpu.ts), checked between pages / parts (the worker's is hard). */
  timeBudgetMs: number;
  /** HTML nested deeper than this is refused before it is parsed (lib/parse/depth.ts). */
  maxHtmlDepth: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxPdfPages: 2000,
  maxDocxUncompressedBytes: 200 * 1024 * 1024,
  maxDocxRatio: 200,
  maxTextChars: 50_000_000,
  timeBudgetMs: 120_000,
  maxHtmlDepth: 256,
};

export interface ParseOptions {
  limits?: Partial<ParseLimits>;
  /** Aborts parsing between pages / parts (e.g. the upload was cancelled). */
  signal?: AbortSignal;
  /** Read scanned pages and images by OCR (the OCR task); without it a parser that needs OCR throws NeedsOcr. */
  ocr?: OcrRun;
}

export function resolveLimits(opts?: ParseOptions): ParseLimits {
  return { ...DEFAULT_PARSE_LIMITS, ...opts?.limits };
}
