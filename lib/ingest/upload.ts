/**
 * Upload-side helpers for POST /api/documents: streamed multipart reading with limits enforced on the bytes
 * received, file-name sanitising, and ingesting several files one after another where each file fails alone.
 */
import busboy from "busboy";
import { getConfig } from "@/lib/config";
import { errorBody } from "@/lib/http/errors";
import { sanitizeFileName } from "@/lib/kb/fields";
import type { Store } from "@/lib/store";
import { isAttachmentKb } from "@/lib/tools/scope";
import { AppError } from "@/lib/types";
import { ingestDocument } from "./index";
import { tooLargeMessage, type UploadEvent, type UploadFileResult } from "./upload-events";

export type { UploadEvent, UploadFileResult } from "./upload-events";

export interface UploadLimits {
  maxFileBytes: number;
  maxFiles: number;
  /** All files of one request together, counted on the bytes received. */
  maxTotalBytes: number;
}

export function uploadLimits(): UploadLimits {
  const cfg = getConfig();
  return { maxFileBytes: cfg.maxUploadBytes, maxFiles: cfg.maxUploadFiles, maxTotalBytes: cfg.maxUploadTotalBytes };
}

const mb = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

const MAX_FIELD_BYTES = 64 * 1024;

export interface ReceivedUpload {
  /** In the order received; a file over the per-file limit carries its error and no data. */
  files: UploadFile[];
  /** Text fields by name, every value in order. */
  fields: Record<string, string[]>;
}

/**
 * Reads a multipart upload as a stream (busboy), enforcing the limits on the bytes as they arrive, with or
 * without Content-Length: a file over `maxFileBytes` is cut off and kept only as its error (the others go
 * on); more than `maxTotalBytes` in all stops reading at once (413); more than `maxFiles` files is a 400.
 * Nothing beyond the limits is ever held in memory.
 */
export async function receiveUpload(req: Request, limits: UploadLimits): Promise<ReceivedUpload> {
  const contentType = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data/i.test(contentType)) {
    throw new AppError("bad_request", 'Send the files as multipart/form-data in the field "files".');
  }
  const tooMuch = () =>
    new AppError("too_large", `The upload is larger than ${mb(limits.maxTotalBytes)} in all; send fewer or smaller files.`);
  const length = Number(req.headers.get("content-length"));
  if (req.headers.get("content-length") && Number.isFinite(length) && length > limits.maxTotalBytes + 1024 * 1024) throw tooMuch();

  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: { "content-type": contentType },
      defParamCharset: "utf8",
      limits: {
        fileSize: limits.maxFileBytes,
        files: limits.maxFiles,
        fields: 200,
        fieldSize: MAX_FIELD_BYTES,
        parts: limits.maxFiles + 200,
      },
    });
  } catch {
    throw new AppError("bad_request", "The request body is not valid multipart/form-data.");
  }
  const files: UploadFile[] = [];
  const fields: Record<string, string[]> = {};
  let failure: AppError | null = null;
  const fail = (err: AppError) => {
    failure ??= err;
  };
  const interrupted = () => new AppError("bad_request", "The upload was interrupted.");
  bb.on("file", (field, stream, info) => {
    // A file stream errors when the parser is destroyed mid-file (an aborted upload, a limit): without a
    // listener that error would reach the process as an uncaught exception.
    stream.on("error", () => fail(interrupted()));
    if (field !== "files") {
      stream.resume();
      return;
    }
    const parts: Buffer[] = [];
    let over = false;
    stream.on("data", (chunk: Buffer) => {
      if (!over) parts.push(chunk);
    });
    stream.on("limit", () => {
      over = true;
      parts.length = 0;
    });
    stream.on("close", () => {
      const name = info.filename ?? "untitled";
      files.push(
        over
          ? {
              name,
              data: new Uint8Array(),
              error: {
                code: "too_large",
                message: tooLargeMessage(sanitizeFileName(name), limits.maxFileBytes),
              },
            }
          : { name, data: Buffer.concat(parts) }, // a Buffer is a Uint8Array: no second copy
      );
    });
  });
  bb.on("field", (name, value, info) => {
    if (info.valueTruncated) fail(new AppError("bad_request", `The field "${name}" is longer than ${MAX_FIELD_BYTES / 1024} KB.`));
    fields[name] ??= [];
    fields[name].push(value);
  });
  bb.on("filesLimit", () => fail(new AppError("bad_request", `Too many files: at most ${limits.maxFiles} per upload.`)));
  bb.on("partsLimit", () => fail(new AppError("bad_request", "The upload has too many parts.")));
  const finished = new Promise<void>((resolve, reject) => {
    bb.on("close", resolve);
    bb.on("error", () => reject(new AppError("bad_request", "The request body is not valid multipart/form-data.")));
  });
  finished.catch(() => {});

  const reader = req.body?.getReader();
  if (!reader) throw new AppError("bad_request", 'No files were uploaded (multipart field "files").');
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limits.maxTotalBytes) throw tooMuch();
      if (!bb.write(value)) await new Promise<void>((resolve) => bb.once("drain", resolve));
    }
    bb.end();
    await finished;
  } catch (err) {
    reader.releaseLock(); // not cancel(): that would close the socket before the refusal is written (server.mjs drains the rest)
    bb.destroy();
    throw err instanceof AppError ? err : interrupted();
  }
  if (failure) throw failure;
  if (files.length === 0) throw new AppError("bad_request", 'No files were uploaded (multipart field "files").');
  return { files, fields };
}

export interface UploadFile {
  /** The file name as sent (ingestUploads applies the file-name rule). */
  name: string;
  data: Uint8Array;
  /** Refused while it was received (e.g. over the size limit): reported, never ingested. */
  error?: { code: string; message: string };
}

export interface UploadMeta {
  kb?: string;
  title?: string;
  author?: string;
  tags?: string[];
}

export function toErrorBody(err: unknown): { code: string; message: string } {
  if (err instanceof Error && err.name === "AbortError") return { code: "cancelled", message: "The upload was cancelled." };
  return errorBody(err).body;
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
    // The file-name rule, once: the name every event and result reports, and the one stored (the pipeline trusts it).
    const name = sanitizeFileName(file.name);
    let result: UploadFileResult;
    if (file.error) {
      result = { index, name, status: "failed", error: file.error };
      opts.onEvent?.({ type: "progress", index, name, stage: "failed", error: file.error.message, code: file.error.code });
    } else if (opts.signal?.aborted) {
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
        result = {
          index,
          name,
          status,
          documentId: document.id,
          title: document.title,
          chunkCount: document.chunkCount,
          ...(isAttachmentKb(document.kb) ? {} : { kb: document.kb }),
        };
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
