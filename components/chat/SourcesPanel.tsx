"use client";

import type { Citation } from "@/lib/agent/protocol";
import { headingPath } from "./ChunkCard";
import { SourceLink } from "./source-viewer";
import { relevance, snippet } from "./sources";
import { type ChatText, fill } from "./strings";

function SourceItem({ c, best, support, t }: { c: Citation; best: number; support?: number; t: ChatText }) {
  const path = headingPath(c);
  const rel = relevance(c.score, best, support);
  return (
    <li
      data-testid="source-item"
      data-chunk-id={c.chunk_id}
      data-n={c.n}
      className="rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div className="flex items-baseline gap-2">
        <span
          aria-hidden="true"
          className="inline-flex h-5 min-w-5 shrink-0 items-center justify-center rounded-full bg-blue-100 px-1.5 text-[11px] font-semibold text-blue-900 dark:bg-blue-900/70 dark:text-blue-100"
        >
          {c.n}
        </span>
        <div className="min-w-0 flex-1">
          <SourceLink
            citation={c}
            data-testid="source-link"
            className="font-medium text-blue-800 hover:underline dark:text-blue-300"
            aria-label={`[${c.n}] ${c.document.title}${path ? ` › ${path}` : ""} — ${t.openInDocument}`}
          >
            {c.document.title}
          </SourceLink>
          {(path || c.page) && (
            <span data-testid="source-path" className="text-zinc-600 dark:text-zinc-400">
              {" "}
              · {[path, c.page ? fill(t.page, { page: c.page }) : ""].filter(Boolean).join(" · ")}
            </span>
          )}
          <p data-testid="source-snippet" className="truncate text-zinc-600 dark:text-zinc-400">
            {snippet(c)}
          </p>
        </div>
        <span data-testid="source-relevance" className="shrink-0 text-[11px] text-zinc-600 dark:text-zinc-400">
          {t[`rel_${rel}`]}
        </span>
      </div>
    </li>
  );
}

/**
 * Sources of one answer: the chunks it cites (1..k, in citation order), the rest collapsed. `support`: the
 * citation check's support of each cited chunk (by chunk id), which caps its relevance word.
 */
export function SourcesPanel({
  cited,
  others,
  support,
  t,
}: {
  cited: Citation[];
  others: Citation[];
  support?: Map<string, number>;
  t: ChatText;
}) {
  if (cited.length === 0 && others.length === 0) return null;
  const best = Math.max(...[...cited, ...others].map((c) => c.score).filter(Number.isFinite), 0);
  return (
    <section data-testid="sources" className="mt-3 space-y-2">
      {cited.length > 0 && (
        <>
          <h3 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">{t.sources}</h3>
          <ol className="space-y-1.5">
            {cited.map((c) => (
              <SourceItem key={c.chunk_id} c={c} best={best} support={support?.get(c.chunk_id)} t={t} />
            ))}
          </ol>
        </>
      )}
      {others.length > 0 && (
        <details data-testid="also-retrieved" className="text-sm">
          <summary className="cursor-pointer text-xs text-zinc-600 select-none hover:text-zinc-800 dark:text-zinc-400 dark:hover:text-zinc-200">
            {fill(t.alsoRetrieved, { n: others.length })}
          </summary>
          <ol className="mt-1.5 space-y-1.5">
            {others.map((c) => (
              <SourceItem key={c.chunk_id} c={c} best={best} t={t} />
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}
