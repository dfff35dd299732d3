/**
 * The browser's upload queue: files wait, then upload two at a time, each with its own AbortController.
 * One queue per page load (module singleton) so uploads keep running while the user moves between the
 * chat and the library.
 */

import { checkUploadFile, PERMANENT_UPLOAD_ERRORS, type UploadOutcome } from "@/lib/ingest/upload-events";
import type { IngestStage } from "@/lib/types";
import { uploadFile } from "./upload-client";

type UploadState = "queued" | "uploading" | "processing" | "done" | "failed" | "cancelled";

export interface UploadItem {
  id: string;
  name: string;
  size: number;
  state: UploadState;
  /** Last server stage seen. */
  stage?: IngestStage;
  done?: number;
  total?: number;
  result?: UploadOutcome;
  /** Files added together share a batch number; a later batch has a higher one. */
  batch: number;
  /** Attached to a chat question: shown on the question box, not in the page's upload tray. */
  attached?: boolean;
  /** Kept with the question's conversation, not added to the library (only its owner sees it). */
  keptWithQuestion?: boolean;
}

/** "12 added, 2 failed": counts of the finished and still running files. */
export function summarize(items: readonly UploadItem[]): { added: number; failed: number; active: number; cancelled: number } {
  const n = (f: (i: UploadItem) => boolean) => items.filter(f).length;
  return {
    added: n((i) => i.state === "done"),
    failed: n((i) => i.state === "failed"),
    active: n((i) => i.state === "queued" || i.state === "uploading" || i.state === "processing"),
    cancelled: n((i) => i.state === "cancelled"),
  };
}

const CONCURRENCY = 2;

/** Overall progress 0–100 through the stages; embedding advances with done/total. */
export function progressPercent(item: UploadItem): number {
  if (item.state === "done") return 100;
  if (item.state === "queued") return 0;
  switch (item.stage) {
    case "received":
      return 8;
    case "parsing":
      return 15;
    case "ocr":
      return 15 + Math.round(10 * (item.total ? (item.done ?? 0) / item.total : 0));
    case "chunking":
      return 25;
    case "embedding":
      return 25 + Math.round(65 * (item.total ? (item.done ?? 0) / item.total : 0));
    case "indexing":
      return 92;
    case "done":
    case "skipped":
      return 100;
    default:
      return 3;
  }
}

export class UploadQueue {
  private items: UploadItem[] = [];
  private files = new Map<string, File>();
  private controllers = new Map<string, AbortController>();
  /** Knowledge base chosen for each queued file. */
  private kbs = new Map<string, string | undefined>();
  private listeners = new Set<() => void>();
  private seq = 0;
  private batches = 0;
  /** Bumped whenever a file got into the library, so views can refetch. */
  version = 0;
  /** The server's per-file limit (MAX_UPLOAD_MB), told by the page, for the check before sending. */
  maxFileBytes?: number;

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getItems = () => this.items;
  getVersion = () => this.version;

  private update(id: string, patch: Partial<UploadItem>) {
    this.items = this.items.map((it) => (it.id === id ? { ...it, ...patch } : it));
    this.emit();
  }

  private emit() {
    for (const l of this.listeners) l();
  }

  /** Queues `files` for knowledge base `kb` (server default when undefined); returns their item ids. */
  add(files: Iterable<File>, kb?: string, opts: { attached?: boolean; keptWithQuestion?: boolean } = {}): string[] {
    const added: UploadItem[] = [];
    const batch = ++this.batches;
    for (const file of files) {
      const id = `u${++this.seq}-${Date.now().toString(36)}`;
      // Refused here, with the server's message, when it could never succeed: nothing is sent, no Retry.
      const error = checkUploadFile(file, this.maxFileBytes);
      if (error) {
        added.push({ id, name: file.name, size: file.size, state: "failed", batch, result: { status: "failed", error }, ...opts });
        continue;
      }
      this.files.set(id, file);
      added.push({ id, name: file.name, size: file.size, state: "queued", batch, ...opts });
    }
    if (!added.length) return [];
    this.items = [...this.items, ...added];
    for (const a of added) if (a.state === "queued") this.kbs.set(a.id, kb);
    this.emit();
    this.pump();
    return added.map((a) => a.id);
  }

  cancel(id: string) {
    const item = this.items.find((i) => i.id === id);
    if (!item || item.state === "done" || item.state === "failed" || item.state === "cancelled") return;
    this.controllers.get(id)?.abort();
    this.finish(id, { state: "cancelled" });
  }

  /** Uploads a failed file again (its bytes are kept until it is dismissed). */
  retry(id: string) {
    const item = this.items.find((i) => i.id === id);
    if (item?.state !== "failed" || !this.files.has(id)) return;
    this.update(id, { state: "queued", stage: undefined, done: undefined, total: undefined, result: undefined });
    this.pump();
  }

  canRetry = (id: string) => this.files.has(id);

  dismiss(id: string) {
    this.cancel(id);
    this.files.delete(id);
    this.kbs.delete(id);
    this.items = this.items.filter((i) => i.id !== id);
    this.emit();
  }

  /** Clears the tray's finished files (an attachment stays until its question is sent or it is removed). */
  clearFinished() {
    const finished = (i: UploadItem) => !i.attached && ["done", "failed", "cancelled"].includes(i.state);
    for (const i of this.items) if (finished(i)) this.files.delete(i.id);
    this.items = this.items.filter((i) => !finished(i));
    this.emit();
  }

  private finish(id: string, patch: Partial<UploadItem>) {
    this.controllers.delete(id);
    // A failed file keeps its bytes (and knowledge base) for a retry, unless it would fail the same way again.
    if (patch.state !== "failed" || PERMANENT_UPLOAD_ERRORS.has(patch.result?.error?.code ?? "")) {
      this.files.delete(id);
      this.kbs.delete(id);
    }
    this.update(id, patch);
    this.pump();
  }

  private pump() {
    const active = this.items.filter((i) => i.state === "uploading" || i.state === "processing").length;
    const next = this.items.filter((i) => i.state === "queued").slice(0, Math.max(0, CONCURRENCY - active));
    for (const item of next) void this.start(item.id);
  }

  private async start(id: string) {
    const file = this.files.get(id);
    if (!file) return;
    const controller = new AbortController();
    this.controllers.set(id, controller);
    this.update(id, { state: "uploading" });
    try {
      const kept = this.items.find((i) => i.id === id)?.keptWithQuestion;
      const result = await uploadFile(file, {
        ...(kept ? { attach: "question" as const } : { kb: this.kbs.get(id) }),
        signal: controller.signal,
        onProgress: (e) => {
          if (controller.signal.aborted) return;
          this.update(id, {
            state: "processing",
            stage: e.stage,
            done: e.done,
            total: e.total ?? this.items.find((i) => i.id === id)?.total,
          });
        },
      });
      if (controller.signal.aborted) return;
      const ok = result.status === "added" || result.status === "updated" || result.status === "unchanged";
      if (ok) this.version++;
      this.finish(id, { state: ok ? "done" : result.status === "cancelled" ? "cancelled" : "failed", result });
    } catch {
      // aborted: cancel() already marked it
      if (!controller.signal.aborted) this.finish(id, { state: "failed" });
    }
  }
}

let shared: UploadQueue | undefined;

export function getUploadQueue(): UploadQueue {
  shared ??= new UploadQueue();
  return shared;
}
