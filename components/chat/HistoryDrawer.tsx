"use client";

import { Preferences } from "@/components/Preferences";
import type { ChatText } from "./strings";

/** The conversation list as a drawer on narrow screens, with the preferences above it. */
export function HistoryDrawer({ t, nav, onClose, children }: { t: ChatText; nav: string; onClose: () => void; children: React.ReactNode }) {
  return (
    <div className="fixed inset-0 z-40 flex lg:hidden" role="dialog" aria-modal="true" aria-label={t.history}>
      <div className="flex h-full w-80 max-w-[85vw] flex-col bg-white shadow-xl dark:bg-zinc-950">
        <button
          type="button"
          data-testid="history-close"
          onClick={onClose}
          className={`${nav} m-2 self-end`}
          // biome-ignore lint/a11y/noAutofocus: focus moves into the drawer that just opened
          autoFocus
        >
          {t.closeHistory} ×
        </button>
        <div className="px-3 pb-1">
          <Preferences />
        </div>
        <div className="min-h-0 flex-1">{children}</div>
      </div>
      <button type="button" aria-label={t.closeHistory} tabIndex={-1} className="flex-1 bg-black/40" onClick={onClose} />
    </div>
  );
}
