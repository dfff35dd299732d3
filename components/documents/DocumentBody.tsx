/** How a document's text is drawn: its blocks (Markdown, plain text, CSV records as tables), chunk markers and highlights. */
import { Fragment, useMemo } from "react";
import Markdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { fill } from "@/components/chat/strings";
import { ImageLink } from "@/components/ImageLink";
import { tableComponents } from "@/components/markdown-tables";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import { type Block, chunkStarts, documentBlocks, overlaps } from "./blocks";
import type { DocumentMessages } from "./messages";

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
  img: ({ src, alt }) => <ImageLink src={src} alt={alt} />,
  // DOCX, HTML and Markdown tables are stored as GFM rows (lib/parse/markdown.ts): drawn as tables.
  ...tableComponents("doc-table"),
};
const remarkPlugins = [remarkGfm];

const HIGHLIGHT = "bg-amber-100 ring-2 ring-amber-400 dark:bg-amber-900/40 dark:ring-amber-600";
/** The block holding the very sentence the answer relied on. */
const PASSAGE = "bg-amber-200 ring-2 ring-amber-500 dark:bg-amber-800/60 dark:ring-amber-400";

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

/**
 * How a block shows whether it is in the cited chunk or the linked passage: its data attributes (the block's
 * start too), its background, and the chunk marker before it.
 */
interface BlockMarks {
  marks: { "data-highlighted"?: true; "data-passage"?: true; "data-start": number };
  tone: string;
  marker: React.ReactNode;
}

/** Consecutive CSV records as one table. */
function RecordTable({ rows, render }: { rows: { block: Block; i: number }[]; render: (i: number) => BlockMarks }) {
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
            const { marks, tone, marker } = render(i);
            const values = new Map(block.fields);
            return (
              <Fragment key={block.start}>
                {marker && (
                  <tr>
                    <td colSpan={columns.length}>{marker}</td>
                  </tr>
                )}
                <tr data-testid="csv-row" {...marks} data-row={block.row} className={tone}>
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

export function DocumentBody({
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
    // The CSV parser's "## Rows a–b" group headings are not part of the file (a sheet's are: they say which rows).
    return doc.mimeType === "text/csv" ? all.filter((b) => !/^##\s+Rows\s/.test(b.text)) : all;
  }, [text, doc.mimeType, doc.title, pages]);
  const starts = useMemo(() => (showChunks ? chunkStarts(blocks, chunks) : new Map<number, ChunkRecord[]>()), [showChunks, blocks, chunks]);
  const render = (i: number): BlockMarks => {
    const highlighted = !!cited && overlaps(blocks[i], cited);
    const isPassage = !!passage && overlaps(blocks[i], passage);
    return {
      marks: { "data-highlighted": highlighted || undefined, "data-passage": isPassage || undefined, "data-start": blocks[i].start },
      tone: isPassage ? PASSAGE : highlighted ? HIGHLIGHT : "",
      marker: starts.has(i) ? <ChunkMarker chunks={starts.get(i)!} t={t} /> : null,
    };
  };

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
    const { marks, tone, marker } = render(i);
    out.push(
      <Fragment key={b.start}>
        {marker}
        <div data-testid="doc-block" {...marks} data-page={b.page} className={`-mx-2 rounded px-2 ${tone}`}>
          {b.kind === "markdown" ? (
            <Markdown components={md} remarkPlugins={remarkPlugins}>
              {b.text}
            </Markdown>
          ) : (
            <p className="my-2 leading-relaxed whitespace-pre-wrap">{b.text}</p>
          )}
        </div>
      </Fragment>,
    );
  }
  return <div data-testid="document-body">{out}</div>;
}

/** The chunks one by one, for a document whose text is not stored; `chunkId`'s is highlighted. */
export function ChunkList({ chunks, chunkId, t }: { chunks: ChunkRecord[]; chunkId?: string; t: DocumentMessages }) {
  return (
    <ol className="space-y-3">
      {chunks.map((c) => (
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
  );
}
