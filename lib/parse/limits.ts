import { AppError } from "@/lib/types";
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
  /** An e-mail with more attached files is refused before any is read. */
  maxEmailAttachments: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxPdfPages: 2000,
  maxDocxUncompressedBytes: 200 * 1024 * 1024,
  maxDocxRatio: 200,
  maxTextChars: 50_000_000,
  timeBudgetMs: 120_000,
  maxHtmlDepth: 256,
  maxEmailAttachments: 100,
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

/** Page texts joined by blank lines, with where each page starts; refused once longer than `maxTextChars`. */
export class PagedText {
  text = "";
  readonly pages: { page: number; start: number }[] = [];

  constructor(
    private readonly filename: string,
    private readonly maxTextChars: number,
  ) {}

  /** Appends page `page`'s text (an empty one is skipped). */
  add(page: number, pageText: string) {
    if (!pageText) return;
    if (this.text) this.text += "\n\n";
    this.pages.push({ page, start: this.text.length });
    this.text += pageText;
    if (this.text.length > this.maxTextChars) {
      throw new AppError("too_large", `"${this.filename}" holds more text than the ${this.maxTextChars}-character limit.`);
    }
  }
}
