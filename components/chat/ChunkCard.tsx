"use client";

import { useLayoutEffect, useRef } from "react";
import { useMessages } from "@/components/i18n";
import { highlightParts, sectionPath } from "@/lib/agent/highlight";
import type { Citation } from "@/lib/agent/protocol";
import { S } from "./share-strings";
import { SourceLink } from "./source-viewer";
import { type ChatText, fill } from "./strings";

/** Heading path of a chunk without the document title it usually starts with. */
export function headingPath(c: Citation): string {
  return sectionPath(c.document.title, c.heading);
}

/** The chunk text with the passage that supports `claim` highlighted. */
function HighlightedText({ text, claim }: { text: string; claim?: string }) {
  const { before, mark, after } = highlightParts(text, claim);
  if (!mark) return <>{before}</>;
  return (
    <>
      {before}
      <mark data-testid="cited-passage" className="rounded-sm bg-amber-200 px-0.5 text-inherit dark:bg-amber-500/40">
        {mark}
      </mark>
      {after}
    </>
  );
}

/** Everything about one retrieved chunk: document, heading path, page, score, and its text. Spans only (it sits inside paragraphs). */
export function ChunkCard({
  citation: c,
  claim,
  t,
  onOpened,
}: {
  citation: Citation;
  claim?: string;
  t: ChatText;
  /** After the document opened beside the chat (the citation card then closes). */
  onOpened?: () => void;
}) {
  const s = useMessages(S);
  const path = headingPath(c);
  const textRef = useRef<HTMLSpanElement>(null);
  // The chunk text scrolls inside the card: the highlighted sentence is brought into its middle.
  // biome-ignore lint/correctness/useExhaustiveDependencies: again whenever the text or its highlight changes
  useLayoutEffect(() => {
    const box = textRef.current;
    const mark = box?.querySelector("mark");
    if (!box || !mark) return;
    const b = box.getBoundingClientRect();
    const m = mark.getBoundingClientRect();
    box.scrollTop += m.top - b.top - Math.max(0, (box.clientHeight - m.height) / 2);
  }, [c.text, claim]);
  return (
    <span className="block text-left">
      <span className="flex items-baseline gap-2">
        <span className="inline-flex h-5 min-w-5 shrink-0 items-center justify-center rounded-full bg-blue-600 px-1.5 text-[11px] font-semibold text-white">
          {c.n}
        </span>
        <span data-testid="chunk-title" className="font-semibold break-words">
          {c.document.title}
        </span>
      </span>
      {(path || c.page) && (
        <span data-testid="chunk-heading" className="mt-0.5 block text-xs text-zinc-600 dark:text-zinc-400">
          {[path, c.page ? fill(t.page, { page: c.page }) : ""].filter(Boolean).join(" · ")}
        </span>
      )}
      {/* biome-ignore lint/a11y/useSemanticElements: a span, since the card sits inside an answer's paragraph; a group so it can carry a name */}
      <span
        ref={textRef}
        data-testid="chunk-text"
        role="group"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the passage scrolls, so it must be reachable and scrollable by keyboard
        tabIndex={0}
        aria-label={fill(s.passage, { title: c.document.title })}
        className="mt-2 block max-h-64 overflow-y-auto whitespace-pre-wrap break-words text-sm leading-relaxed text-zinc-700 dark:text-zinc-300"
      >
        <HighlightedText text={c.text} claim={claim} />
      </span>
      <span className="mt-2 flex justify-between gap-2 text-xs text-zinc-600 dark:text-zinc-400">
        <span className="truncate">{c.document.source}</span>
        <SourceLink
          citation={c}
          claim={claim}
          onOpened={onOpened}
          data-testid="open-in-document"
          className="shrink-0 font-medium text-blue-800 underline dark:text-blue-300"
        >
          {t.openInDocument} →
        </SourceLink>
      </span>
    </span>
  );
}
