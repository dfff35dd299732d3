/**
 * Optical character recognition of page images, in the OCR worker (lib/parse/pool.ts): lines read by
 * lib/parse/ocr-engine.ts (PP-OCRv4), put in reading order by lib/parse/ocr-layout.ts. The models load once per worker, on first use.
 */
import { AppError } from "@/lib/types";
import { ownCpuMs } from "@/lib/worker/cpu";
import { readLines } from "./ocr-engine";
import { layoutText } from "./ocr-layout";
import { repairWords } from "./ocr-words";

/**
 * How one file's OCR runs in a parser: its CPU budget, its page limit, and who reads its pages. Pages are read by
 * other workers, in parallel (lib/parse/pool.ts): `read` hands over page `page` (1-based, `total` pages to read) and
 * answers its text once read.
 */
export interface OcrRun {
  /** The worker's CPU time (lib/worker/cpu.ts) after which the file's OCR stops between pages. */
  cpuDeadline: number;
  maxPages: number;
  read: (page: number, total: number, image: () => Promise<Buffer>) => Promise<string>;
}

/** Thrown by a parser when a file needs OCR and the task did not ask for it: the pool then runs it as an OCR task. */
export class NeedsOcr extends Error {
  constructor(public readonly pages: number) {
    super(`${pages} page(s) need OCR.`);
    this.name = "NeedsOcr";
  }
}

/** A page holding fewer characters than this in its text layer is read by OCR (a scan, or a scan with a stamp). */
export const MIN_PAGE_TEXT_CHARS = 20;

/**
 * The text of one page image (PNG, JPEG…; oriented, flattened and scaled by the reader, lib/parse/ocr-engine.ts): recognised lines in reading order (lib/parse/ocr-layout.ts), one row a
 * line, the cells of a row (a table on the page) separated by " | ", two columns one after the other; look-alike
 * characters repaired (lib/parse/ocr-words.ts).
 */
export async function recognizePage(image: Buffer, threads: number): Promise<string> {
  try {
    return repairWords(layoutText(await readLines(image, threads)));
  } catch {
    throw new AppError("parse_failed", "The image could not be read for OCR.");
  }
}

/** Stops a file's OCR between pages when it was cancelled or ran out of its file budget. */
export function checkOcrBudget(run: OcrRun, filename: string, page: number, signal?: AbortSignal): void {
  if (signal?.aborted) throw new AppError("cancelled", "Parsing was cancelled.");
  if (ownCpuMs() > run.cpuDeadline) {
    throw new AppError(
      "parse_failed",
      `"${filename}" needed more CPU time than its OCR budget (OCR_FILE_TIMEOUT_SECONDS; stopped at page ${page}).`,
    );
  }
}

/** Refuses a file with more pages to read by OCR than OCR_MAX_PAGES, before any is read. */
export function checkOcrPages(run: OcrRun, filename: string, pages: number): void {
  if (pages > run.maxPages) {
    throw new AppError("too_large", `"${filename}" has ${pages} pages to read by OCR; at most ${run.maxPages} are read (OCR_MAX_PAGES).`);
  }
}
