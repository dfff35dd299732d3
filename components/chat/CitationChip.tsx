"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Citation } from "@/lib/agent/protocol";
import { ChunkCard } from "./ChunkCard";
import type { ChatText } from "./strings";

type Open = false | "hover" | "pinned";

/** The card's width in a viewport `vw` wide (on a phone, a sheet as wide as the viewport less its margins). */
const cardWidth = (vw: number) => (vw < 640 ? vw - 16 : Math.min(448, vw - 16));

/**
 * An inline `[n]`: a small button that previews the cited chunk on hover, and keeps it open on click
 * (or tap) until closed, Escape, or a click elsewhere. The card is placed in the viewport with
 * fixed positioning so it is never clipped, on a phone as on a desktop.
 */
export function CitationChip({ n, citation, claim, t }: { n: number; citation: Citation; claim?: string; t: ChatText }) {
  const [open, setOpen] = useState<Open>(false);
  const [pos, setPos] = useState<{ left: number; top: number; width: number } | null>(null);
  const chipRef = useRef<HTMLButtonElement>(null);
  const cardRef = useRef<HTMLSpanElement>(null);
  const hoverTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const place = useCallback(() => {
    const chip = chipRef.current;
    if (!chip) return;
    const r = chip.getBoundingClientRect();
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const width = cardWidth(vw);
    const left = Math.max(8, Math.min(r.left - 16, vw - width - 8));
    const cardHeight = cardRef.current?.offsetHeight ?? 320;
    if (vw < 640) {
      // A phone: a sheet along the bottom edge, so the sentence being checked stays in view above it.
      setPos({ left: 8, top: Math.max(8, vh - cardHeight - 8), width });
      return;
    }
    const below = r.bottom + 6;
    const top =
      below + cardHeight > vh - 8 && r.top - 6 - cardHeight > 8
        ? r.top - 6 - cardHeight
        : Math.min(below, Math.max(8, vh - cardHeight - 8));
    setPos({ left, top, width });
  }, []);

  useLayoutEffect(() => {
    if (open) place();
  }, [open, place]);

  const cancelHover = useCallback(() => {
    if (hoverTimer.current) clearTimeout(hoverTimer.current);
    hoverTimer.current = null;
  }, []);
  const close = useCallback(() => {
    cancelHover();
    setOpen(false);
  }, [cancelHover]);

  useEffect(() => () => cancelHover(), [cancelHover]);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && close();
    const onDown = (e: MouseEvent | TouchEvent) => {
      const target = e.target as Node;
      if (!cardRef.current?.contains(target) && !chipRef.current?.contains(target)) close();
    };
    window.addEventListener("keydown", onKey);
    window.addEventListener("mousedown", onDown);
    window.addEventListener("touchstart", onDown);
    window.addEventListener("scroll", place, true);
    window.addEventListener("resize", place);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener("mousedown", onDown);
      window.removeEventListener("touchstart", onDown);
      window.removeEventListener("scroll", place, true);
      window.removeEventListener("resize", place);
    };
  }, [open, place, close]);

  const hover = (on: boolean) => {
    cancelHover();
    hoverTimer.current = setTimeout(
      () => {
        hoverTimer.current = null;
        setOpen((o) => (on ? o || "hover" : o === "hover" ? false : o));
      },
      on ? 150 : 200,
    );
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: hover only keeps the preview open; the chip button is the control
    <span className="relative inline" onMouseEnter={() => hover(true)} onMouseLeave={() => hover(false)}>
      <button
        ref={chipRef}
        type="button"
        data-testid="citation-chip"
        data-n={n}
        data-chunk-id={citation.chunk_id}
        aria-expanded={!!open}
        aria-label={`[${n}] ${citation.document.title}`}
        onClick={() => {
          // A click decides; a hover timer still pending from entering the chip must not reopen it later.
          cancelHover();
          setOpen((o) => (o === "pinned" ? false : "pinned"));
        }}
        className="mx-0.5 inline-flex h-[1.15rem] min-w-[1.15rem] -translate-y-px items-center justify-center rounded-full bg-blue-100 px-1 align-middle text-[11px] leading-none font-semibold text-blue-800 transition-colors hover:bg-blue-200 focus-visible:outline-2 focus-visible:outline-blue-500 aria-expanded:bg-blue-600 aria-expanded:text-white dark:bg-blue-900/70 dark:text-blue-100 dark:hover:bg-blue-800"
      >
        {n}
      </button>
      {open && (
        <span
          ref={cardRef}
          role="dialog"
          aria-label={citation.document.title}
          data-testid="citation-popover"
          data-chunk-id={citation.chunk_id}
          // A hover preview lets the pointer through (to the next chip); a clicked card is interactive.
          style={{
            // Before it is placed, measured at its width (its height and where its highlight lies depend on it).
            ...(pos ? { left: pos.left, top: pos.top, width: pos.width } : { visibility: "hidden", width: cardWidth(window.innerWidth) }),
            pointerEvents: open === "hover" ? "none" : undefined,
          }}
          className="fixed z-50 block max-h-[60vh] overflow-y-auto rounded-xl border border-zinc-200 bg-white p-3 text-sm font-normal shadow-xl dark:border-zinc-700 dark:bg-zinc-900"
        >
          {open === "pinned" && (
            <button
              type="button"
              onClick={close}
              aria-label={t.close}
              className="absolute top-1.5 right-2 rounded px-1 text-zinc-600 hover:text-zinc-700 dark:hover:text-zinc-200 dark:text-zinc-400"
            >
              ×
            </button>
          )}
          <ChunkCard citation={citation} claim={claim} t={t} onOpened={close} />
        </span>
      )}
    </span>
  );
}
