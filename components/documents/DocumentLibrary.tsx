"use client";

import Link from "next/link";
import { useCallback, useEffect, useMemo, useState } from "react";
import { AccountMenu } from "@/components/account/AccountMenu";
import { useAccess } from "@/components/account/viewer";
import { apiErrorText } from "@/components/api";
import { ConfirmButton } from "@/components/ConfirmButton";
import { fill } from "@/components/fill";
import { useLocale, useMessages } from "@/components/i18n";
import { KbsLink } from "@/components/kbs/KbsLink";
import { UploadKbPicker } from "@/components/kbs/UploadKbScope";
import { compactSelectClass, ErrorLine, navLinkClass, Select, TextBox, ValueOptions } from "@/components/ui";
import { formatLabel } from "@/lib/parse/formats";
import { followsSource, shownFileName } from "@/lib/sources/display";
import { documentApi, type LibraryDocument } from "./api";
import { AddDocumentsButton } from "./DocumentDropZone";
import { type DocumentMessages, formatBytes, T } from "./messages";
import { useDocumentUploads } from "./UploadContext";
import { statusLabel } from "./UploadTray";

type Load = { state: "loading" } | { state: "error"; message: string } | { state: "ready"; documents: LibraryDocument[] };

const DELETE_CLASSES = {
  trigger: "text-red-700 hover:underline disabled:opacity-50 dark:text-red-400",
  prompt: "flex gap-1",
  yes: "font-medium text-red-700 hover:underline disabled:opacity-50 dark:text-red-400",
  no: "hover:underline",
};

function DocumentRow({ doc, t, locale, onDeleted }: { doc: LibraryDocument; t: DocumentMessages; locale: string; onDeleted: () => void }) {
  const [busy, setBusy] = useState<"delete" | "reindex" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chunkCount, setChunkCount] = useState(doc.chunkCount);
  // A source's document is changed through its source: by hand, the next sync would undo it.
  const writable = useAccess().canWrite(doc.kb) && !followsSource(doc);

  const remove = async () => {
    setBusy("delete");
    setError(null);
    try {
      await documentApi.remove(doc.id);
      onDeleted();
    } catch (err) {
      setError(apiErrorText(err, t.networkError, t.loadFailed));
    } finally {
      setBusy(null);
    }
  };
  const reindex = async () => {
    setBusy("reindex");
    setError(null);
    try {
      setChunkCount((await documentApi.reindex(doc.id)).document.chunkCount);
    } catch (err) {
      setError(apiErrorText(err, t.networkError, t.loadFailed));
    } finally {
      setBusy(null);
    }
  };

  return (
    <tr data-testid="document-row" data-id={doc.id} data-source={doc.source} className="align-top">
      <td className="px-3 py-2">
        <Link href={`/documents/${encodeURIComponent(doc.id)}`} className="font-medium text-sky-700 hover:underline dark:text-sky-300">
          {doc.title}
        </Link>
        <div className="text-xs text-zinc-600 dark:text-zinc-400">
          {shownFileName(doc)}
          {doc.kb ? ` · ${doc.kb}` : ""}
          {followsSource(doc) && (
            <span data-testid="from-source" className="ml-1 rounded bg-zinc-100 px-1 py-0.5 dark:bg-zinc-800">
              {fill(t.fromSource, { name: doc.sourceName ?? t.aSource })}
            </span>
          )}
        </div>
        {error && <ErrorLine className="mt-1 text-xs">{error}</ErrorLine>}
      </td>
      <td className="hidden md:table-cell px-3 py-2 text-sm">{formatLabel(doc.mimeType)}</td>
      <td className="hidden md:table-cell whitespace-nowrap px-3 py-2 text-sm">{formatBytes(doc.size)}</td>
      <td className="hidden px-3 py-2 text-right text-sm tabular-nums md:table-cell" data-testid="document-chunks">
        {chunkCount}
      </td>
      <td className="hidden md:table-cell whitespace-nowrap px-3 py-2 text-sm">{new Date(doc.updatedAt).toLocaleString(locale)}</td>
      <td className="hidden px-3 py-2 text-sm md:table-cell">
        <span className="rounded bg-emerald-100 px-1.5 py-0.5 text-xs text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-300">
          {busy === "reindex" ? t.reindexing : t.statusIndexed}
        </span>
      </td>
      <td className="px-3 py-2 text-sm">
        <div className="flex flex-wrap gap-x-3 gap-y-1">
          <Link href={`/documents/${encodeURIComponent(doc.id)}`} className="text-sky-700 hover:underline dark:text-sky-300">
            {t.view}
          </Link>
          {writable && (
            <>
              <button
                type="button"
                disabled={busy !== null}
                onClick={reindex}
                className="text-zinc-700 hover:underline disabled:opacity-50 dark:text-zinc-300"
              >
                {t.reindex}
              </button>
              <ConfirmButton
                testid="document-delete"
                label={t.delete}
                question={<span>{t.confirmDelete}</span>}
                yes={t.yes}
                no={t.no}
                onConfirm={remove}
                disabled={busy !== null}
                classes={DELETE_CLASSES}
              />
            </>
          )}
        </div>
      </td>
    </tr>
  );
}

