"use client";

import { useEffect, useRef, useState } from "react";
import { useMessages } from "@/components/i18n";
import { fill, T } from "./messages";
import { useKbList } from "./use-kb-list";

/**
 * Chooses the knowledge bases the chat searches: none checked = all. Shown only when there is more than
 * one knowledge base.
 */
export function KbFilter({ value, onChange }: { value: string[]; onChange: (kbs: string[]) => void }) {
  const t = useMessages(T);
  const [open, setOpen] = useState(false);
  const kbs = useKbList(open); // listed again each time the menu opens or closes
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => root.current && !root.current.contains(e.target as Node) && setOpen(false);
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  // Selected knowledge bases that no longer exist are dropped.
  const names = new Set(kbs.map((k) => k.name));
  const selected = kbs.length ? value.filter((k) => names.has(k)) : value;
  useEffect(() => {
    if (selected.length !== value.length) onChange(selected);
  }, [selected, value, onChange]);

  if (kbs.length < 2) return null;
  const label =
    selected.length === 0
      ? t.allKbsShort
      : selected.length === 1
        ? (kbs.find((k) => k.name === selected[0])?.title ?? selected[0])
        : fill(t.nKbs, { count: selected.length });
  const toggle = (name: string) => onChange(selected.includes(name) ? selected.filter((k) => k !== name) : [...selected, name]);

  return (
    <div ref={root} className="relative min-w-0">
      <button
        type="button"
        data-testid="kb-filter"
        aria-haspopup="true"
        aria-expanded={open}
        aria-label={`${t.searchIn}: ${label}`}
        title={t.filterHint}
        onClick={() => setOpen((o) => !o)}
        className={`max-w-full truncate rounded-lg px-2 py-1 text-sm sm:max-w-[14rem] hover:bg-zinc-100 dark:hover:bg-zinc-800 ${
          selected.length ? "text-sky-700 dark:text-sky-400" : "text-zinc-600 dark:text-zinc-300"
        }`}
      >
        <span className="hidden sm:inline">{t.searchIn}: </span>
        {label} ▾
      </button>
      {open && (
        <fieldset
          aria-label={t.searchIn}
          // Opens rightward from the button, which leads the header's actions at every width: leftward it left the window.
          className={`absolute left-0 z-30 mt-1 max-h-[min(24rem,calc(100dvh-6rem))] min-w-0 w-64 max-w-[calc(100vw-1.5rem)] overflow-y-auto rounded-lg border border-zinc-200 bg-white p-2 shadow-lg dark:border-zinc-700 dark:bg-zinc-900`}
        >
          <p className="mb-1 px-1 text-xs text-zinc-600 dark:text-zinc-400">{t.filterHint}</p>
          <label className="flex items-center gap-2 rounded px-1 py-1 text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800">
            <input type="checkbox" data-testid="kb-filter-all" checked={selected.length === 0} onChange={() => onChange([])} />
            {t.allKbsShort}
          </label>
          {kbs.map((k) => (
            <label key={k.name} className="flex items-center gap-2 rounded px-1 py-1 text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800">
              <input
                type="checkbox"
                data-testid="kb-filter-option"
                value={k.name}
                checked={selected.includes(k.name)}
                onChange={() => toggle(k.name)}
              />
              <span className="truncate">{k.title || k.name}</span>
              <span className="ml-auto text-xs text-zinc-600 dark:text-zinc-400">{k.documentCount}</span>
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}
