"use client";

import { type ChatText, fill } from "./strings";

export interface Versions {
  /** 0-based index of the shown version. */
  index: number;
  count: number;
  onShow: (index: number) => void;
}

const BTN = "rounded px-1 hover:bg-zinc-100 disabled:opacity-40 dark:hover:bg-zinc-800";

/** ‹ 1/2 › between the versions of a question or an answer (regenerated or edited). */
export function VersionSwitch({ versions, t, busy }: { versions?: Versions; t: ChatText; busy: boolean }) {
  if (!versions || versions.count < 2) return null;
  const { index, count, onShow } = versions;
  return (
    <span data-testid="version-switch" className="inline-flex items-center gap-0.5 text-xs text-zinc-600 tabular-nums dark:text-zinc-400">
      <button
        type="button"
        data-testid="version-prev"
        aria-label={t.prevVersion}
        title={t.prevVersion}
        disabled={busy || index === 0}
        onClick={() => onShow(index - 1)}
        className={BTN}
      >
        ‹
      </button>
      <span data-testid="version-label" aria-hidden="true">
        {index + 1}/{count}
      </span>
      <span className="sr-only">{fill(t.version, { i: index + 1, n: count })}</span>
      <button
        type="button"
        data-testid="version-next"
        aria-label={t.nextVersion}
        title={t.nextVersion}
        disabled={busy || index === count - 1}
        onClick={() => onShow(index + 1)}
        className={BTN}
      >
        ›
      </button>
    </span>
  );
}
