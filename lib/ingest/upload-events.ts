/**
 * The NDJSON stream of POST /api/documents, one event a line: written by lib/ingest/upload.ts, read by the
 * browser (components/documents/upload-client.ts). Types only: the browser imports them too.
 */
import type { IngestProgress } from "@/lib/types";

export type UploadStatus = "added" | "updated" | "unchanged" | "failed" | "cancelled";

/** What became of one file. */
export interface UploadOutcome {
  status: UploadStatus;
  documentId?: string;
  title?: string;
  chunkCount?: number;
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
