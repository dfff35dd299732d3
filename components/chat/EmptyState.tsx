"use client";

import { useEffect, useState } from "react";
import { useAccess } from "@/components/account/viewer";
import { apiFetch } from "@/components/api";
import { OverviewLabel, useOverview } from "@/components/documents/Overview";
import { useLocale } from "@/components/i18n";
import { hasCjk } from "@/lib/text/cjk";
import { type ChatScope, scopeQuery } from "@/lib/tools/scope";
import type { ChatText } from "./strings";

/** CSV records are grouped under "Rows 1–10" headings, a sheet's each under "Inventory, row 27": no topic anyone asks about. */
const SYNTHETIC = /\brows?\s+\d+(\s*[–-]\s*\d+)?$/i;

/** Four heading questions in the UI language only (a Chinese screen never offers an English template). */
export function pickExamples(all: string[], locale: "en" | "zh", n = 4): string[] {
  return all.filter((q) => !SYNTHETIC.test(q) && hasCjk(q) === (locale === "zh")).slice(0, n);
}

/** Questions from the headings of the documents in scope, asked for only when the overview has none. */
function useFallbackExamples(wanted: boolean, scoped: string): string[] | null {
  const locale = useLocale();
  const [all, setAll] = useState<string[] | null>(null);
  useEffect(() => {
    if (!wanted) return;
    let cancelled = false;
    apiFetch<{ questions?: string[] }>(`/api/chat/examples?max=12${scoped ? `&${scoped}` : ""}`)
      .then((d) => !cancelled && setAll(d.questions ?? []))
      .catch(() => !cancelled && setAll([]));
    return () => {
      cancelled = true;
    };
  }, [wanted, scoped]);
  return all && pickExamples(all, locale);
}

/**
 * The first screen: what the chat does, and the overview of the documents in the conversation's scope (the
 * knowledge bases of "Search in", the picked documents) with questions they answer.
 */
export function EmptyState({ t, onAsk, scope }: { t: ChatText; onAsk: (q: string) => void; scope: ChatScope }) {
  const { write, canWrite } = useAccess();
  const overview = useOverview(undefined, scope);
  const ready = overview && overview !== "failed" ? overview : null;
  const scoped = new URLSearchParams(scopeQuery(scope)).toString();
  const fallback = useFallbackExamples(overview === "failed" || (ready !== null && ready.questions.length === 0), scoped);
  const questions = ready?.questions.length ? ready.questions.slice(0, 4) : fallback;
  const mayAdd = scope.kbs?.length ? scope.kbs.some(canWrite) : write;
  // Documents in scope with no questions to offer, or none at all (what a reader can do differs from an editor).
  const none = ready?.covers ? t.noScopedExamples : mayAdd ? t.noDocumentsEditor : t.noDocumentsReader;

  return (
    <div data-testid="empty-state" className="mx-auto flex max-w-xl flex-col items-center px-2 pt-[12vh] text-center">
      <h2 className="text-2xl font-semibold tracking-tight">{t.emptyTitle}</h2>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{t.emptyHint}</p>
      {ready?.covers && (
        <div data-testid="chat-overview" className="mt-6 w-full text-left">
          <OverviewLabel overview={ready} />
          <p data-testid="overview-covers" className="mt-1 text-sm text-zinc-700 dark:text-zinc-300">
            {ready.covers}
          </p>
        </div>
      )}
      {questions && questions.length > 0 && (
        <div className="mt-6 w-full">
          <p className="mb-2 text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">{t.examples}</p>
          <div className="grid gap-2 sm:grid-cols-2">
            {questions.map((q) => (
              <button
                key={q}
                type="button"
                data-testid="example-question"
                onClick={() => onAsk(q)}
                className="rounded-xl border border-zinc-200 bg-white px-3 py-2.5 text-left text-sm hover:border-blue-400 hover:bg-blue-50 dark:border-zinc-800 dark:bg-zinc-900 dark:hover:border-blue-700 dark:hover:bg-blue-950/40"
              >
                {q}
              </button>
            ))}
          </div>
        </div>
      )}
      {!questions && (
        <div data-testid="examples-loading" aria-hidden="true" className="mt-8 grid w-full animate-pulse gap-2 sm:grid-cols-2">
          {[0, 1, 2, 3].map((i) => (
            <div key={i} className="h-10 rounded-xl bg-zinc-100 dark:bg-zinc-800" />
          ))}
        </div>
      )}
      {questions && questions.length === 0 && (
        <p data-testid="no-examples" className="mt-8 text-sm text-zinc-600 dark:text-zinc-400">
          {none}
        </p>
      )}
    </div>
  );
}
