/**
 * Parsing off the event loop: one process-wide pool (lib/worker/pool.ts) running lib/parse/worker.ts.
 * The worker script is the esbuild bundle dist/workers/parse.mjs (`npm run build` makes it, and Vitest's global
 * setup before the tests; Next.js bundles route handlers, so the worker needs a real file), or the TypeScript
 * source through tsx when no bundle exists.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ChunkSettings, IndexedChunk } from "@/lib/chunk/indexed";
import { type PackedChunks, unpackChunks } from "@/lib/chunk/packed";
import { appDir, ocrConfig, parseConfig } from "@/lib/config";
import type { ExtractedPair } from "@/lib/faq/extract";
import { inByteSlices } from "@/lib/slices";
import { AppError, type ParsedDocument } from "@/lib/types";
import { createWorkerPool, TaskStopped, type WorkerPool } from "@/lib/worker/pool";
import { type ParseOptions, resolveLimits } from "./limits";

const KEY = Symbol.for("kb-mcp-chat.parse-pool");
const OCR_KEY = Symbol.for("kb-mcp-chat.ocr-pool");
type G = typeof globalThis & { [KEY]?: WorkerPool; [OCR_KEY]?: WorkerPool };

export interface ParseTask {
  filename: string;
  data: Uint8Array;
  limits: ReturnType<typeof resolveLimits>;
  /** Also chunk the text and tokenize the chunks (lib/chunk/indexed.ts), and recognise its FAQ pairs, in the worker. */
  chunking?: ChunkSettings;
  /**
   * Scanned pages and images: without `pages`, each page needing OCR is handed over as an image (progress: PageImage);
   * with `pages` (their texts, in the order handed over), the file is parsed with them.
   */
  ocr?: { cpuBudgetMs: number; maxPages: number; pages?: string[] };
}

/** One page image to read by OCR (an OCR worker's task; lib/parse/ocr.ts). */
export interface RecognizeTask {
  recognize: Uint8Array;
  threads: number;
}

/** A page read by OCR: its text, and the worker's CPU time it took. */
export interface PageRead {
  text: string;
  cpuMs: number;
}

/** A page of a file that needs OCR, as the worker parsing the file hands it over. */
export interface PageImage {
  page: number;
  total: number;
  image: Uint8Array;
}

/** What OCR of a file tells as it goes: pages started so far, of `total`, and how many are being read right now. */
export interface OcrProgress {
  page: number;
  total: number;
  reading: number;
}

/**
 * A parsed document; when the task asked for chunks, also its chunks, its FAQ pairs (lib/faq/extract.ts) and
 * its text as UTF-8 (what the store writes).
 */
export type ParsedAndChunked = ParsedDocument & { chunks?: IndexedChunk[]; faqPairs?: ExtractedPair[]; utf8?: Uint8Array };

/** What the worker answers: the chunks packed (lib/chunk/packed.ts). */
export type ParseResult = Omit<ParsedAndChunked, "chunks"> & { packed?: PackedChunks };

/** The worker script and how to run it. */
function parseWorkerScript(): { file: string; execArgv: string[] } {
  const bundle = path.join(appDir(), "dist", "workers", "parse.mjs");
  if (existsSync(/*turbopackIgnore: true*/ bundle)) return { file: bundle, execArgv: [] };
  return { file: path.join(appDir(), "lib", "parse", "worker.ts"), execArgv: ["--import", "tsx"] };
}

/** The process-wide pool under `key`, made on first use, running the worker script with `options()` and a heap of `memoryMb`. */
function scriptPool(
  key: typeof KEY | typeof OCR_KEY,
  options: () => { size: number; cpuBudgetMs: number; memoryMb: number; isolation?: "process"; recycleAboveMb?: number },
): WorkerPool {
  const g = globalThis as G;
  if (!g[key]) {
    const { memoryMb, ...rest } = options();
    g[key] = createWorkerPool({
      ...parseWorkerScript(),
      ...rest,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 64, stackSizeMb: 8 },
    });
  }
  return g[key];
}

const pool = () =>
  scriptPool(KEY, () => {
    const cfg = parseConfig();
    return {
      size: cfg.workers ?? Math.min(4, Math.max(1, os.availableParallelism() - 1)),
      cpuBudgetMs: cfg.timeoutMs,
      memoryMb: cfg.memoryMb,
    };
  });

/**
 * A share of OCR_MEMORY_MB: an OCR worker that still holds more after a task is replaced before its next, so each page
 * has the budget to itself, whatever the pages before it left behind (a fresh worker with its models holds ~15 %).
 */
