"use client";

import { useMessages } from "@/components/i18n";
import { formatBytes, T, type DocumentMessages } from "./messages";
import { useDocumentUploads } from "./UploadContext";
import { progressPercent, type UploadItem } from "./upload-queue";

export function statusLabel(item: UploadItem, t: DocumentMessages): string {
  switch (item.state) {
    case "queued":
      return t.stageQueued;
    case "uploading":
      return t.stageUploading;
    case "cancelled":
      return t.stageCancelled;
    case "failed":
      return `${t.stageFailed}: ${item.result?.error?.message || t.networkError}`;
    case "done": {
      const n = item.result?.chunkCount;
      const base = item.result?.status === "unchanged" ? t.stageUnchanged : item.result?.status === "updated" ? t.stageUpdated : t.stageDone;
      return n !== undefined ? `${base} · ${n} ${n === 1 ? t.chunk : t.chunks}` : base;
    }
    case "processing":
      switch (item.stage) {
        case "received":
          return t.stageReceived;
        case "parsing":
          return t.stageParsing;
        case "chunking":
          return t.stageChunking;
        case "embedding":
          return item.total ? `${t.stageEmbedding} ${item.done ?? 0}/${item.total}` : t.stageEmbedding;
        case "indexing":
          return t.stageIndexing;
        case "done":
        case "skipped":
          return t.stageDone;
        default:
          return t.stageUploading;
      }
  }
}

const BAR_COLOR: Record<UploadItem["state"], string> = {
  queued: "bg-zinc-300 dark:bg-zinc-600",
  uploading: "bg-sky-500",
  processing: "bg-sky-500",
  done: "bg-emerald-500",
  failed: "bg-red-500",
  cancelled: "bg-zinc-400",
};

function UploadRow({ item, t, onCancel, onDismiss }: { item: UploadItem; t: DocumentMessages; onCancel: () => void; onDismiss: () => void }) {
  const pct = item.state === "failed" || item.state === "cancelled" ? 100 : progressPercent(item);
  const active = item.state === "queued" || item.state === "uploading" || item.state === "processing";
  const label = statusLabel(item, t);
  return (
    <li data-testid="upload-item" data-status={item.state} data-name={item.name} className="px-3 py-2">
      <div className="flex items-center gap-2">
        <span className="min-w-0 flex-1 truncate text-sm font-medium" title={item.name}>
          {item.name}
        </span>
        <span className="shrink-0 text-xs text-zinc-600 dark:text-zinc-400">{formatBytes(item.size)}</span>
        {active ? (
          <button
            type="button"
            data-testid="upload-cancel"
            onClick={onCancel}
            className="shrink-0 rounded px-1.5 text-xs text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
            aria-label={`${t.cancel} ${item.name}`}
          >
            {t.cancel}
          </button>
        ) : (
          <button
            type="button"
            onClick={onDismiss}
            className="shrink-0 rounded px-1.5 text-xs text-zinc-600 hover:bg-zinc-100 dark:hover:bg-zinc-800 dark:text-zinc-400"
            aria-label={`${t.dismiss} ${item.name}`}
          >
            ×
          </button>
        )}
      </div>
      <div
        data-testid="upload-progress"
        role="progressbar"
        aria-label={item.name}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        className="mt-1 h-1.5 w-full overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800"
      >
        <div className={`h-full transition-[width] duration-300 ${BAR_COLOR[item.state]}`} style={{ width: `${pct}%` }} />
      </div>
      <p
        data-testid="upload-status"
        role={item.state === "failed" ? "alert" : undefined}
        className={`mt-1 text-xs ${item.state === "failed" ? "text-red-600 dark:text-red-400" : "text-zinc-600 dark:text-zinc-400"}`}
      >
        {label}
      </p>
    </li>
  );
}

/** Per-file progress, pinned to the bottom corner while there are uploads to show. */
export function UploadTray() {
  const t = useMessages(T);
  const { items, cancel, dismiss, clearFinished } = useDocumentUploads();
  if (items.length === 0) return null;
  const finished = items.some((i) => i.state === "done" || i.state === "failed" || i.state === "cancelled");
  return (
    <section
      data-testid="upload-tray"
      aria-label={t.uploads}
      aria-live="polite"
      className="fixed bottom-24 right-4 z-40 flex max-h-[50vh] w-[min(24rem,calc(100vw-2rem))] flex-col overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
    >
      <header className="flex items-center justify-between border-b border-zinc-200 px-3 py-2 dark:border-zinc-700">
        <h2 className="text-sm font-semibold">
          {t.uploads} ({items.length})
        </h2>
        {finished && (
          <button type="button" onClick={clearFinished} className="text-xs text-sky-700 hover:underline dark:text-sky-300">
            {t.clearFinished}
          </button>
        )}
      </header>
      <ul className="divide-y divide-zinc-100 overflow-y-auto dark:divide-zinc-800">
        {items.map((item) => (
          <UploadRow key={item.id} item={item} t={t} onCancel={() => cancel(item.id)} onDismiss={() => dismiss(item.id)} />
        ))}
      </ul>
    </section>
  );
}
