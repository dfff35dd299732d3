"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";
import { apiFetch, copyText } from "@/components/api";
import { documentApi } from "@/components/documents/api";
import { downloadMarkdown } from "@/components/download";
import { useLocale, useMessages } from "@/components/i18n";
import { Button } from "@/components/ui";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import type { ShareLink } from "@/lib/conversations/schema";
import { ConversationDocument } from "./ConversationDocument";
import { conversationApi } from "./conversations-api";
import { conversationMarkdown, exportFileName } from "./export";
import { ShareLinks, sharePath } from "./ShareLinks";
import { S } from "./share-strings";
import { fill, T } from "./strings";

const shareUrl = (token: string) => `${window.location.origin}/shared/${token}`;

const BUTTON =
  "rounded-lg border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";

/** A button of the dialog; `className` adds to its look. */
function DialogButton({
  className,
  ...rest
}: {
  testid: string;
  className?: string;
  onClick(): unknown;
  disabled?: boolean;
  children: ReactNode;
}) {
  return <Button {...rest} className={className ? `${BUTTON} ${className}` : BUTTON} />;
}

/**
 * "Export" in the chat header: download the shown conversation as Markdown, print it (or save it as PDF) with
 * its references, and make, update or revoke its read-only share link (a snapshot: "Update link" once the
 * conversation changed since); the owner's other links are listed under it, each revocable.
 */
