"use client";

import { useState } from "react";
import { useAccess } from "@/components/account/viewer";
import { ConfirmButton } from "@/components/ConfirmButton";
import { AddDocumentsButton } from "@/components/documents/DocumentDropZone";
import { UploadProvider } from "@/components/documents/UploadContext";
import { SourcesPanel } from "@/components/sources/SourcesPanel";
import { buttonClass, ErrorLine, primaryButtonClass } from "@/components/ui";
import type { KnowledgeBase } from "@/lib/kb/types";
import { kbApi } from "./api";
import { KbEditForm } from "./KbEditForm";
import { fill, type KbMessages } from "./messages";
import { useKbAction } from "./useKbAction";

/** One knowledge base in the list: what it is and holds, its tool name, and connect, upload, edit, delete. */
const DELETE_CLASSES = {
  trigger: "rounded-md px-2.5 py-1 text-sm text-red-700 hover:underline dark:text-red-400",
  prompt: "flex flex-wrap items-center gap-2 text-sm",
  yes: "rounded-md bg-red-600 px-2.5 py-1 text-sm text-white hover:bg-red-700 disabled:opacity-50",
  no: buttonClass,
};

export function KbCard({
  kb,
  t,
  onChanged,
  onConnect,
  onError,
}: {
  kb: KnowledgeBase;
  t: KbMessages;
  onChanged: () => void;
  onConnect: () => void;
  onError: (e: unknown) => void;
}) {
  const { admin, canWrite } = useAccess();
  const [editing, setEditing] = useState(false);
  const action = useKbAction(t, onError);
  const { busy, error } = action;
  /** Runs a change; once it succeeded, closes the form or question and reloads the list. */
  const run = (fn: () => Promise<unknown>) =>
    action.run(async () => {
      await fn();
      setEditing(false);
      onChanged();
    });

  return (
    <li data-testid="kb-card" data-kb={kb.name} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      {editing ? (
        <KbEditForm
          kb={kb}
          t={t}
          busy={busy}
          onSave={(patch) => void run(() => kbApi.update(kb.name, patch))}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <>
          <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
            <h3 className="text-base font-semibold">{kb.title || kb.name}</h3>
            {kb.title && kb.title !== kb.name && <code className="text-xs text-zinc-600 dark:text-zinc-400">{kb.name}</code>}
            {kb.isDefault && (
              <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
                {t.defaultBadge}
              </span>
            )}
            <span data-testid="kb-count" className="ml-auto text-sm text-zinc-600 dark:text-zinc-400">
              {kb.documentCount} {kb.documentCount === 1 ? t.document : t.documents}
            </span>
          </div>
          <p className={`mt-1 text-sm ${kb.description ? "" : "italic text-zinc-600 dark:text-zinc-400"}`}>
            {kb.description || t.noDescription}
          </p>
          <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
            {t.tool}: <code data-testid="kb-tool">{kb.toolName}</code>
          </p>
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <button type="button" data-testid="kb-connect" onClick={onConnect} className={primaryButtonClass}>
              {t.connect}
            </button>
            <UploadProvider kb={kb.name}>
              <AddDocumentsButton className={buttonClass} kb={kb.name} />
            </UploadProvider>
            {admin && (
              <button type="button" data-testid="kb-edit" onClick={() => setEditing(true)} className={buttonClass}>
                {t.edit}
              </button>
            )}
            {admin && !kb.isDefault && (
              <ConfirmButton
                testid="kb-delete"
                label={t.delete}
                question={<span>{fill(t.confirmDelete, { name: kb.name, count: kb.documentCount })}</span>}
                yes={busy ? t.deleting : t.confirmDeleteYes}
                no={t.cancel}
                onConfirm={() => run(() => kbApi.remove(kb.name))}
                disabled={busy}
                classes={DELETE_CLASSES}
              />
            )}
          </div>
          <SourcesPanel kb={kb.name} canWrite={canWrite(kb.name)} admin={admin} onChanged={onChanged} />
        </>
      )}
      {error && <ErrorLine>{error}</ErrorLine>}
    </li>
  );
}
