"use client";

import type { DynamicToolUIPart } from "ai";
import { TOOL } from "@/lib/tools/names";
import { type ChatText, fill } from "./strings";

function Spinner() {
  return <span aria-hidden className="inline-block size-3 animate-spin rounded-full border-2 border-zinc-300 border-t-blue-600" />;
}

function SearchIcon({ failed }: { failed: boolean }) {
  return (
    <svg
      aria-hidden
      viewBox="0 0 16 16"
      className={`size-3 shrink-0 ${failed ? "text-red-500" : "text-zinc-400"}`}
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
    >
      <circle cx="7" cy="7" r="4.5" />
      <path d="M10.5 10.5 14 14" strokeLinecap="round" />
    </svg>
  );
}

function toolLabel(part: DynamicToolUIPart, t: ChatText): { label: string; result?: string } {
  const input = (part.input ?? {}) as { query?: unknown };
  const done = part.state === "output-available";
  if (part.toolName === TOOL.searchKnowledge) {
    const query = typeof input.query === "string" ? input.query : "…";
    const label = fill(t.searching, { query });
    if (!done) return { label };
    const out = (part.output ?? {}) as { structuredContent?: { results?: unknown[]; repeated?: boolean } };
    if (out.structuredContent?.repeated) return { label, result: t.repeated };
    const n = out.structuredContent?.results?.length ?? 0;
    return { label, result: n === 0 ? t.foundNone : n === 1 ? t.foundOne : fill(t.found, { n }) };
  }
  if (part.toolName === TOOL.readDocument) return { label: done ? t.read : t.reading };
  if (part.toolName === TOOL.listDocuments) return { label: done ? t.listed : t.listing };
  return { label: part.toolName };
}

/** What the assistant did with its tools, as it happens: "Searching: <query>", then the number of chunks found. */
export function ToolActivity({ parts, t }: { parts: DynamicToolUIPart[]; t: ChatText }) {
  if (parts.length === 0) return null;
  return (
    <ul className="mb-2 space-y-1">
      {parts.map((p) => {
        const { label, result } = toolLabel(p, t);
        const failed = p.state === "output-error";
        const running = !failed && p.state !== "output-available";
        return (
          <li
            key={p.toolCallId}
            data-testid="tool-activity"
            data-tool={p.toolName}
            data-state={p.state}
            className="flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400"
          >
            {running ? <Spinner /> : <SearchIcon failed={failed} />}
            <span className="min-w-0 truncate">{label}</span>
            {(result || failed) && (
              <span
                data-testid="tool-result"
                className={failed ? "text-red-600 dark:text-red-400" : "shrink-0 text-zinc-600 dark:text-zinc-400"}
              >
                — {failed ? t.toolFailed : result}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
