"use client";

import Link from "next/link";
import { Fragment, useEffect, useMemo, useRef, useState } from "react";
import Markdown, { type Components } from "react-markdown";
import { ApiError } from "@/components/api";
import { fill } from "@/components/chat/strings";
import { useLocale, useMessages } from "@/components/i18n";
import { supportingSpan } from "@/lib/agent/extractive";
import { LEADING_HEADINGS } from "@/lib/agent/highlight";
import { formatLabel } from "@/lib/parse/formats";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import { documentApi } from "./api";
import { type Block, chunkStarts, documentBlocks, overlaps } from "./blocks";
import { type DocumentMessages, formatBytes, T } from "./messages";

type Load =
  | { state: "loading" }
  | { state: "error"; message: string }
  | {
      state: "ready";
      document: DocumentRecord;
      chunks: ChunkRecord[];
      text: string | null;
      pages: { page: number; start: number }[] | null;
    };

// The page's h1 is the document title, so the document's own headings start at h2.
const md: Components = {
  h1: ({ children }) => <h2 className="mt-6 mb-2 text-xl font-semibold">{children}</h2>,
  h2: ({ children }) => <h2 className="mt-6 mb-2 text-xl font-semibold">{children}</h2>,
  h3: ({ children }) => <h3 className="mt-4 mb-1 text-lg font-semibold">{children}</h3>,
  h4: ({ children }) => <h4 className="mt-3 mb-1 font-semibold">{children}</h4>,
  h5: ({ children }) => <h4 className="mt-3 mb-1 font-semibold">{children}</h4>,
  h6: ({ children }) => <h4 className="mt-3 mb-1 font-semibold">{children}</h4>,
  p: ({ children }) => <p className="my-2 leading-relaxed">{children}</p>,
  ul: ({ children }) => <ul className="my-2 list-disc space-y-1 pl-6">{children}</ul>,
  ol: ({ children }) => <ol className="my-2 list-decimal space-y-1 pl-6">{children}</ol>,
  a: ({ href, children }) => (
    <a href={href} className="text-blue-700 underline dark:text-blue-300" rel="noreferrer noopener">
      {children}
    </a>
  ),
  pre: ({ children }) => <pre className="my-2 overflow-x-auto rounded-lg bg-zinc-100 p-3 text-[13px] dark:bg-zinc-800">{children}</pre>,
  code: ({ children }) => <code className="rounded bg-zinc-100 px-1 text-[13px] dark:bg-zinc-800">{children}</code>,
  blockquote: ({ children }) => <blockquote className="my-2 border-l-2 border-zinc-300 pl-3 dark:border-zinc-600">{children}</blockquote>,
};

const HIGHLIGHT = "bg-amber-100 ring-2 ring-amber-400 dark:bg-amber-900/40 dark:ring-amber-600";
/** The block holding the very sentence the answer relied on. */
const PASSAGE = "bg-amber-200 ring-2 ring-amber-500 dark:bg-amber-800/60 dark:ring-amber-400";

/** Where in the document text the sentence backing `claim` lies, inside the cited chunk (as the citation card finds it). */
function passageRange(chunk: ChunkRecord, claim?: string): { start: number; end: number } | null {
  if (!claim) return null;
  const skip = chunk.text.match(LEADING_HEADINGS)?.[0].length ?? 0;
  const span = supportingSpan(chunk.text.slice(skip), claim);
  return span ? { start: chunk.start + skip + span.start, end: chunk.start + skip + span.end } : null;
}

function ChunkMarker({ chunks, t }: { chunks: ChunkRecord[]; t: DocumentMessages }) {
  return (
    <div
      data-testid="chunk-marker"
      className="mt-3 mb-1 flex flex-wrap gap-2 border-t border-dashed border-zinc-300 pt-1 text-xs text-zinc-600 dark:border-zinc-700 dark:text-zinc-400"
    >
      {chunks.map((c) => (
        <span key={c.id} id={`chunk-${c.id}`}>
          {fill(t.chunkLabel, { n: c.index + 1 })}
          {c.heading ? ` · ${c.heading}` : ""}
        </span>
      ))}
    </div>
  );
}