/** A table cell shown from the md breakpoint on. */
const WIDE_CELL = "hidden px-3 py-2 md:table-cell";

/** The library: every stored document, in-flight uploads on top, search by name, delete, re-index. */
export function DocumentLibrary() {
  const t = useMessages(T);
  const locale = useLocale();
  const { items, version } = useDocumentUploads();
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [query, setQuery] = useState("");
  const [kb, setKb] = useState("");

  const refresh = useCallback(async () => {
    try {
      setLoad({ state: "ready", documents: (await documentApi.list()).documents });
    } catch (err) {
      // Unreachable server or unreadable reply: "could not load" (the network text of this page is about uploads).
      setLoad({ state: "error", message: apiErrorText(err, t.loadFailed, t.loadFailed) });
    }
  }, [t.loadFailed]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when an upload finishes (version)
  useEffect(() => {
    void refresh();
  }, [refresh, version]);

  const documents = load.state === "ready" ? load.documents : [];
  const kbs = useMemo(() => [...new Set(documents.map((d) => d.kb))].sort(), [documents]);
  const needle = query.trim().toLowerCase();
  const shown = documents.filter(
    (d) => (!kb || d.kb === kb) && (!needle || d.title.toLowerCase().includes(needle) || d.source.toLowerCase().includes(needle)),
  );
  const pending = items.filter((i) => i.state !== "done" && i.state !== "cancelled");
  // Label and classes of each column: all but the title and the actions show from the md breakpoint on.
  const columns = [
    [t.colTitle, "px-3 py-2"],
    [t.colType, WIDE_CELL],
    [t.colSize, WIDE_CELL],
    [t.colChunks, `${WIDE_CELL} text-right`],
    [t.colDate, WIDE_CELL],
    [t.colStatus, WIDE_CELL],
    [t.colActions, "px-3 py-2"],
  ];

  return (
    <main id="main" className="mx-auto max-w-6xl p-4 sm:p-8">
      <header className="mb-6 flex flex-wrap items-center gap-3">
        <Link href="/" className={navLinkClass}>
          ← {t.backToChat}
        </Link>
        <KbsLink />
        <AccountMenu />
        <h1 className="flex-1 text-xl font-semibold whitespace-nowrap sm:text-2xl">{t.libraryTitle}</h1>
        <UploadKbPicker />
        <AddDocumentsButton />
      </header>
      <p data-testid="drop-anywhere" className="-mt-3 mb-4 text-sm text-zinc-600 dark:text-zinc-400">
        {t.dropAnywhere}
      </p>

      <div className="mb-4 flex flex-wrap gap-3">
        <TextBox
          type="search"
          label={t.searchByName}
          testid="documents-search"
          value={query}
          onChange={setQuery}
          placeholder={t.searchByName}
          className="w-full max-w-sm rounded-md border border-zinc-300 bg-transparent px-3 py-1.5 text-sm dark:border-zinc-700"
        />
        {kbs.length > 1 && (
          <Select label={t.filterByKb} testid="documents-kb" value={kb} onChange={setKb} className={compactSelectClass}>
            <option value="">{t.allKbs}</option>
            <ValueOptions values={kbs} />
          </Select>
        )}
      </div>

      {load.state === "error" && <ErrorLine className="">{load.message}</ErrorLine>}

      <div className="rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table data-testid="documents-table" className="w-full text-left">
          <thead className="bg-zinc-50 text-xs uppercase tracking-wide text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
            <tr>
              {columns.map(([label, className]) => (
                <th key={label} scope="col" className={className}>
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {pending.map((item) => (
              <tr key={item.id} data-testid="pending-row" className="text-sm text-zinc-600 dark:text-zinc-400">
                <td className="max-w-48 truncate px-3 py-2 sm:max-w-xs">{item.name}</td>
                <td className={WIDE_CELL} />
                <td className={WIDE_CELL}>{formatBytes(item.size)}</td>
                <td className={WIDE_CELL} />
                <td className={WIDE_CELL} />
                <td className={`px-3 py-2 ${item.state === "failed" ? "text-red-600 dark:text-red-400" : ""}`} colSpan={2}>
                  {/* A long error wraps inside a fixed width instead of widening the table. */}
                  <div className="line-clamp-2 w-48 break-words sm:w-64" title={statusLabel(item, t)}>
                    {statusLabel(item, t)}
                  </div>
                </td>
              </tr>
            ))}
            {shown.map((doc) => (
              <DocumentRow key={`${doc.id}:${doc.updatedAt}`} doc={doc} t={t} locale={locale} onDeleted={refresh} />
            ))}
          </tbody>
        </table>
        {load.state === "loading" && <p className="p-4 text-sm text-zinc-600 dark:text-zinc-400">{t.loading}</p>}
        {load.state === "ready" && shown.length === 0 && pending.length === 0 && (
          <p className="p-4 text-sm text-zinc-600 dark:text-zinc-400">{documents.length ? t.noMatch : t.empty}</p>
        )}
      </div>
    </main>
  );
}
