"use client";

import { useEffect, useRef, useState } from "react";
import { useAccess } from "@/components/account/viewer";
import { fill } from "@/components/fill";
import { useMessages } from "@/components/i18n";
import { HiddenFileInput } from "@/components/ui";
import { FORMAT_LIST } from "@/lib/parse/formats";
import { T } from "./messages";
import { UploadProvider, useDocumentUploads } from "./UploadContext";
import { UploadTray } from "./UploadTray";
import { getUploadQueue } from "./upload-queue";

const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes("Files");

/**
 * Marks an element (the chat's question box) where dropped files are attached to a question instead; its value
 * says where they will go, shown on the overlay.
 */
export const ATTACH_DROP_TARGET = "data-attach-drop";
/** Where files dropped here would be attached (the attribute's note), or null when not over such a place. */
const attachNoteAt = (e: DragEvent): string | null =>
  e.target instanceof Element ? (e.target.closest(`[${ATTACH_DROP_TARGET}]`)?.getAttribute(ATTACH_DROP_TARGET) ?? null) : null;

/** Files dropped anywhere on the page are queued for upload; shows an overlay while dragging. */
function DropTarget() {
  const t = useMessages(T);
  const { addFiles } = useDocumentUploads();
  const [dragging, setDragging] = useState(false);
  // Over the question box the files are attached to the question: the overlay says so.
  const [attaching, setAttaching] = useState<string | null>(null);
  const depth = useRef(0);
  const { write } = useAccess();

  useEffect(() => {
    if (!write) return;
    const onEnter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current += 1;
      setDragging(true);
    };
    const onOver = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = "copy";
      setAttaching(attachNoteAt(e));
    };
    const onLeave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setDragging(false);
    };
    const onDrop = (e: DragEvent) => {
      depth.current = 0;
      setDragging(false);
      // Already handled on the way up (files dropped on the chat's question box are attached to the question).
      if (e.defaultPrevented) return;
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (!files.length) return;
      e.preventDefault();
      addFiles(files);
    };
    document.addEventListener("dragenter", onEnter);
    document.addEventListener("dragover", onOver);
    document.addEventListener("dragleave", onLeave);
    document.addEventListener("drop", onDrop);
    return () => {
      document.removeEventListener("dragenter", onEnter);
      document.removeEventListener("dragover", onOver);
      document.removeEventListener("dragleave", onLeave);
      document.removeEventListener("drop", onDrop);
    };
  }, [addFiles, write]);

  if (!dragging) return null;
  return (
    <div
      data-testid="drop-overlay"
      className="pointer-events-none fixed inset-0 z-50 flex items-center justify-center bg-sky-500/10 p-6 backdrop-blur-[1px]"
    >
      <div className="rounded-xl border-2 border-dashed border-sky-500 bg-white/90 px-10 py-8 text-center shadow-xl dark:bg-zinc-900/90">
        <p data-testid="drop-title" className="text-lg font-semibold text-sky-700 dark:text-sky-300">
          {attaching !== null ? t.dropAttachTitle : t.dropTitle}
        </p>
        {attaching && <p className="mt-1 text-sm text-zinc-700 dark:text-zinc-300">{attaching}</p>}
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{fill(t.dropHint, { formats: FORMAT_LIST })}</p>
      </div>
    </div>
  );
}

/** Asks before leaving the page while files are still uploading (leaving would cancel them). */
function LeaveGuard() {
  const { items } = useDocumentUploads();
  const active = items.some((i) => i.state === "queued" || i.state === "uploading" || i.state === "processing");
  useEffect(() => {
    if (!active) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, [active]);
  return null;
}

/**
 * Wraps a page so that files dropped anywhere on it are uploaded, with a per-file progress tray.
 * `kb` picks the knowledge base (server default otherwise); `maxFileBytes` is the server's per-file limit.
 */
export function DocumentDropZone({ children, kb, maxFileBytes }: { children: React.ReactNode; kb?: string; maxFileBytes?: number }) {
  // The server's per-file limit, for the check before sending (the queue is shared by the pages).
  if (maxFileBytes) getUploadQueue().maxFileBytes = maxFileBytes;
  return (
    <UploadProvider kb={kb}>
      {children}
      <DropTarget />
      <UploadTray />
      <LeaveGuard />
    </UploadProvider>
  );
}

/** The "Add documents" button with a file picker (several files at once); only for people who may upload (into `kb`); `short` for a phone header. */
export function AddDocumentsButton({ className, kb, short }: { className?: string; kb?: string; short?: boolean }) {
  const t = useMessages(T);
  const { addFiles } = useDocumentUploads();
  const input = useRef<HTMLInputElement>(null);
  const access = useAccess();
  if (kb ? !access.canWrite(kb) : !access.write) return null;
  return (
    <>
      <button
        type="button"
        data-testid="add-documents"
        onClick={() => input.current?.click()}
        className={
          className ??
          "inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
        }
      >
        <span aria-hidden="true">＋</span>
        {/* `short`: on a phone the ＋ alone (the words stay for screen readers). */}
        <span className={short ? "max-sm:sr-only" : undefined}>{t.addDocuments}</span>
      </button>
      <HiddenFileInput inputRef={input} testid="add-documents-input" onFiles={addFiles} />
    </>
  );
}
