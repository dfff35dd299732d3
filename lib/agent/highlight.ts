/**
 * How a retrieved chunk is shown with its supporting sentence marked: one rule for the chat's citation card
 * and the MCP Apps citation view. Pure functions; safe to import in the browser.
 */
import { titleWithHeading } from "@/lib/chunk/heading";
import { supportingSpan } from "./extractive";

/** Heading lines a chunk starts with ("## Leave"): a card shows the heading path instead. */
export const LEADING_HEADINGS = /^(?:\s*#{1,6}\s[^\n]*(?:\n|$))+\s*/;

/** Markdown markers a reader should not see ("### Refunds", "**bold**"); lengths change, so applied per segment. */
const bare = (s: string) => s.replace(/^[ \t]*#{1,6}[ \t]+/gm, "").replace(/\*\*|__/g, "");

/** Heading path of a chunk without the document title it usually starts with ("Leave › Annual leave"). */
export function sectionPath(title: string, heading: string): string {
  const full = titleWithHeading(title, heading);
  return full.startsWith(title) ? full.slice(title.length).replace(/^\s*›\s*/, "") : full;
}

/**
 * A chunk's text (without its leading heading lines) in three parts around the sentences that best support
 * `claim` (an answer sentence, or a search query: the sentences sharing the most of its terms); `mark` is
 * empty when no sentence supports it well enough.
 */
export function highlightParts(full: string, claim?: string): { before: string; mark: string; after: string } {
  const skip = full.match(LEADING_HEADINGS)?.[0].length ?? 0;
  const text = full.slice(skip);
  const span = claim ? supportingSpan(text, claim) : null;
  if (!span) return { before: bare(text), mark: "", after: "" };
  return { before: bare(text.slice(0, span.start)), mark: bare(text.slice(span.start, span.end)), after: bare(text.slice(span.end)) };
}
