"use client";

import { useEffect, useId, useState } from "react";
import { documentApi, type LibraryDocument } from "@/components/documents/api";
import { useMessages } from "@/components/i18n";
import { shownFileName } from "@/lib/sources/display";
import { MAX_SCOPE_DOCUMENTS } from "@/lib/tools/scope";
import { fill } from "./strings";

const T = {
  en: {
    sources: "Sources",
    all: "All documents",
    picked: "{n} documents",
    pickedOne: "1 document",
    hint: "Answers in this conversation use only the documents you tick.",
    search: "Find a document",
    clear: "Use all documents",
    none: "No documents match.",
  },
  zh: {
    sources: "来源",
    all: "全部文档",
    picked: "{n} 篇文档",
    pickedOne: "1 篇文档",
    hint: "此对话的回答只使用你勾选的文档。",
    search: "查找文档",
    clear: "使用全部文档",
    none: "没有匹配的文档。",
  },
};

/**
 * The sources a conversation's answers draw on (NotebookLM's checkboxes): every document (none ticked), or the
 * ones ticked. The chat sends them with each question; the search tools honour them (lib/tools/scope.ts).
 */
export function DocumentScope({ value, onChange }: { value: string[]; onChange: (ids: string[]) => void }) {
  const t = useMessages(T);
  const [open, setOpen] = useState(false);
  const [docs, setDocs] = useState<LibraryDocument[] | null>(null);
  const [q, setQ] = useState("");
  const panelId = useId();
  useEffect(() => {
    if (!open || docs) return;
    documentApi
      .list()
      .then((r) => setDocs(r.documents))
      .catch(() => setDocs([]));
  }, [open, docs]);
  const label = value.length === 0 ? t.all : value.length === 1 ? t.pickedOne : fill(t.picked, { n: value.length });
  const needle = q.trim().toLowerCase();
  const shown = (docs ?? []).filter((d) => !needle || d.title.toLowerCase().includes(needle) || d.source.toLowerCase().includes(needle));
  const toggle = (id: string) =>
    onChange(value.includes(id) ? value.filter((x) => x !== id) : [...value, id].slice(0, MAX_SCOPE_DOCUMENTS));
  return (
    <div className="relative mx-auto mb-1.5 flex w-full max-w-3xl text-xs">
      <button
        type="button"
        data-testid="document-scope"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        className="rounded-full border border-zinc-300 px-2 py-0.5 text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
      >
        {t.sources}: <span data-testid="document-scope-label">{label}</span>
      </button>
      {open && (
        <fieldset
          id={panelId}
          data-testid="document-scope-panel"
          className="absolute bottom-full left-0 z-30 mb-1 w-80 max-w-[calc(100vw-1.5rem)] rounded-lg border border-zinc-200 bg-white p-2 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
        >
          <legend className="sr-only">{t.sources}</legend>
          <p className="mb-1 text-zinc-600 dark:text-zinc-400">{t.hint}</p>
          <input
            type="search"
            aria-label={t.search}
            placeholder={t.search}
            value={q}
            onChange={(e) => setQ(e.target.value)}
            className="mb-1 w-full rounded border border-zinc-400 bg-white px-2 py-1 dark:border-zinc-600 dark:bg-zinc-950"
          />
          <ul className="max-h-60 overflow-y-auto">
            {shown.map((d) => (
              <li key={d.id}>
                <label className="flex items-center gap-2 rounded px-1 py-1 hover:bg-zinc-50 dark:hover:bg-zinc-800">
                  <input
                    type="checkbox"
                    data-testid="document-scope-item"
                    data-id={d.id}
                    checked={value.includes(d.id)}
                    onChange={() => toggle(d.id)}
                  />
                  <span className="min-w-0 truncate">{d.title}</span>
                  <span className="ml-auto shrink-0 text-zinc-600 dark:text-zinc-400">{shownFileName(d)}</span>
                </label>
              </li>
            ))}
            {docs && shown.length === 0 && <li className="px-1 py-1 text-zinc-600 dark:text-zinc-400">{t.none}</li>}
          </ul>
          {value.length > 0 && (
            <button
              type="button"
              data-testid="document-scope-clear"
              onClick={() => onChange([])}
              className="mt-1 text-sky-700 underline dark:text-sky-300"
            >
              {t.clear}
            </button>
          )}
        </fieldset>
      )}
    </div>
  );
}
