"use client";

import { useEffect, useState } from "react";
import type { ChatText } from "./strings";

const typing = (e: KeyboardEvent) => {
  const el = e.target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
};

/**
 * The chat's keyboard shortcuts: Ctrl/⌘+Shift+O new chat, "/" focus the question box, Ctrl/⌘+K search the
 * history, "?" lists them (in a dialog, closed with Escape).
 */
export function Shortcuts({ t, onNewChat, onSearch }: { t: ChatText; onNewChat: () => void; onSearch: () => void }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && e.shiftKey && key === "o") {
        e.preventDefault();
        onNewChat();
      } else if (mod && !e.shiftKey && key === "k") {
        e.preventDefault();
        onSearch();
      } else if (e.key === "Escape" && open) {
        setOpen(false);
      } else if (!mod && !typing(e) && e.key === "/") {
        e.preventDefault();
        document.getElementById("chat-input")?.focus();
      } else if (!mod && !typing(e) && e.key === "?") {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onNewChat, onSearch, open]);
  if (!open) return null;
  const rows: [string, string][] = [
    ["Ctrl/⌘ + Shift + O", t.shortcutNewChat],
    ["/", t.shortcutFocus],
    ["Ctrl/⌘ + K", t.shortcutSearch],
    ["?", t.shortcutList],
  ];
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-black/40 p-4">
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        data-testid="shortcuts-dialog"
        className="w-full max-w-sm rounded-xl bg-white p-4 shadow-xl dark:bg-zinc-900"
      >
        <h2 id="shortcuts-title" className="mb-3 font-semibold">
          {t.shortcuts}
        </h2>
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
          {rows.map(([keys, what]) => (
            <div key={keys} className="contents">
              <dt>
                <kbd className="rounded border border-zinc-300 bg-zinc-50 px-1.5 py-0.5 font-mono text-xs dark:border-zinc-600 dark:bg-zinc-800">
                  {keys}
                </kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
        <button
          type="button"
          // biome-ignore lint/a11y/noAutofocus: focus moves into the dialog that just opened
          autoFocus
          onClick={() => setOpen(false)}
          className="mt-4 rounded-lg bg-zinc-800 px-3 py-1 text-sm text-white dark:bg-zinc-200 dark:text-zinc-900"
        >
          {t.close}
        </button>
      </div>
    </div>
  );
}
