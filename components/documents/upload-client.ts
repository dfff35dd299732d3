/**
 * Browser side of POST /api/documents: uploads one file per request (so cancelling one leaves the
 * others running) and turns the NDJSON progress stream into events.
 */
import { authHeaders } from "@/components/api";
import type { UploadEvent, UploadOutcome } from "@/lib/ingest/upload-events";

/** Splits a byte stream into parsed JSON lines. */
async function* readNdjson<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) yield JSON.parse(line) as T;
    }
    if (done) break;
  }
  if (buffer.trim()) yield JSON.parse(buffer) as T;
}

export interface UploadOptions {
  kb?: string;
  /** "question": attached to a chat question, kept with the conversation instead of added to a knowledge base. */
  attach?: "question";
  signal?: AbortSignal;
  onProgress?: (e: Extract<UploadEvent, { type: "progress" }>) => void;
}

/** Uploads one file and resolves with its result; never rejects except on abort. */
export async function uploadFile(file: File, opts: UploadOptions = {}): Promise<UploadOutcome> {
  const form = new FormData();
  form.append("files", file, file.name);
  if (opts.kb) form.append("kb", opts.kb);
  if (opts.attach) form.append("attach", opts.attach);
  let res: Response;
  try {
    res = await fetch("/api/documents", {
      method: "POST",
      body: form,
      headers: { ...authHeaders(), Accept: "application/x-ndjson" },
      signal: opts.signal,
    });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return { status: "failed", error: { code: "network", message: "" } };
  }
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
    return { status: "failed", error: body?.error ?? { code: `http_${res.status}`, message: `HTTP ${res.status}` } };
  }
  let result: UploadOutcome | undefined;
  try {
    for await (const e of readNdjson<UploadEvent>(res.body)) {
      if (e.type === "progress") opts.onProgress?.(e);
      else if (e.type === "result") result = e.result;
      else if (e.type === "error") result = { status: "failed", error: e.error };
    }
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return { status: "failed", error: { code: "network", message: "" } };
  }
  return result ?? { status: "failed", error: { code: "network", message: "" } };
}
