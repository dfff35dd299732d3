"use client";

import type { Citation } from "@/lib/agent/protocol";
import { formatScore, headingPath } from "./ChunkCard";
import { fill, type ChatText } from "./strings";

function SourceItem({ c, t }: { c: Citation; t: ChatText }) {
  const path = headingPath(c);
  return (
    <li data-testid="source-item" data-chunk-id={c.chunk_id} data-n={c.n}>
      <details className="group rounded-lg border border-zinc-200 bg-white open:shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        <summary className="flex cursor-pointer list-none items-baseline gap-2 px-3 py-2 text-sm">
          <span className="inline-flex h-5 min-w-5 shrink-0 items-center justify-center rounded-full bg-blue-100 px-1.5 text-[11px] font-semibold text-blue-800 dark:bg-blue-900/70 dark:text-blue-100">
            {c.n}
          </span>
          <span className="min-w-0 flex-1">
            <span className="font-medium">{c.document.title}</span>
            {(path || c.page) && (
              <span className="text-zinc-500 dark:text-zinc-400">
                {" "}
                · {[path, c.page ? fill(t.page, { page: c.page }) : ""].filter(Boolean).join(" · ")}
              </span>
            )}
          </span>
          <span className="shrink-0 text-[11px] text-zinc-400">{formatScore(c.score)}</span>
        </summary>
        <p className="border-t border-zinc-100 px-3 py-2 text-sm whitespace-pre-wrap text-zinc-700 dark:border-zinc-800 dark:text-zinc-300">
          {c.text}
        </p>
      </details>
    </li>
  );
}

/** Sources of one answer: the chunks it cites first (in citation order), the rest collapsed. */
export function SourcesPanel({ cited, others, t }: { cited: Citation[]; others: Citation[]; t: ChatText }) {
  if (cited.length === 0 && others.length === 0) return null;
  return (
    <section data-testid="sources" className="mt-3 space-y-2">
      {cited.length > 0 && (
        <>
          <h3 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{t.sources}</h3>
          <ol className="space-y-1.5">
            {cited.map((c) => (
              <SourceItem key={c.chunk_id} c={c} t={t} />
            ))}
          </ol>
        </>
      )}
      {others.length > 0 && (
        <details data-testid="also-retrieved" className="text-sm">
          <summary className="cursor-pointer text-xs text-zinc-500 select-none hover:text-zinc-700 dark:text-zinc-400 dark:hover:text-zinc-200">
            {fill(t.alsoRetrieved, { n: others.length })}
          </summary>
          <ol className="mt-1.5 space-y-1.5">
            {others.map((c) => (
              <SourceItem key={c.chunk_id} c={c} t={t} />
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}
