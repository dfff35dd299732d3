"use client";

import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { ApiError } from "@/components/api";
import { fill } from "@/components/chat/strings";
import { webHost } from "@/components/ImageLink";
import { useLocale, useMessages } from "@/components/i18n";
import { supportingSpan } from "@/lib/agent/extractive";
import { LEADING_HEADINGS } from "@/lib/agent/highlight";
import { formatLabel } from "@/lib/parse/formats";
import { shownFileName } from "@/lib/sources/display";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import { documentApi } from "./api";
import { ChunkList, DocumentBody } from "./DocumentBody";
import { formatBytes, T } from "./messages";
import { DocumentOverview } from "./Overview";

type Load =
  | { state: "loading" }
  | { state: "error"; message: string }
  | {
      state: "ready";
      document: DocumentRecord;
      chunks: ChunkRecord[];
      text: string | null;
      pages: { page: number; start: number }[] | null;
      original: string | null;
    };

/** Where in the document text the sentence backing `claim` lies, inside the cited chunk (as the citation card finds it). */
function passageRange(chunk: ChunkRecord, claim?: string): { start: number; end: number } | null {
  if (!claim) return null;
  const skip = chunk.text.match(LEADING_HEADINGS)?.[0].length ?? 0;
  const span = supportingSpan(chunk.text.slice(skip), claim);
  return span ? { start: chunk.start + skip + span.start, end: chunk.start + skip + span.end } : null;
}

/**
 * One document as a reader sees it, with the chunk cited in the chat (`?chunk=<id>`) highlighted and scrolled to.
 * `embedded`: inside the chat's side panel (no page navigation); `from`: where "Back to chat" returns (the
 * conversation and turn the citation was opened from). Its title and the cited-passage note stay in view.
 */
export function DocumentView({
  id,
  chunkId,
  claim,
  from,
  embedded = false,
}: {
  id: string;
  chunkId?: string;
  claim?: string;
  from?: string;
  embedded?: boolean;
}) {
  const t = useMessages(T);
  const locale = useLocale();
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [showChunks, setShowChunks] = useState(false);
  const scrolled = useRef(false);

  useEffect(() => {
    let live = true;
    documentApi.get(id).then(
      (body) => {
        if (live)
          setLoad({
            state: "ready",
            document: body.document,
            chunks: body.chunks,
            text: body.text ?? null,
            pages: body.pages ?? null,
            original: body.sourceLink?.url || null,
          });
      },
      (err: unknown) => {
        if (live) setLoad({ state: "error", message: err instanceof ApiError && err.status === 404 ? t.notFound : t.loadFailed });
      },
    );
    return () => {
      live = false;
    };
  }, [id, t.loadFailed, t.notFound]);

  const cited = load.state === "ready" && chunkId ? (load.chunks.find((c) => c.id === chunkId) ?? null) : null;
  const passage = useMemo(() => (cited ? passageRange(cited, claim) : null), [cited, claim]);
  const jump = () => {
    const el =
      document.querySelector<HTMLElement>('[data-passage="true"]') ?? document.querySelector<HTMLElement>('[data-highlighted="true"]');
    if (!el) return;
    el.scrollIntoView({ block: "center" });
    el.tabIndex = -1;
    el.focus({ preventScroll: true });
  };
  useEffect(() => {
    if (load.state !== "ready" || !cited || scrolled.current) return;
    scrolled.current = true;
    jump();
  });

  const Root = embedded ? "article" : "main";
  return (
    <Root id={embedded ? undefined : "main"} className={embedded ? "px-4 pb-6" : "mx-auto max-w-4xl px-4 pb-8 sm:px-8"}>
      <div
        data-testid="document-header"
        className={`sticky top-0 z-10 -mx-4 bg-white/95 px-4 pb-2 backdrop-blur dark:bg-zinc-950/95 ${embedded ? "pt-3" : "pt-4 sm:-mx-8 sm:px-8 sm:pt-8"}`}
      >
        {!embedded && (
          <nav aria-label={t.backToLibrary} className="mb-3 flex gap-4 text-sm">
            <Link href="/documents" className="text-sky-800 hover:underline dark:text-sky-300">
              ← {t.backToLibrary}
            </Link>
            <Link href={from ?? "/"} data-testid="back-to-chat" className="text-sky-800 hover:underline dark:text-sky-300">
              {t.backToChat}
            </Link>
          </nav>
        )}
        {load.state === "ready" && (
          <h1 className={`${embedded ? "text-lg" : "text-2xl"} font-semibold break-words`} data-testid="document-title">
            {load.document.title}
          </h1>
        )}
        {cited && (
          <p
            data-testid="cited-note"
            className="mt-2 flex flex-wrap items-center gap-2 rounded-md bg-amber-50 px-2 py-1 text-sm text-amber-950 dark:bg-amber-950/50 dark:text-amber-100"
          >
            <span>
              {t.citedPassage}
              {cited.page != null ? ` (${fill(t.pageHeading, { page: cited.page })})` : ""}
            </span>
            <button type="button" onClick={jump} className="underline">
              {t.jumpToPassage}
            </button>
          </p>
        )}
      </div>
      {load.state === "loading" && <p className="text-zinc-600 dark:text-zinc-400">{t.loading}</p>}
      {load.state === "error" && (
        <p role="alert" className="text-red-700 dark:text-red-400">
          {load.message}
        </p>
      )}
      {load.state === "ready" && (
        <>
          <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm text-zinc-600 dark:text-zinc-400">
            <dt>{t.source}</dt>
            <dd className="break-all">{shownFileName(load.document)}</dd>
            {load.original && (
              <>
                <dt>{t.original}</dt>
                <dd className="break-all" data-testid="document-original">
                  {webHost(load.original) ? (
                    <a href={load.original} target="_blank" rel="noopener noreferrer" className="text-sky-800 underline dark:text-sky-300">
                      {load.original}
                    </a>
                  ) : (
                    load.original
                  )}
                </dd>
              </>
            )}
            <dt>{t.colType}</dt>
            <dd>
              {formatLabel(load.document.mimeType)} · {formatBytes(load.document.size)} · {load.chunks.length}{" "}
              {load.chunks.length === 1 ? t.chunk : t.chunks}
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
          {!embedded && <DocumentOverview id={id} />}
          <div className="mt-4 flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
            <label className="ml-auto flex items-center gap-2 text-zinc-700 dark:text-zinc-300">
              <input type="checkbox" data-testid="show-chunks" checked={showChunks} onChange={(e) => setShowChunks(e.target.checked)} />
              {t.showChunks}
            </label>
          </div>
          <section aria-label={t.documentText} className="mt-4 break-words">
            {load.text !== null ? (
              <DocumentBody
                document={load.document}
                text={load.text}
                pages={load.pages}
                chunks={load.chunks}
                cited={cited}
                passage={passage}
                showChunks={showChunks}
                t={t}
              />
            ) : (
              <ChunkList chunks={load.chunks} chunkId={chunkId} t={t} />
            )}
          </section>
        </>
      )}
    </Root>
  );
}
