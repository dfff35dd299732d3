"use client";

import { useCallback, useMemo, useRef, useState } from "react";
import { documentApi } from "@/components/documents/api";
import { T as DOCS } from "@/components/documents/messages";
import { useDocumentUploads } from "@/components/documents/UploadContext";
import { statusLabel } from "@/components/documents/UploadTray";
import { getUploadQueue, type UploadItem } from "@/components/documents/upload-queue";
import { fill } from "@/components/fill";
import { useMessages } from "@/components/i18n";
import { PaperclipIcon } from "@/components/icons";
import type { Attachment } from "@/lib/agent/protocol";
import type { ComposerAttach } from "./Composer";

export const AT = {
  en: {
    attach: "Attach a file",
    attachReadOnly: "You may read this library but not add files to it, so you cannot attach one.",
    waiting: "The question is sent once the attached file is in the library.",
    failed: "Remove the file that could not be added, or attach another.",
    remove: "Remove {name}",
    attachments: "Attached files",
    attachedFile: "Attached file: {name}",
    toLibrary: "Add attached files to the library",
    toLibraryHint: "Off: an attached file stays with this conversation; only you see it, and it is deleted with the conversation.",
    keptHere: "only in this conversation",
    dropKept: "They stay with this conversation: only you see them, and they are deleted with it.",
    dropInto: "They are added to the knowledge base “{kb}”, where its readers see them.",
    defaultKb: "the default knowledge base",
    inKb: "added to the knowledge base “{kb}”",
    scopeDropped: "{n} picked document(s) are no longer in the library: they were removed from this conversation's sources.",
  },
  zh: {
    attach: "附加文件",
    attachReadOnly: "你可以阅读此资料库，但不能向其中添加文件，因此无法附加文件。",
    waiting: "附件加入资料库后才能发送问题。",
    failed: "请移除未能添加的文件，或附加其他文件。",
    remove: "移除 {name}",
    attachments: "附件",
    attachedFile: "附件：{name}",
    toLibrary: "将附件加入资料库",
    toLibraryHint: "关闭时，附件只属于此对话：只有你能看到，删除对话时一并删除。",
    keptHere: "仅在此对话中",
    dropKept: "附件只属于此对话：只有你能看到，删除对话时一并删除。",
    dropInto: "文件会加入知识库“{kb}”，该知识库的读者都能看到。",
    defaultKb: "默认知识库",
    inKb: "已加入知识库“{kb}”",
    scopeDropped: "{n} 篇已选文档已不在资料库中，已从此对话的来源中移除。",
  },
};

const ACTIVE: ReadonlySet<UploadItem["state"]> = new Set(["queued", "uploading", "processing"]);

/**
 * Files attached to the next question, through the same queue, route and checks as the documents page: kept with
 * the conversation (only its owner sees them, lib/tools/scope.ts isAttachmentKb), or, when the person chooses
 * "add to the library", added to `kb` (the server's default when undefined). `ready`: the documents they became;
 * `blocked`: why the question cannot be sent yet (a file still being added, or one that failed); `composer`: what
 * the question box needs (a person who may not add files sees the paperclip disabled, with the reason).
 */
