"use client";

import { useEffect } from "react";
import { DocumentView } from "@/components/documents/DocumentView";
import type { ChatText } from "./strings";

export interface OpenSource {
  documentId: string;
  chunkId: string;
  claim?: string;
}

/** The document a citation opened, beside the chat (wide screens); Escape closes it. */
export function SourceSidePanel({ source, onClose, t, nav }: { source: OpenSource; onClose: () => void; t: ChatText; nav: string }) {
  // Escape closes the panel, unless a dialog or citation card is open (Escape closes that first). Listened to in
  // the capture phase, before the dialog's own handler takes it out of the page.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || document.querySelector('[role="dialog"]')) return;
      const inPanel = document.querySelector('[data-testid="source-panel"]')?.contains(document.activeElement);
      onClose();
      if (inPanel) document.getElementById("chat-input")?.focus();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [onClose]);
  return (
    <aside
      aria-label={t.sourcePanel}
      data-testid="source-panel"
      className="hidden w-[42%] max-w-2xl shrink-0 flex-col border-l border-zinc-200 lg:flex dark:border-zinc-800"
    >
      <div className="flex items-center justify-between border-b border-zinc-200 px-3 py-1.5 dark:border-zinc-800">
        <a
          href={`/documents/${encodeURIComponent(source.documentId)}?chunk=${encodeURIComponent(source.chunkId)}`}
          className="text-xs text-blue-800 underline dark:text-blue-300"
        >
          {t.openFullPage}
        </a>
        <button type="button" data-testid="source-panel-close" onClick={onClose} className={nav}>
          {t.close} ×
        </button>
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <DocumentView
          key={`${source.documentId}:${source.chunkId}:${source.claim ?? ""}`}
          id={source.documentId}
          chunkId={source.chunkId}
          claim={source.claim}
          embedded
        />
      </div>
    </aside>
  );
}
