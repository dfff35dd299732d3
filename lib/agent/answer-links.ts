/**
 * Prepares an answer for Markdown rendering: each valid `[n]` becomes a link `[n](#cite-n-k)` that the
 * UI renders as a citation chip, where k indexes `claims`, the sentence the marker supports (used to
 * highlight the matching passage in the chunk). Markers of unknown numbers stay plain text.
 */
import { PAUSES, sentenceEnds } from "@/lib/text/sentences";
import type { CitationCheck } from "./support";

export const CITE_HREF = /^#cite-(\d+)-(\d+)$/;
/** A note of the citation check after a sentence: `[!](#check-k)`, k indexing the check's sentences. */
export const CHECK_HREF = /^#check-(\d+)$/;

const MARKER = /\[(\d{1,3})\](?![(:])/g;
/** Punctuation and spaces between a claim and its marker. */
const CLAIM_TAIL = new RegExp(`[\\s${PAUSES}]`);

/**
 * The claim a marker supports: the sentence that ends right before `end` (skipping the punctuation and
 * spaces just before it), or the whole list item when the marker ends a bullet that has no other marker
 * (the offline answerer quotes several sentences as one bullet with one marker).
 */
export function claimBefore(text: string, end: number): string {
  let stop = end;
  while (stop > 0 && CLAIM_TAIL.test(text[stop - 1])) stop--;
  const head = text.slice(0, stop);
  const line = head.slice(Math.max(head.lastIndexOf("\n"), 0));
  const item = line.match(/^\n?\s*(?:[-*+]|\d+[.)])\s+/);
  if (item && !/\]/.test(line)) return line.slice(item[0].length).trim();
  // After the last sentence end (lib/text/sentences) or the marker before, whichever is later.
  const start = Math.max(sentenceEnds(head).at(-1) ?? 0, head.lastIndexOf("]") + 1);
  return head
    .slice(start)
    .replace(/^\s*(?:[-*+]\s+|\d+[.)]\s+|#+\s+)?/, "")
    .trim();
}

export function linkCitations(text: string, isValid: (n: number) => boolean): { markdown: string; claims: string[] } {
  const claims: string[] = [];
  const markdown = text.replace(MARKER, (whole, num: string, offset: number) => {
    const n = Number(num);
    if (!isValid(n)) return whole;
    claims.push(claimBefore(text, offset));
    return `[${n}](#cite-${n}-${claims.length - 1})`;
  });
  return { markdown, claims };
}

/**
 * The answer as the citation check left it (moved citations in place), with a note link `[!](#check-k)` after
 * each sentence whose citation was moved or that was marked not supported; the UI renders the notes.
 */
export function withCheckNotes(check: CitationCheck): string {
  let text = check.text;
  const notes = check.sentences
    .map((s, k) => ({ s, k }))
    .filter(({ s }) => s.unsupported || s.citations.some((c) => c.from !== undefined))
    .sort((a, b) => b.s.end - a.s.end);
  for (const { s, k } of notes) text = `${text.slice(0, s.end)} [!](#check-${k})${text.slice(s.end)}`;
  return text;
}