const OCR_RECYCLE_SHARE = 0.4;

/**
 * The OCR workers: child processes running the parse pool's script, with OCR's budgets: `cpuBudgetMs` is one page's (each
 * page reported restarts it, lib/worker/pool.ts), the memory cap OCR_MEMORY_MB; the file's CPU budget is checked by the
 * worker between pages (lib/parse/ocr.ts).
 */
const ocrPool = () =>
  scriptPool(OCR_KEY, () => {
    const cfg = ocrConfig();
    // onnxruntime: a thread stopped mid-page would abort the server
    return {
      size: cfg.workers,
      cpuBudgetMs: cfg.pageTimeoutMs,
      memoryMb: cfg.memoryMb,
      isolation: "process",
      recycleAboveMb: OCR_RECYCLE_SHARE * cfg.memoryMb,
    };
  });

export type ParseInWorkerOptions = Omit<ParseOptions, "ocr"> & { chunking?: ChunkSettings; onOcrPage?: (p: OcrProgress) => void };

/**
 * Parses in a worker; a budget overrun becomes an AppError naming the file and the budget. A file the parser
 * finds needs OCR (a scanned page, an image) is then parsed again by an OCR worker, page by page.
 */
export async function parseInWorker(filename: string, data: Uint8Array, opts?: ParseInWorkerOptions): Promise<ParsedAndChunked> {
  const cfg = parseConfig();
  const copy = await copyInSlices(data); // a fresh buffer of its own, moved to the worker
  const limits = resolveLimits({ limits: { timeBudgetMs: cfg.timeoutMs, ...opts?.limits } });
  const task: ParseTask = { filename, data: copy, limits, chunking: opts?.chunking };
  let result: ParseResult;
  try {
    result = await pool().run<ParseResult>(task, { transfer: [copy.buffer], signal: opts?.signal });
  } catch (err) {
    if ((err as Error).name === "NeedsOcr") return ocrInWorker(filename, data, opts);
    if (err instanceof TaskStopped) {
      if (err.reason === "aborted") throw Object.assign(new Error("The upload was cancelled."), { name: "AbortError" });
      if (err.reason === "time") {
        throw new AppError(
          "parse_failed",
          `"${filename}" needed more than the ${cfg.timeoutMs / 1000}-CPU-second parse budget and was stopped.`,
        );
      }
      if (err.reason === "memory") {
        throw new AppError("too_large", `"${filename}" needed more than the ${cfg.memoryMb} MB parse memory budget and was stopped.`);
      }
      throw new AppError("parse_failed", `"${filename}" could not be parsed: the parser crashed.`);
    }
    throw remoteError(err, filename);
  }
  return unpacked(result);
}

/**
 * OCR of a file, its pages in parallel: a worker parses the file and hands over each page needing OCR as an image;
 * each page is then read as a task of its own (its own CPU budget, OCR_PAGE_TIMEOUT_SECONDS) by whichever OCR worker is
 * free; last, the file is parsed again with the texts read, in page order. A page that fails is named in its place
 * and the others are kept; the file fails when every page did, or when its pages together ran past OCR_FILE_TIMEOUT_SECONDS.
 */
