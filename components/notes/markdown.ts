/** A note as a Markdown file: its title, the checked text with its notes, who wrote it, and its sources as links. */
import { answerWithReferences, displayCitations } from "@/components/chat/sources";
import type { Citation } from "@/lib/agent/protocol";
import type { Note } from "@/lib/notes/schema";
import { passagePath } from "@/lib/tools/links";

export interface NoteMarkdownText {
  references: string;
  notSupported: string;
  citationMoved: string;
  page: string;
  writtenBy: string;
  asked: string;
}

/** The checked text with "not supported" and "citation corrected" written after the sentences they concern. */
function withNotes(note: Note, t: NoteMarkdownText): string {
  if (!note.check) return note.text;
  let text = note.check.text;
  const marked = note.check.sentences
    .map((s) => {
      const moved = s.citations.find((c) => c.from !== undefined);
      const says = s.unsupported ? t.notSupported : moved ? t.citationMoved.replace("{was}", String(moved.from)) : null;
      return { end: s.end, says };
    })
    .filter((s): s is { end: number; says: string } => !!s.says)
    .sort((a, b) => b.end - a.end);
  // Brackets escaped: "(was [2])" is no citation of source 2.
  for (const { end, says } of marked) text = `${text.slice(0, end)} _(${says.replace(/[[\]]/g, "\\$&")})_${text.slice(end)}`;
  return text;
}

export function noteMarkdown(note: Note, t: NoteMarkdownText, origin: string): string {
  const text = withNotes(note, t);
  const { byN } = displayCitations(text, note.citations);
  const href = (c: Citation) => `${origin}${passagePath(c.document.id, c.source_chunk_id ?? c.chunk_id)}`;
  const page = (p: number) => t.page.replace("{page}", String(p));
  const head = [`# ${note.title}`, ""];
  if (note.question) head.push(`_${t.asked.replace("{question}", note.question)}_`, "");
  const tail = note.model ? `\n_${t.writtenBy.replace("{model}", note.model)}_\n` : "";
  return `${head.join("\n")}${answerWithReferences(text, byN, `## ${t.references}`, page, href).trimEnd()}\n${tail}`;
}

/** A file name for the note: its title, without characters file systems refuse. */
export const noteFileName = (title: string) =>
  `${
    title
      .replace(/[\\/:*?"<>|\n]+/g, " ")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 80) || "note"
  }.md`;
