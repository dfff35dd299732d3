"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";
import { fill } from "@/components/chat/strings";
import { useMessages } from "@/components/i18n";
import { extensionOf, FORMAT_LIST, SUPPORTED_EXTENSIONS } from "@/lib/parse/formats";
import type { IngestStage } from "@/lib/types";
import { type DocumentMessages, formatBytes, T } from "./messages";
import { useDocumentUploads } from "./UploadContext";
import { progressPercent, summarize, type UploadItem } from "./upload-queue";

const ERROR_KEYS = ["unsupported_type", "too_large", "parse_failed", "bad_request", "unauthorized", "forbidden", "internal"] as const;

/** A failed file's reason in the UI language (the server's English message names the file and the limit). */
function uploadError(item: UploadItem, t: DocumentMessages): string {
  const error = item.result?.error;
  if (!error || error.code === "network") return t.networkError;
  const known = (ERROR_KEYS as readonly string[]).includes(error.code) ? (error.code as (typeof ERROR_KEYS)[number]) : "other";
  // A type the app reads, refused for its content (a broken PDF): not an unsupported type.
  const code = known === "unsupported_type" && SUPPORTED_EXTENSIONS.includes(extensionOf(item.name)) ? "content_mismatch" : known;
  return fill(t[`err_${code}`], {
    name: item.name,
    message: error.message || item.name,
    formats: FORMAT_LIST,
  });
}

const STAGE_LABEL: Partial<Record<IngestStage, "stageReceived" | "stageParsing" | "stageChunking" | "stageIndexing" | "stageDone">> = {
  received: "stageReceived",
  parsing: "stageParsing",
  chunking: "stageChunking",
  indexing: "stageIndexing",
  done: "stageDone",
  skipped: "stageDone",
};

export function statusLabel(item: UploadItem, t: DocumentMessages): string {
  switch (item.state) {
    case "queued":
      return t.stageQueued;
    case "uploading":
      return t.stageUploading;
    case "cancelled":
      return t.stageCancelled;
    case "failed":
      return `${t.stageFailed}: ${uploadError(item, t)}`;
    case "done": {
      const n = item.result?.chunkCount;
      const base =
        item.result?.status === "unchanged" ? t.stageUnchanged : item.result?.status === "updated" ? t.stageUpdated : t.stageDone;
      return n !== undefined ? `${base} · ${n} ${n === 1 ? t.chunk : t.chunks}` : base;
    }
    case "processing":
      if (item.stage === "embedding") return item.total ? `${t.stageEmbedding} ${item.done ?? 0}/${item.total}` : t.stageEmbedding;
      if (item.stage === "ocr") return item.total ? `${t.stageOcr} ${item.done ?? 0}/${item.total}` : t.stageOcr;
      return t[(item.stage && STAGE_LABEL[item.stage]) || "stageUploading"];
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

/** A small button of an upload's row, named for the action and the file. */
function RowAction({
  testid,
  onClick,
  action,
  name,
  tone,
  children,
}: {
  testid?: string;
  onClick: () => void;
  action: string;
  name: string;
  tone: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      data-testid={testid}
      onClick={onClick}
      className={`shrink-0 rounded px-1.5 text-xs hover:bg-zinc-100 dark:hover:bg-zinc-800 ${tone}`}
      aria-label={`${action} ${name}`}
    >
      {children}
    </button>
  );
}

function UploadRow({
  item,
  t,
  onCancel,
  onDismiss,
  onRetry,
}: {
  item: UploadItem;
  t: DocumentMessages;
  onCancel: () => void;
  onDismiss: () => void;
  onRetry?: () => void;
}) {
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
          <RowAction testid="upload-cancel" onClick={onCancel} action={t.cancel} name={item.name} tone="text-zinc-600 dark:text-zinc-300">
            {t.cancel}
          </RowAction>
        ) : (
          <>
            {item.state === "failed" && onRetry && (
              <RowAction
                testid="upload-retry"
                onClick={onRetry}
                action={t.retry}
                name={item.name}
                tone="font-medium text-sky-800 dark:text-sky-300"
              >
                {t.retry}
              </RowAction>
            )}
            <RowAction onClick={onDismiss} action={t.dismiss} name={item.name} tone="text-zinc-600 dark:text-zinc-400">
              ×
            </RowAction>
          </>
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

/**
 * Per-file progress, pinned to the bottom corner while there are uploads to show: the newest batch on
 * top, a summary ("12 added, 2 failed") in the header, collapsible to that header alone.
 */
export function UploadTray() {
  const t = useMessages(T);
  const uploads = useDocumentUploads();
  const { cancel, dismiss, retry, canRetry, clearFinished } = uploads;
  const items = uploads.items.filter((i) => !i.attached);
  const [collapsed, setCollapsed] = useState(false);
  const lastBatch = items.reduce((m, i) => Math.max(m, i.batch), 0);
  const seenBatch = useRef(lastBatch);
  // A new batch opens the tray again.
  useEffect(() => {
    if (lastBatch > seenBatch.current) setCollapsed(false);
    seenBatch.current = lastBatch;
  }, [lastBatch]);
  if (items.length === 0) return null;
  const sum = summarize(items);
  const finished = sum.added + sum.failed + sum.cancelled > 0;
  const summary = [
    sum.active ? fill(t.summaryActive, { n: sum.active }) : "",
    sum.added ? fill(t.summaryAdded, { n: sum.added }) : "",
    sum.failed ? fill(t.summaryFailed, { n: sum.failed }) : "",
    sum.cancelled ? fill(t.summaryCancelled, { n: sum.cancelled }) : "",
  ]
    .filter(Boolean)
    .join(", ");
  const ordered = [...items].sort((a, b) => b.batch - a.batch);
  return (
    <section
      data-testid="upload-tray"
      data-collapsed={collapsed || undefined}
      aria-label={t.uploads}
      className="fixed right-4 bottom-24 z-40 flex max-h-[40vh] w-[min(24rem,calc(100vw-2rem))] flex-col overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
    >
      <header className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-700">
        <h2 className="min-w-0 flex-1 text-sm">
          <span className="font-semibold">{t.uploads}</span>{" "}
          <span data-testid="upload-summary" aria-live="polite" className="text-zinc-700 dark:text-zinc-300">
            {summary}
          </span>
        </h2>
        {finished && !collapsed && (
          <button type="button" onClick={clearFinished} className="shrink-0 text-xs text-sky-800 hover:underline dark:text-sky-300">
            {t.clearFinished}
          </button>
        )}
        <button
          type="button"
          data-testid="upload-tray-toggle"
          aria-expanded={!collapsed}
          onClick={() => setCollapsed((c) => !c)}
          className="shrink-0 rounded px-1.5 text-xs text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          {collapsed ? t.expand : t.collapse}
        </button>
      </header>
      {!collapsed && (
        <ul className="divide-y divide-zinc-100 overflow-y-auto dark:divide-zinc-800">
          {ordered.map((item) => (
            <UploadRow
              key={item.id}
              item={item}
              t={t}
              onCancel={() => cancel(item.id)}
              onDismiss={() => dismiss(item.id)}
              onRetry={canRetry(item.id) ? () => retry(item.id) : undefined}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