async function ocrInWorker(filename: string, data: Uint8Array, opts?: ParseInWorkerOptions): Promise<ParsedAndChunked> {
  const cfg = ocrConfig();
  const stop = new AbortController();
  const cancel = () => stop.abort();
  opts?.signal?.addEventListener("abort", cancel, { once: true });
  if (opts?.signal?.aborted) stop.abort();
  const limits = resolveLimits({ limits: { ...opts?.limits, timeBudgetMs: cfg.fileTimeoutMs } });
  const reads: Promise<{ text?: string; error?: Error }>[] = [];
  let started = 0;
  let reading = 0;
  let cpuMs = 0;
  let overBudget: AppError | undefined;
  const readPage = ({ page, total, image }: PageImage) => {
    let running = false;
    const task: RecognizeTask = { recognize: image, threads: cfg.threads };
    const done = () => {
      if (running) reading--;
      running = false;
    };
    const read = ocrPool().run<PageRead>(task, {
      signal: stop.signal,
      onProgress: (p) => {
        if ((p as { reading: boolean }).reading) {
          running = true;
          reading++;
          opts?.onOcrPage?.({ page: ++started, total, reading });
        } else done();
      },
    });
    reads.push(
      read.then(
        (r) => {
          done();
          cpuMs += r.cpuMs;
          if (cpuMs > cfg.fileTimeoutMs && !overBudget) {
            overBudget = new AppError(
              "parse_failed",
              `"${filename}" needed more CPU time than its OCR budget (OCR_FILE_TIMEOUT_SECONDS; stopped at page ${page}).`,
            );
            stop.abort();
          }
          return { text: r.text };
        },
        (err) => {
          done();
          return { error: ocrError(err, filename, cfg, page) };
        },
      ),
    );
  };
  try {
    await ocrTask({ filename, data, limits, ocr: { cpuBudgetMs: cfg.fileTimeoutMs, maxPages: cfg.maxPages } }, filename, {
      signal: stop.signal,
      onProgress: (p) => {
        if (p && typeof p === "object" && "image" in p) readPage(p as PageImage);
      },
    });
    const pages = await Promise.all(reads);
    if (overBudget) throw overBudget;
    if (opts?.signal?.aborted) throw Object.assign(new Error("The upload was cancelled."), { name: "AbortError" });
    const failed = pages.find((p) => p.error)?.error;
    if (failed && pages.every((p) => p.error)) throw failed;
    const texts = pages.map((p) => p.text ?? `[${p.error?.message}]`);
    const task: ParseTask = {
      filename,
      data,
      limits,
      chunking: opts?.chunking,
      ocr: { cpuBudgetMs: cfg.fileTimeoutMs, maxPages: cfg.maxPages, pages: texts },
    };
    return unpacked(await ocrTask(task, filename, { signal: stop.signal }));
  } catch (err) {
    if (overBudget) throw overBudget;
    throw err;
  } finally {
    opts?.signal?.removeEventListener("abort", cancel);
    stop.abort(); // pages still queued when the file failed
  }
}

/** Runs a task of a file's OCR (its own copy of the file) in the OCR pool, its failure as an AppError. */
async function ocrTask(
  task: ParseTask,
  filename: string,
  run: { signal: AbortSignal; onProgress?: (p: unknown) => void },
): Promise<ParseResult> {
  const copy = await copyInSlices(task.data);
  try {
    return await ocrPool().run<ParseResult>({ ...task, data: copy }, { transfer: [copy.buffer], ...run });
  } catch (err) {
    throw ocrError(err, filename, ocrConfig());
  }
}

/** A failed OCR task as an AppError naming the file, the page (when one page's reading failed) and the budget. */
function ocrError(err: unknown, filename: string, cfg: ReturnType<typeof ocrConfig>, page?: number): Error {
  const what = page === undefined ? `"${filename}"` : `Page ${page} of "${filename}"`;
  if (err instanceof TaskStopped) {
    if (err.reason === "time") {
      return new AppError(
        "parse_failed",
        `${page === undefined ? `A page of "${filename}"` : what} needed more than the ${cfg.pageTimeoutMs / 1000}-CPU-second OCR budget per page (OCR_PAGE_TIMEOUT_SECONDS) and was stopped.`,
      );
    }
    if (err.reason === "memory") {
      return new AppError(
        "too_large",
        `${what} needed more than the ${cfg.memoryMb} MB OCR memory budget (OCR_MEMORY_MB) and was stopped.`,
      );
    }
    if (err.reason === "aborted") return Object.assign(new Error("The upload was cancelled."), { name: "AbortError" });
    return new AppError("parse_failed", `${what} could not be read by OCR: the reader crashed.`);
  }
  const remote = remoteError(err, filename);
  return page === undefined ? remote : new AppError(remote.code, `${what}: ${remote.message}`, remote.status);
}

/** An error thrown in the worker, as an AppError where it was one. */
function remoteError(err: unknown, filename: string): AppError {
  const e = err as Error & { code?: string; status?: number };
  if (e.name === "AppError" && e.code) return new AppError(e.code as AppError["code"], e.message, e.status ?? 422);
  return new AppError("parse_failed", `"${filename}" could not be parsed.`);
}

async function unpacked(result: ParseResult): Promise<ParsedAndChunked> {
  const { packed, ...parsed } = result;
  return packed ? { ...parsed, chunks: await unpackChunks(packed) } : parsed;
}

/** A copy of `data`, made a few megabytes at a time with the event loop served in between. */
async function copyInSlices(data: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const copy = new Uint8Array(data.byteLength);
  await inByteSlices(data.byteLength, (from, to) => copy.set(data.subarray(from, to), from));
  return copy;
}

/** Ends the pool's workers (tests, shutdown). */
export async function closeParsePool(): Promise<void> {
  const g = globalThis as G;
  await g[KEY]?.close();
  await g[OCR_KEY]?.close();
  delete g[KEY];
  delete g[OCR_KEY];
}
