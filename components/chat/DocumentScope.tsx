"use client";

import { useEffect, useId, useRef, useState } from "react";
import { useAccess } from "@/components/account/viewer";
import { documentApi, type LibraryDocument } from "@/components/documents/api";
import { useMessages } from "@/components/i18n";
import { shownFileName } from "@/lib/sources/display";
import { documentsInScope, MAX_SCOPE_DOCUMENTS, picksOutsideKbs } from "@/lib/tools/scope";
import { fill } from "./strings";

const T = {
  en: {
    scope: "Scope",
    all: "All documents",
    picked: "{n} documents",
    hint: "Answers in this conversation use only the documents you tick.",
    hintNotes: "A study guide, briefing or timeline is made from the documents you tick (none ticked: all of them).",
    hintKbs: "Listed: the documents of the knowledge bases chosen in “Search in”.",
    search: "Find a document",
    clear: "Use all documents",
    noMatch: "No document title or file name contains “{q}”.",
    emptyEditor: "No documents here yet. Add some with “Add documents” or drop files on this page.",
    emptyReader: "No documents here yet. Ask an editor of this knowledge base to add some.",
    removed: "{n} picked documents lie outside “Search in” and were taken out of the scope.",
  },
  zh: {
    scope: "文档范围",
    all: "全部文档",
    picked: "{n} 篇文档",
    hint: "此对话的回答只使用你勾选的文档。",
    hintNotes: "学习指南、简报和时间线只根据你勾选的文档生成（未勾选时使用全部文档）。",
    hintKbs: "这里列出“搜索范围”中所选知识库的文档。",
    search: "查找文档",
    clear: "使用全部文档",
    noMatch: "没有标题或文件名包含“{q}”的文档。",
    emptyEditor: "这里还没有文档。可以用“添加文档”添加，或把文件拖到此页面。",
    emptyReader: "这里还没有文档。请联系此知识库的编辑者添加。",
    removed: "{n} 篇已选文档不在“搜索范围”的知识库中，已移出范围。",
  },
};

/** At most this many characters of document titles in the closed picker's label (all of them in its tooltip). */
const LABEL_CHARS = 48;

/**
 * The documents a conversation's answers draw on (NotebookLM's checkboxes): every document (none ticked), or the
 * ones ticked. It lists only the documents of the knowledge bases chosen in "Search in" (the one scope rule,
 * lib/tools/scope.ts), and takes a pick out when "Search in" no longer covers it, saying so. The chat sends the
 * picks with each question; the search tools honour them. `forNotes`: the notes page's pick of what a study guide is
 * made from (its panel opens downward, under the page's header).
 */
export function DocumentScope({
  value,
  onChange,
  kbs,
  forNotes = false,
}: {
  value: string[];
  onChange: (ids: string[]) => void;
  kbs: string[];
  forNotes?: boolean;
}) {
  const t = useMessages(T);
  const { write, canWrite } = useAccess();
  const [open, setOpen] = useState(false);
  const [docs, setDocs] = useState<LibraryDocument[] | null>(null);
  const [q, setQ] = useState("");
  const [removed, setRemoved] = useState(0);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // Read once there are picks (their titles make the label) and on each opening (files added since).
  const wanted = open || value.length > 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `open` re-reads the library on each opening
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    documentApi
      .list()
      .then((r) => live && setDocs(r.documents))
      .catch(() => live && setDocs([]));
    return () => {
      live = false;
    };
  }, [wanted, open]);
  useEffect(() => {
    if (!docs) return;
    const outside = picksOutsideKbs(value, docs, kbs);
    if (!outside.length) return;
    // On the notes page a conversation's pick of another knowledge base just drops out: no "Search in" there.
    if (!forNotes) setRemoved(outside.length);
    onChange(value.filter((id) => !outside.includes(id)));
  }, [docs, kbs, value, onChange, forNotes]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);

  const listed = documentsInScope(docs ?? [], { kbs });
  const titles = docs ? value.flatMap((id) => docs.filter((d) => d.id === id).map((d) => d.title)) : [];
  const names = titles.join(", ");
  const label =
    value.length === 0
      ? t.all
      : titles.length === value.length
        ? names.length > LABEL_CHARS
          ? `${names.slice(0, LABEL_CHARS - 1)}…`
          : names
        : fill(t.picked, { n: value.length });
  const needle = q.trim().toLowerCase();
  const shown = listed.filter((d) => !needle || d.title.toLowerCase().includes(needle) || d.source.toLowerCase().includes(needle));
  const mayAdd = kbs.length ? kbs.some(canWrite) : write;
  const empty = listed.length === 0 ? (mayAdd ? t.emptyEditor : t.emptyReader) : fill(t.noMatch, { q: q.trim() });
  const toggle = (id: string) => {
    setRemoved(0);
    onChange(value.includes(id) ? value.filter((x) => x !== id) : [...value, id].slice(0, MAX_SCOPE_DOCUMENTS));
  };
  return (
    <div ref={root} className={`relative flex flex-wrap items-center gap-x-2 text-xs ${forNotes ? "" : "mx-auto mb-1.5 w-full max-w-3xl"}`}>
      <button
        ref={button}
        type="button"
        data-testid="document-scope"
        aria-expanded={open}
        aria-controls={panelId}
        title={names || undefined}
        onClick={() => setOpen((o) => !o)}
        className="min-w-0 max-w-full truncate rounded-full border border-zinc-300 px-2 py-0.5 text-left text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
      >
        {t.scope}: <span data-testid="document-scope-label">{label}</span>
      </button>
      {removed > 0 && (
        <p role="status" data-testid="document-scope-removed" className="text-amber-900 dark:text-amber-200">
          {fill(t.removed, { n: removed })}
        </p>
      )}
      {open && (
        <fieldset
          id={panelId}
          data-testid="document-scope-panel"
          className={`absolute ${forNotes ? "top-full mt-1" : "bottom-full mb-1"} left-0 z-30 w-80 max-w-[calc(100vw-1.5rem)] rounded-lg border border-zinc-200 bg-white p-2 shadow-lg dark:border-zinc-700 dark:bg-zinc-900`}
        >
          <legend className="sr-only">{t.scope}</legend>
          <p className="mb-1 text-zinc-600 dark:text-zinc-400">
            {forNotes ? t.hintNotes : t.hint}
            {kbs.length > 0 && !forNotes && ` ${t.hintKbs}`}
          </p>
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
            {docs && shown.length === 0 && (
              <li data-testid="document-scope-empty" className="px-1 py-1 text-zinc-600 dark:text-zinc-400">
                {empty}
              </li>
            )}
          </ul>
          {value.length > 0 && (
            <button
              type="button"
              data-testid="document-scope-clear"
              onClick={() => {
                setRemoved(0);
                onChange([]);
              }}
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