export function ExportDialog({
  conversationId,
  messages,
  className,
}: {
  conversationId: string;
  messages: ChatUIMessage[];
  className?: string;
}) {
  const s = useMessages(S);
  const t = useMessages(T);
  const locale = useLocale();
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState("");
  // Markdown and print wait for the conversation's title and scope, so a quick click cannot export without them.
  const [ready, setReady] = useState(false);
  const [scope, setScope] = useState<{ kbs: string[]; documents: string[] }>({ kbs: [], documents: [] });
  const [share, setShare] = useState<ShareLink | null>(null);
  const [linksVersion, setLinksVersion] = useState(0);
  const [note, setNote] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [printing, setPrinting] = useState(false);

  useEffect(() => {
    if (!open) return;
    dialog.current?.showModal();
    let live = true;
    setNote(null);
    setReady(false);
    conversationApi
      .get(conversationId)
      .then(async ({ conversation }) => {
        if (!live) return;
        setTitle(conversation.title);
        // The picked sources by title (a document deleted since, or not readable, is left out).
        const titles = conversation.documents.length
          ? new Map((await documentApi.list()).documents.map((d) => [d.id, d.title]))
          : new Map<string, string>();
        const documents = conversation.documents.flatMap((id) => titles.get(id) ?? []);
        if (live) setScope({ kbs: conversation.kbs, documents });
      })
      .catch(() => null)
      .finally(() => live && setReady(true));
    apiFetch<{ share: ShareLink | null }>(sharePath(conversationId))
      .then((r) => live && setShare(r.share))
      .catch(() => live && setShare(null));
    return () => {
      live = false;
    };
  }, [open, conversationId]);

  // The print view is in the page only while printing (globals.css hides the rest of the page in print).
  useEffect(() => {
    if (!printing) return;
    const id = requestAnimationFrame(() => {
      window.print();
      setPrinting(false);
    });
    return () => cancelAnimationFrame(id);
  }, [printing]);

  /** A click handler that runs `fn` and says so when it fails. */
  const action = (fn: () => Promise<void>) => async () => {
    try {
      await fn();
    } catch {
      setNote(s.failed);
    }
  };
  const createLink = action(async () => {
    setShare((await apiFetch<{ share: ShareLink }>(sharePath(conversationId), { method: "POST" })).share);
    setCopied(false);
    setNote(null);
    setLinksVersion((v) => v + 1);
  });
  const updateLink = action(async () => {
    setShare((await apiFetch<{ share: ShareLink }>(sharePath(conversationId), { method: "PUT" })).share);
    setNote(s.updated);
    setLinksVersion((v) => v + 1);
  });
  const revokeLink = action(async () => {
    await apiFetch(sharePath(conversationId), { method: "DELETE" });
    setShare(null);
    setNote(s.revoked);
    setLinksVersion((v) => v + 1);
  });
  const date = (iso: string) => new Date(iso).toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" });
  const markdown = () =>
    conversationMarkdown(title, messages, { ...t, ...s }, window.location.origin, {
      ...scope,
      date: new Date().toLocaleDateString(locale, { dateStyle: "long" }),
    });

  return (
    <>
      <button type="button" data-testid="export-conversation" onClick={() => setOpen(true)} className={className}>
        {s.export}
      </button>
      {open && (
        <dialog
          ref={dialog}
          data-testid="export-dialog"
          aria-labelledby="export-dialog-title"
          onClose={() => setOpen(false)}
          className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl bg-white p-5 text-zinc-900 shadow-xl backdrop:bg-black/40 print:hidden dark:bg-zinc-900 dark:text-zinc-100"
        >
          <h2 id="export-dialog-title" className="text-base font-semibold">
            {s.exportTitle}
          </h2>
          <div className="mt-3 flex flex-wrap gap-2">
            <DialogButton testid="export-markdown" disabled={!ready} onClick={() => downloadMarkdown(exportFileName(title), markdown())}>
              {s.downloadMarkdown}
            </DialogButton>
            <DialogButton
              testid="export-print"
              disabled={!ready}
              onClick={() => {
                dialog.current?.close();
                setPrinting(true);
              }}
            >
              {s.print}
            </DialogButton>
          </div>
          <h3 className="mt-5 text-sm font-semibold">{s.shareHeading}</h3>
          <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{s.shareHint}</p>
          {share ? (
            <div className="mt-2 flex flex-col gap-2">
              <label className="text-xs text-zinc-700 dark:text-zinc-300">
                {s.shareLink}
                <input
                  data-testid="share-link"
                  readOnly
                  value={shareUrl(share.token)}
                  onFocus={(e) => e.currentTarget.select()}
                  className="mt-1 block w-full rounded border border-zinc-400 bg-white px-2 py-1 font-mono text-xs dark:border-zinc-600 dark:bg-zinc-950"
                />
              </label>
              <p data-testid="share-state" data-stale={share.stale || undefined} className="text-xs text-zinc-700 dark:text-zinc-300">
                {fill(share.stale ? s.linkStale : s.linkCurrent, { date: date(share.updatedAt) })}
              </p>
              <div className="flex flex-wrap gap-2">
                {share.stale && (
                  <DialogButton testid="share-update" onClick={updateLink}>
                    {s.updateLink}
                  </DialogButton>
                )}
                <DialogButton
                  testid="share-copy"
                  onClick={action(async () => {
                    await copyText(shareUrl(share.token));
                    setCopied(true);
                  })}
                >
                  {copied ? s.copied : s.copyLink}
                </DialogButton>
                <DialogButton testid="share-revoke" className="text-red-800 dark:text-red-300" onClick={revokeLink}>
                  {s.revoke}
                </DialogButton>
              </div>
            </div>
          ) : (
            <DialogButton testid="share-create" className="mt-2" onClick={createLink}>
              {s.createLink}
            </DialogButton>
          )}
          {note && (
            <p role="status" data-testid="export-note" className="mt-2 text-sm">
              {note}
            </p>
          )}
          <ShareLinks
            version={linksVersion}
            onRevoked={(id) => {
              if (id === conversationId) setShare(null);
            }}
          />
          <div className="mt-5 flex justify-end">
            <DialogButton testid="export-close" onClick={() => dialog.current?.close()}>
              {s.close}
            </DialogButton>
          </div>
        </dialog>
      )}
      {(open || printing) &&
        createPortal(
          <div data-testid="print-view" className="print-root hidden print:block">
            <ConversationDocument title={title} messages={messages} />
          </div>,
          document.body,
        )}
    </>
  );
}
