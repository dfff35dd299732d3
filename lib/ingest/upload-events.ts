/**
 * The NDJSON stream of POST /api/documents, one event a line: written by lib/ingest/upload.ts, read by the
 * browser (components/documents/upload-client.ts). The browser imports this file too.
 */

import { sanitizeFileName } from "@/lib/kb/fields";
import { extensionOf, SUPPORTED_EXTENSIONS, unsupportedTypeMessage } from "@/lib/parse/formats";
import type { IngestProgress } from "@/lib/types";

type UploadStatus = "added" | "updated" | "unchanged" | "failed" | "cancelled";

/** What became of one file. */
export interface UploadOutcome {
  status: UploadStatus;
  documentId?: string;
  title?: string;
  chunkCount?: number;
  /** The knowledge base the file went into (absent for a file attached to a question, which goes into none). */
  kb?: string;
  error?: { code: string; message: string };
}

/** One file's outcome with its place in the upload. */
export interface UploadFileResult extends UploadOutcome {
  index: number;
  name: string;
}

/** One NDJSON line of the upload stream. */
export type UploadEvent =
  | ({ type: "progress"; index: number; name: string /** with stage "failed" */; code?: string } & Omit<IngestProgress, "file">)
  | { type: "result"; result: UploadFileResult }
  | { type: "summary"; results: UploadFileResult[] }
  /** The upload as a whole broke (not one file): nothing further follows. */
  | { type: "error"; error: { code: string; message: string } };

const mb = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** The refusal of a file over the per-file limit (MAX_UPLOAD_MB), in the server's and the browser's words (`name` sanitized). */
export function tooLargeMessage(name: string, maxFileBytes: number): string {
  return `"${name}" is larger than the ${mb(maxFileBytes)} limit per file (MAX_UPLOAD_MB).`;
}

/** Errors that the same file meets again on every try (no Retry for them). */
export const PERMANENT_UPLOAD_ERRORS: ReadonlySet<string> = new Set(["unsupported_type", "too_large"]);

/**
 * What the browser can tell before sending a file: a known-unsupported extension, or over the size limit.
 * A file without extension is left to the server, which reads its content.
 */
export function checkUploadFile(file: { name: string; size: number }, maxFileBytes?: number): { code: string; message: string } | null {
  const ext = extensionOf(file.name);
  const name = sanitizeFileName(file.name);
  if (ext && !SUPPORTED_EXTENSIONS.includes(ext)) return { code: "unsupported_type", message: unsupportedTypeMessage(name, ext) };
  if (maxFileBytes && file.size > maxFileBytes) return { code: "too_large", message: tooLargeMessage(name, maxFileBytes) };
  return null;
}