/** Consecutive CSV records as one table. */
function RecordTable({
  rows,
  render,
}: {
  rows: { block: Block; i: number }[];
  render: (i: number) => { highlighted: boolean; passage: boolean; marker: React.ReactNode };
}) {
  const columns = [...new Set(rows.flatMap((r) => r.block.fields!.map(([h]) => h)))];
  return (
    <div className="my-3 overflow-x-auto">
      <table data-testid="csv-table" className="min-w-full border-collapse text-sm">
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col" className="border-b border-zinc-300 px-2 py-1 text-left font-semibold dark:border-zinc-700">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ block, i }) => {
            const { highlighted, passage, marker } = render(i);
            const values = new Map(block.fields);
            return (
              <Fragment key={block.start}>
                {marker && (
                  <tr>
                    <td colSpan={columns.length}>{marker}</td>
                  </tr>
                )}
                <tr
                  data-testid="csv-row"
                  data-highlighted={highlighted || undefined}
                  data-passage={passage || undefined}
                  data-start={block.start}
                  className={passage ? PASSAGE : highlighted ? HIGHLIGHT : ""}
                >
                  {columns.map((c) => (
                    <td key={c} className="border-b border-zinc-100 px-2 py-1 align-top dark:border-zinc-800">
                      {values.get(c) ?? ""}
                    </td>
                  ))}
                </tr>
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function DocumentBody({
  document: doc,
  text,
  pages,
  chunks,
  cited,
  passage,
  showChunks,
  t,
}: {
  passage: { start: number; end: number } | null;
  document: DocumentRecord;
  text: string;
  pages: { page: number; start: number }[] | null;
  chunks: ChunkRecord[];
  cited: ChunkRecord | null;
  showChunks: boolean;
  t: DocumentMessages;
}) {
  const blocks = useMemo(() => {
    const all = documentBlocks(text, doc.mimeType, pages);
    // The document's own title heading repeats the page's h1.
    const first = all[0];
    if (first && /^#\s/.test(first.text) && first.text.slice(2).trim() === doc.title.trim()) all.shift();
    // The CSV parser's "## Rows a–b" group headings are not part of the file.
    return doc.mimeType === "text/csv" ? all.filter((b) => !/^##\s+Rows\s/.test(b.text)) : all;
  }, [text, doc.mimeType, doc.title, pages]);
  const starts = useMemo(() => (showChunks ? chunkStarts(blocks, chunks) : new Map<number, ChunkRecord[]>()), [showChunks, blocks, chunks]);
  const render = (i: number) => ({
    highlighted: !!cited && overlaps(blocks[i], cited),
    passage: !!passage && overlaps(blocks[i], passage),
    marker: starts.has(i) ? <ChunkMarker chunks={starts.get(i)!} t={t} /> : null,
  });

  const out: React.ReactNode[] = [];
  let page: number | undefined;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.page !== undefined && b.page !== page) {
      page = b.page;
      out.push(
        <h2
          key={`page-${page}`}
          data-testid="page-heading"
          data-page={page}
          className="mt-8 mb-2 border-b border-zinc-200 pb-1 text-sm font-semibold text-zinc-600 dark:border-zinc-800 dark:text-zinc-400"
        >
          {fill(t.pageHeading, { page })}
        </h2>,
      );
    }
    if (b.kind === "record") {
      const rows: { block: Block; i: number }[] = [];
      while (i < blocks.length && blocks[i].kind === "record") rows.push({ block: blocks[i], i: i++ });
      i--;
      out.push(<RecordTable key={b.start} rows={rows} render={render} />);
      continue;
    }
    const { highlighted, passage: isPassage, marker } = render(i);
    out.push(
      <Fragment key={b.start}>
        {marker}
        <div
          data-testid="doc-block"
          data-highlighted={highlighted || undefined}
          data-passage={isPassage || undefined}
          data-start={b.start}
          data-page={b.page}
          className={`-mx-2 rounded px-2 ${isPassage ? PASSAGE : highlighted ? HIGHLIGHT : ""}`}
        >
          {b.kind === "markdown" ? (
            <Markdown components={md}>{b.text}</Markdown>
          ) : (
            <p className="my-2 leading-relaxed whitespace-pre-wrap">{b.text}</p>
          )}
        </div>
      </Fragment>,
    );
  }
  return <div data-testid="document-body">{out}</div>;
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
          setLoad({ state: "ready", document: body.document, chunks: body.chunks, text: body.text ?? null, pages: body.pages ?? null });
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
            <dd className="break-all">{load.document.source}</dd>
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
              <ol className="space-y-3">
                {load.chunks.map((c) => (
                  <li
                    key={c.id}
                    data-testid="chunk"
                    data-highlighted={c.id === chunkId || undefined}
                    className={`rounded-md border border-zinc-200 p-3 dark:border-zinc-800 ${c.id === chunkId ? HIGHLIGHT : ""}`}
                  >
                    <p className="text-xs text-zinc-600 dark:text-zinc-400">
                      {fill(t.chunkLabel, { n: c.index + 1 })}
                      {c.heading ? ` · ${c.heading}` : ""}
                      {c.page != null ? ` · ${fill(t.pageHeading, { page: c.page })}` : ""}
                    </p>
                    <p className="text-sm whitespace-pre-wrap">{c.text}</p>
                  </li>
                ))}
              </ol>
            )}
          </section>
        </>
      )}
    </Root>
  );
}