export function useAttachments(kb: string | undefined, mayAttach: boolean) {
  const { items } = useDocumentUploads();
  const [ids, setIds] = useState<string[]>([]);
  const current = useRef(ids);
  current.current = ids;
  const t = useMessages(AT);
  const [toLibrary, setToLibrary] = useState(false);
  const attached = useMemo(() => ids.flatMap((id) => items.filter((i) => i.id === id)), [ids, items]);
  const ready: Attachment[] = attached.flatMap((i) =>
    i.state === "done" && i.result?.documentId ? [{ id: i.result.documentId, name: i.name }] : [],
  );
  const blocked = attached.some((i) => ACTIVE.has(i.state)) ? t.waiting : attached.some((i) => i.state !== "done") ? t.failed : undefined;
  const add = useCallback(
    (files: File[]) => {
      const added = getUploadQueue().add(files, kb, { attached: true, keptWithQuestion: !toLibrary });
      setIds((prev) => [...prev, ...added]);
    },
    [kb, toLibrary],
  );
  // Leaving the queue cancels a file still on its way; one already in the library stays there, one kept with the
  // question is deleted (no question has it).
  const remove = useCallback((id: string) => {
    const item = getUploadQueue()
      .getItems()
      .find((i) => i.id === id);
    if (item?.keptWithQuestion && item.result?.documentId) void documentApi.remove(item.result.documentId).catch(() => null);
    getUploadQueue().dismiss(id);
    setIds((prev) => prev.filter((x) => x !== id));
  }, []);
  const clear = useCallback(() => {
    for (const id of current.current) getUploadQueue().dismiss(id);
    setIds([]);
  }, []);
  const composer: ComposerAttach = {
    label: t.attach,
    onFiles: add,
    disabledReason: mayAttach ? undefined : t.attachReadOnly,
    chips: <AttachmentChips items={attached} onRemove={remove} />,
    blocked,
    dropNote: toLibrary ? fill(t.dropInto, { kb: kb ?? t.defaultKb }) : t.dropKept,
  };
  const libraryChoice = mayAttach ? (
    <label title={t.toLibraryHint} className="flex items-center gap-1 text-[11px] text-zinc-600 dark:text-zinc-400">
      <input type="checkbox" data-testid="attach-to-library" checked={toLibrary} onChange={(e) => setToLibrary(e.target.checked)} />
      {t.toLibrary}
    </label>
  ) : null;
  return { ready, blocked, clear, composer, libraryChoice };
}

/** The files attached to the pending question, each with how far its upload and indexing got (or its error). */
function AttachmentChips({ items, onRemove }: { items: UploadItem[]; onRemove: (id: string) => void }) {
  const t = useMessages(AT);
  const docs = useMessages(DOCS);
  if (!items.length) return null;
  return (
    <ul aria-label={t.attachments} className="mx-auto mb-1.5 flex w-full max-w-3xl flex-wrap gap-1.5 text-xs">
      {items.map((i) => (
        <li
          key={i.id}
          data-testid="attachment-chip"
          data-state={i.state}
          data-document-id={i.result?.documentId}
          className={`flex max-w-full items-center gap-1 rounded-lg border px-2 py-1 ${
            i.state === "failed" ? "border-red-400 text-red-800 dark:text-red-300" : "border-zinc-300 dark:border-zinc-700"
          }`}
        >
          <PaperclipIcon size={14} />
          <span className="max-w-[12rem] truncate font-medium">{i.name}</span>
          <span role="status" data-testid="attachment-status" className="min-w-0 break-words text-zinc-700 dark:text-zinc-300">
            {statusLabel(i, docs)}
            {i.state === "done" && ` · ${i.keptWithQuestion ? t.keptHere : fill(t.inKb, { kb: i.result?.kb ?? "" })}`}
          </span>
          <button
            type="button"
            data-testid="attachment-remove"
            aria-label={fill(t.remove, { name: i.name })}
            onClick={() => onRemove(i.id)}
            className="rounded px-1 hover:bg-zinc-100 dark:hover:bg-zinc-800"
          >
            <span aria-hidden="true">×</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The files a question was asked with, as links to their documents (after a reload too). */
export function MessageAttachments({ attachments }: { attachments?: Attachment[] }) {
  const t = useMessages(AT);
  if (!attachments?.length) return null;
  return (
    <ul aria-label={t.attachments} className="flex max-w-[85%] flex-wrap justify-end gap-1.5 text-xs">
      {attachments.map((a) => (
        <li key={a.id}>
          <a
            href={`/documents/${encodeURIComponent(a.id)}`}
            data-testid="message-attachment"
            data-id={a.id}
            aria-label={fill(t.attachedFile, { name: a.name })}
            className="inline-flex items-center gap-1 rounded-lg border border-zinc-300 px-2 py-0.5 text-zinc-800 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800"
          >
            <PaperclipIcon size={14} />
            {a.name}
          </a>
        </li>
      ))}
    </ul>
  );
}
