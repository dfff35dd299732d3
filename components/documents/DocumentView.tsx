"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { useLocale, useMessages } from "@/components/i18n";
import { formatLabel } from "@/lib/parse/formats";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import { authHeaders } from "@/components/kbs/api";
import { formatBytes, T } from "./messages";

type Load =
  | { state: "loading" }
  | { state: "error"; message: string }
  | { state: "ready"; document: DocumentRecord; chunks: ChunkRecord[] };

/** One document's details and its chunks (heading path, page, text). */
export function DocumentView({ id }: { id: string }) {
  const t = useMessages(T);
  const locale = useLocale();
  const [load, setLoad] = useState<Load>({ state: "loading" });

  useEffect(() => {
    let live = true;
    (async () => {
      const res = await fetch(`/api/documents/${encodeURIComponent(id)}`, { cache: "no-store", headers: authHeaders() }).catch(() => null);
      if (!live) return;
      if (!res) return setLoad({ state: "error", message: t.loadFailed });
      if (res.status === 404) return setLoad({ state: "error", message: t.notFound });
      if (!res.ok) return setLoad({ state: "error", message: t.loadFailed });
      const body = (await res.json()) as { document: DocumentRecord; chunks: ChunkRecord[] };
      if (live) setLoad({ state: "ready", ...body });
    })();
    return () => {
      live = false;
    };
  }, [id, t.loadFailed, t.notFound]);

  return (
    <main className="mx-auto max-w-4xl p-4 sm:p-8">
      <nav className="mb-4 flex gap-4 text-sm">
        <Link href="/documents" className="text-sky-700 hover:underline dark:text-sky-400">
          ← {t.backToLibrary}
        </Link>
        <Link href="/" className="text-sky-700 hover:underline dark:text-sky-400">
          {t.backToChat}
        </Link>
      </nav>
      {load.state === "loading" && <p className="text-zinc-500">{t.loading}</p>}
      {load.state === "error" && (
        <p role="alert" className="text-red-600 dark:text-red-400">
          {load.message}
        </p>
      )}
      {load.state === "ready" && (
        <>
          <h1 className="text-2xl font-semibold" data-testid="document-title">
            {load.document.title}
          </h1>
          <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm text-zinc-600 dark:text-zinc-400">
            <dt>{t.source}</dt>
            <dd>{load.document.source}</dd>
            <dt>{t.colType}</dt>
            <dd>
              {formatLabel(load.document.mimeType)} · {formatBytes(load.document.size)}
            </dd>
            <dt>{t.colDate}</dt>
            <dd>{new Date(load.document.updatedAt).toLocaleString(locale)}</dd>
            {load.document.author && (
              <>
                <dt>{t.author}</dt>
                <dd>{load.document.author}</dd>
              </>
            )}
            {load.document.tags.length > 0 && (
              <>
                <dt>{t.tags}</dt>
                <dd>{load.document.tags.join(", ")}</dd>
              </>
            )}
          </dl>
          <h2 className="mb-3 mt-8 text-lg font-semibold">
            {t.documentChunks} ({load.chunks.length})
          </h2>
          <ol className="space-y-3">
            {load.chunks.map((c) => (
              <li key={c.id} data-testid="chunk" className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
                <div className="mb-1 flex flex-wrap gap-x-3 text-xs text-zinc-500">
                  <span>#{c.index + 1}</span>
                  {c.heading && <span data-testid="chunk-heading">{c.heading}</span>}
                  {c.page !== null && (
                    <span data-testid="chunk-page">
                      {locale === "zh" ? `${t.page} ${c.page} 页` : `${t.page} ${c.page}`}
                    </span>
                  )}
                </div>
                <p className="whitespace-pre-wrap text-sm">{c.text}</p>
              </li>
            ))}
          </ol>
        </>
      )}
    </main>
  );
}
