"use client";

import { useEffect, useState } from "react";
import { apiFetch } from "@/components/api";
import { type Messages, useLocale, useMessages } from "@/components/i18n";
import type { Overview } from "@/lib/agent/overview-contract";
import { type ChatScope, scopeQuery } from "@/lib/tools/scope";

const OVERVIEW_T = {
  en: {
    extracted: "Extracted overview (offline)",
    written: "Overview written by the model",
    sections: "Sections",
    questions: "Questions it answers",
  },
  zh: {
    extracted: "提取的概览（离线）",
    written: "由模型撰写的概览",
    sections: "章节",
    questions: "可以回答的问题",
  },
} satisfies Messages<string>;

/**
 * The overview of one document, or (no `document`) of the documents in the chat's `scope` among those the viewer
 * reads; null while loading, or when it failed.
 */
export function useOverview(document?: string, scope: ChatScope = {}): Overview | null | "failed" {
  const locale = useLocale();
  const [overview, setOverview] = useState<Overview | null | "failed">(null);
  const scoped = new URLSearchParams(scopeQuery(scope)).toString();
  useEffect(() => {
    let live = true;
    setOverview(null);
    const query = new URLSearchParams({ locale, ...(document ? { document } : Object.fromEntries(new URLSearchParams(scoped))) });
    apiFetch<Overview>(`/api/overview?${query}`).then(
      (o) => live && setOverview(o),
      () => live && setOverview("failed"),
    );
    return () => {
      live = false;
    };
  }, [document, locale, scoped]);
  return overview;
}

/** Who wrote the overview: labelled, since an extracted one is the text's own words, not a summary. */
export function OverviewLabel({ overview }: { overview: Overview }) {
  const t = useMessages(OVERVIEW_T);
  return (
    <p
      data-testid="overview-kind"
      data-kind={overview.kind}
      className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400"
    >
      {overview.kind === "model" ? t.written : t.extracted}
    </p>
  );
}

/** The document page's overview: what it covers, its sections, the questions it answers. */
export function DocumentOverview({ id }: { id: string }) {
  const t = useMessages(OVERVIEW_T);
  const overview = useOverview(id);
  if (!overview || overview === "failed") return null;
  if (!overview.covers && overview.sections.length === 0 && overview.questions.length === 0) return null;
  return (
    <section
      data-testid="document-overview"
      aria-labelledby="document-overview-label"
      className="mt-4 rounded-xl border border-zinc-200 bg-zinc-50 p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div id="document-overview-label">
        <OverviewLabel overview={overview} />
      </div>
      {overview.covers && (
        <p data-testid="overview-covers" className="mt-2 text-zinc-800 dark:text-zinc-200">
          {overview.covers}
        </p>
      )}
      {overview.sections.length > 0 && (
        <>
          <h2 className="mt-3 font-semibold">{t.sections}</h2>
          <ul data-testid="overview-sections" className="mt-1 flex flex-wrap gap-2">
            {overview.sections.map((s) => (
              <li key={s} className="rounded-full bg-white px-2 py-0.5 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">
                {s}
              </li>
            ))}
          </ul>
        </>
      )}
      {overview.questions.length > 0 && (
        <>
          <h2 className="mt-3 font-semibold">{t.questions}</h2>
          <ul className="mt-1 list-disc pl-5 text-zinc-800 dark:text-zinc-200">
            {overview.questions.map((q) => (
              <li key={q}>
                {/* A full page load: the chat asks it on arrival (also from the side panel beside a chat). */}
                <a
                  href={`/?ask=${encodeURIComponent(q)}`}
                  data-testid="overview-question"
                  className="text-blue-800 underline-offset-2 hover:underline dark:text-blue-300"
                >
                  {q}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
