/**
 * An answer as it leaves the model, rendered once for every view: the chat, the share view, the print view, the
 * Markdown export and the copied answer all show the text the citation check left (re-cited sentences), its notes
 * ("citation corrected (was [n])", "not supported by the sources"), the same display numbers and targets, and
 * the model that wrote it.
 */
import { fill } from "@/components/fill";
import { CHECK_HREF, withCheckNotes } from "@/lib/agent/answer-links";
import type { ChatUIMessage, Citation, CitationCheck } from "@/lib/agent/protocol";
import { checkOf, citationsOf, messageAnswerText } from "./message-parts";
import { answerWithReferences, displayCitations } from "./sources";

type CheckedSentence = CitationCheck["sentences"][number];

/** The words of the check's notes (components/chat/strings.ts). */
export interface CheckNoteText {
  notSupported: string;
  numberNotInSources: string;
  citationMoved: string;
}

export interface CheckedAnswer {
  /** The text as the citation check left it (moved citations in place), without notes; the model's text before the check. */
  text: string;
  /** `text` with a note link `[!](#check-k)` after each corrected or unsupported sentence (Answer renders the notes). */
  shown: string;
  check?: CitationCheck;
  /** The answer's citations by the turn's own number, renumbered for display (displayCitations). */
  byN: Map<number, Citation>;
  cited: Citation[];
  others: Citation[];
  /** The model that wrote it; none for the offline answerer. */
  model?: string;
}

/** The checked rendering of answer `m` (while it streams, `streaming`: its text as written so far, no check yet). */
export function checkedAnswer(m: ChatUIMessage, streaming = false): CheckedAnswer {
  const check = streaming ? undefined : checkOf(m);
  const text = check?.text ?? messageAnswerText(m);
  const { byN, cited, others } = displayCitations(text, citationsOf(m));
  const model = answerModelOf(m);
  return { text, shown: check ? withCheckNotes(check) : text, check, byN, cited, others, ...(model ? { model } : {}) };
}

/** The model that wrote answer `m` (its metadata); undefined for the offline answerer. */
export function answerModelOf(m: ChatUIMessage): string | undefined {
  return m.metadata?.mode === "llm" && m.metadata.model ? m.metadata.model : undefined;
}

/** What the check says after sentence `s`: why it is not supported, or which citation it corrected (display numbers); null: nothing. */
export function checkNoteText(s: CheckedSentence, byN: ReadonlyMap<number, Citation>, t: CheckNoteText): string | null {
  if (s.unsupported)
    return s.unsupported === "number" ? fill(t.numberNotInSources, { numbers: (s.numbers ?? []).join(", ") }) : t.notSupported;
  const moved = s.citations.filter((c) => c.from !== undefined);
  if (!moved.length) return null;
  return fill(t.citationMoved, { was: moved.map((c) => byN.get(c.from!)?.n ?? c.from).join(", ") });
}

const NOTE_LINK = /[^\S\n]*\[!\]\((#check-\d+)\)/g;

/**
 * The answer as Markdown: display numbers in the text, each check note in italics after its sentence, then the
 * numbered references (with `href`, each a link to where it opens). The notes go in after the numbers are
 * renumbered, so the "was [n]" a note names stays the display number the chat shows.
 */
export function checkedMarkdown(
  a: CheckedAnswer,
  t: CheckNoteText,
  refs: { heading: string; page: (p: number) => string; href?: (c: Citation) => string; escape?: (markdown: string) => string },
): string {
  const body = refs.escape ? refs.escape(a.shown) : a.shown;
  const withRefs = answerWithReferences(body, a.byN, refs.heading, refs.page, refs.href);
  return withRefs.replace(NOTE_LINK, (_, href: string) => {
    const s = a.check?.sentences[Number(href.match(CHECK_HREF)![1])];
    const note = s && checkNoteText(s, a.byN, t);
    return note ? ` *(${note})*` : "";
  });
}
