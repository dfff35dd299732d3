/**
 * Upload-side helpers for POST /api/documents: file-name sanitising, size/count limits, and ingesting
 * several files one after another where each file fails alone.
 */
import path from "node:path";
import { getConfig } from "@/lib/config";
import type { Store } from "@/lib/store";
import { AppError, type DocumentRecord, type IngestProgress } from "@/lib/types";
import { buildChunks, ingestDocument } from "./index";

export const MAX_FILE_NAME_CHARS = 200;

/**
 * A display name safe to store: the last path segment only (either slash), no control or bidi-override
 * characters, no leading dots, any other Unicode kept. The result is a label, never a path on disk.
 */
export function sanitizeFileName(name: string): string {
  let base = String(name ?? "")
    .normalize("NFC")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")
    .split(/[\\/]/)
    .pop()!
    .replace(/^[.\s]+/, "")
    .trim();
  if (!base) base = "untitled";
  if ([...base].length > MAX_FILE_NAME_CHARS) {
    const ext = path.extname(base).slice(0, 16);
    base = [...base.slice(0, base.length - ext.length)].slice(0, MAX_FILE_NAME_CHARS - ext.length).join("") + ext;
  }
  return base;
}

export interface UploadLimits {
  maxFileBytes: number;
  maxFiles: number;
}

export function uploadLimits(): UploadLimits {
  const cfg = getConfig();
  return { maxFileBytes: cfg.maxUploadBytes, maxFiles: cfg.maxUploadFiles };
}

const mb = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** Rejects a request body that cannot fit the limits before it is read (413). */
export function checkContentLength(header: string | null, limits: UploadLimits): void {
  const length = Number(header);
  // multipart framing adds a little per file on top of the payload
  if (header && Number.isFinite(length) && length > limits.maxFiles * (limits.maxFileBytes + 64 * 1024)) {
    throw new AppError("too_large", `The upload is ${mb(length)}; at most ${limits.maxFiles} files of ${mb(limits.maxFileBytes)} each are accepted.`, 413);
  }
}

/** Count (400) and per-file size (413) limits, checked on the parsed form before anything is ingested. */
export function checkUploadLimits(files: readonly { name: string; size: number }[], limits: UploadLimits): void {
  if (files.length === 0) throw new AppError("bad_request", "No files were uploaded (multipart field \"files\").", 400);
  if (files.length > limits.maxFiles) {
    throw new AppError("bad_request", `Too many files: ${files.length}; at most ${limits.maxFiles} per upload.`, 400);
  }
  const big = files.find((f) => f.size > limits.maxFileBytes);
  if (big) {
    throw new AppError("too_large", `"${big.name}" is ${mb(big.size)}; the limit is ${mb(limits.maxFileBytes)} per file.`, 413);
  }
}

export interface UploadFile {
  name: string;
  data: Uint8Array;
}

export interface UploadMeta {
  kb?: string;
  title?: string;
  author?: string;
  tags?: string[];
}

export type UploadStatus = "added" | "updated" | "unchanged" | "failed" | "cancelled";

export interface UploadFileResult {
  index: number;
  name: string;
  status: UploadStatus;
  documentId?: string;
  title?: string;
  chunkCount?: number;
  error?: { code: string; message: string };
}

/** One NDJSON line of the upload stream. */
export type UploadEvent =
  | ({ type: "progress"; index: number; name: string; /** with stage "failed" */ code?: string } & Omit<IngestProgress, "file">)
  | { type: "result"; result: UploadFileResult }
  | { type: "summary"; results: UploadFileResult[] }
  /** The upload as a whole broke (not one file): nothing further follows. */
  | { type: "error"; error: { code: string; message: string } };

export function toErrorBody(err: unknown): { code: string; message: string } {
  if (err instanceof AppError) return { code: err.code, message: err.message };
  if (err instanceof Error && err.name === "AbortError") return { code: "cancelled", message: "The upload was cancelled." };
  console.error("[documents] unexpected error", err);
  return { code: "internal", message: "Something went wrong while processing this file." };
}

/**
 * Ingests the files one after another. Each file runs in its own try/catch: a failure is reported
 * for that file and the next one still runs; what is already stored is never touched by a failure.
 */
export async function ingestUploads(
  store: Store,
  files: readonly UploadFile[],
  meta: UploadMeta,
  opts: { onEvent?: (e: UploadEvent) => void; signal?: AbortSignal } = {},
): Promise<UploadFileResult[]> {
  const results: UploadFileResult[] = [];
  for (const [index, file] of files.entries()) {
    const name = sanitizeFileName(file.name);
    let result: UploadFileResult;
    if (opts.signal?.aborted) {
      result = { index, name, status: "cancelled", error: { code: "cancelled", message: "The upload was cancelled." } };
    } else {
      try {
        const { document, status } = await ingestDocument(
          store,
          { filename: name, data: file.data, kb: meta.kb, title: meta.title, author: meta.author, tags: meta.tags, origin: "upload" },
          {
            signal: opts.signal,
            onProgress: ({ file: _file, ...p }) => {
              // failures are reported once, below, with their error code
              if (p.stage !== "failed") opts.onEvent?.({ type: "progress", index, name, ...p });
            },
          },
        );
        result = { index, name, status, documentId: document.id, title: document.title, chunkCount: document.chunkCount };
      } catch (err) {
        const cancelled = opts.signal?.aborted ?? false;
        const error = cancelled ? { code: "cancelled", message: "The upload was cancelled." } : toErrorBody(err);
        result = { index, name, status: cancelled ? "cancelled" : "failed", error };
        opts.onEvent?.({ type: "progress", index, name, stage: "failed", error: error.message, code: error.code });
      }
    }
    results.push(result);
    opts.onEvent?.({ type: "result", result });
  }
  opts.onEvent?.({ type: "summary", results });
  return results;
}

/** Re-chunks and re-embeds one stored document from its stored text (e.g. after chunking settings changed). */
export async function reindexDocument(
  store: Store,
  id: string,
  opts: { onProgress?: (p: IngestProgress) => void; signal?: AbortSignal } = {},
): Promise<DocumentRecord> {
  const doc = await store.getDocument(id);
  const body = doc && (await store.getDocumentBody(id));
  if (!doc || !body) throw new AppError("not_found", `No document with id "${id}".`, 404);
  const emit = (p: Omit<IngestProgress, "file">) => opts.onProgress?.({ file: doc.source, ...p });
  emit({ stage: "received" });
  const chunks = await buildChunks(store, doc, body, { emit, signal: opts.signal });
  emit({ stage: "indexing", total: chunks.length });
  opts.signal?.throwIfAborted();
  const updated: DocumentRecord = { ...doc, chunkCount: chunks.length, updatedAt: new Date().toISOString() };
  await store.putDocument(updated, body, chunks);
  emit({ stage: "done", documentId: id, chunkCount: chunks.length });
  return updated;
}
