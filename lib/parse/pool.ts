/**
 * Parsing off the event loop: one process-wide pool (lib/worker/pool.ts) running lib/parse/worker.ts.
 * The worker script is the esbuild bundle dist/workers/parse.mjs (`npm run build` makes it; Next.js bundles
 * route handlers, so the worker needs a real file), or the TypeScript source through tsx in tests and when
 * no bundle exists.
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
  /** Read scanned pages and images by OCR (an OCR worker's task; lib/parse/ocr.ts). */
  ocr?: { cpuBudgetMs: number; maxPages: number; threads: number };
}

/** What an OCR task tells as it goes (lib/worker/serve.ts progress): the page it starts, of the pages it reads. */
export interface OcrProgress {
  page: number;
  total: number;
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
  if (!process.env.VITEST && existsSync(/*turbopackIgnore: true*/ bundle)) return { file: bundle, execArgv: [] };
  return { file: path.join(appDir(), "lib", "parse", "worker.ts"), execArgv: ["--import", "tsx"] };
}

/** The process-wide pool under `key`, made on first use, running the worker script with `options()` and a heap of `memoryMb`. */
function scriptPool(
  key: typeof KEY | typeof OCR_KEY,
  options: () => { size: number; cpuBudgetMs: number; memoryMb: number; isolation?: "process" },
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
 * The OCR workers: child processes running the parse pool's script, with OCR's budgets: `cpuBudgetMs` is one page's (each
 * page reported restarts it, lib/worker/pool.ts), the heap cap OCR_MEMORY_MB; the file's CPU budget is checked by the
 * worker between pages (lib/parse/ocr.ts).
 */
const ocrPool = () =>
  scriptPool(OCR_KEY, () => {
    const cfg = ocrConfig();
    // onnxruntime: a thread stopped mid-page would abort the server
    return { size: cfg.workers, cpuBudgetMs: cfg.pageTimeoutMs, memoryMb: cfg.memoryMb, isolation: "process" };
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

async function ocrInWorker(filename: string, data: Uint8Array, opts?: ParseInWorkerOptions): Promise<ParsedAndChunked> {
  const cfg = ocrConfig();
  const copy = await copyInSlices(data);
  const limits = resolveLimits({ limits: { ...opts?.limits, timeBudgetMs: cfg.fileTimeoutMs } });
  const task: ParseTask = {
    filename,
    data: copy,
    limits,
    chunking: opts?.chunking,
    ocr: { cpuBudgetMs: cfg.fileTimeoutMs, maxPages: cfg.maxPages, threads: cfg.threads },
  };
  let result: ParseResult;
  try {
    result = await ocrPool().run<ParseResult>(task, {
      transfer: [copy.buffer],
      signal: opts?.signal,
      onProgress: (p) => opts?.onOcrPage?.(p as OcrProgress),
    });
  } catch (err) {
    if (err instanceof TaskStopped) {
      if (err.reason === "time") {
        throw new AppError(
          "parse_failed",
          `A page of "${filename}" needed more than the ${cfg.pageTimeoutMs / 1000}-CPU-second OCR budget per page and was stopped.`,
        );
      }
      if (err.reason === "memory") {
        throw new AppError(
          "too_large",
          `"${filename}" needed more than the ${cfg.memoryMb} MB OCR memory budget (OCR_MEMORY_MB) and was stopped.`,
        );
      }
      if (err.reason === "aborted") throw Object.assign(new Error("The upload was cancelled."), { name: "AbortError" });
      throw new AppError("parse_failed", `"${filename}" could not be read by OCR: the reader crashed.`);
    }
    throw remoteError(err, filename);
  }
  return unpacked(result);
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
