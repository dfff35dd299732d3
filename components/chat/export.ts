/**
 * A conversation as Markdown: the title, a short header (when it was exported, the knowledge bases and sources it
 * was asked against, the files attached), each question as a heading, each answer in its checked rendering
 * (checked-answer.ts: the text the chat shows, its check notes, "Written by <model>") with its citations
 * renumbered as shown and its numbered references, each a link to the passage in the app (`origin` + the
 * document view). No HTML survives into it: titles, questions and reference labels are text, and an answer's `<`
 * outside code is written as `&lt;` (a document quoted with `<img onerror=…>` stays words wherever the file is opened).
 */

import { fill } from "@/components/fill";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { type CheckNoteText, checkedAnswer, checkedMarkdown } from "./checked-answer";
import { messageAnswerText } from "./message-parts";
import { documentHref, htmlAsText } from "./sources";

/** Markdown with every `<` outside code spans and fenced blocks written as `&lt;`: no tag, no HTML comment. */
function withoutHtml(markdown: string): string {
  return markdown
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/)
    .map((piece, i) => (i % 2 ? piece : piece.replace(/</g, "&lt;")))
    .join("");
}

/** The words of the export: its header lines, its references and the check's notes. */
export interface ExportText extends CheckNoteText {
  references: string;
  page: string;
  writtenBy: string;
  exported: string;
  scopeKbs: string;
  allKbs: string;
  scopeDocuments: string;
  attachmentsLine: string;
}

/** What the conversation was asked against: knowledge bases (empty = all) and the titles of the picked sources (empty = every document). */
export interface ExportScope {
  kbs: readonly string[];
  documents: readonly string[];
  /** The export's date as the reader's locale writes it. */
  date: string;
}

const oneLine = (s: string) => htmlAsText(s.replace(/\s+/g, " ").trim());

/** The header under the title: one line each, joined as a Markdown line break list. */
function header(messages: readonly ChatUIMessage[], scope: ExportScope, t: ExportText): string {
  const attached = [...new Set(messages.flatMap((m) => (m.role === "user" ? (m.metadata?.attachments ?? []).map((a) => a.name) : [])))];
  const lines = [
    fill(t.exported, { date: scope.date }),
    fill(t.scopeKbs, { kbs: scope.kbs.length ? scope.kbs.join(", ") : t.allKbs }),
    ...(scope.documents.length ? [fill(t.scopeDocuments, { documents: scope.documents.join(", ") })] : []),
    ...(attached.length ? [fill(t.attachmentsLine, { names: attached.join(", ") })] : []),
  ];
  return lines.map((l) => `_${oneLine(l).replace(/_/g, "\\_")}_`).join("  \n");
}

export function conversationMarkdown(
  title: string,
  messages: readonly ChatUIMessage[],
  t: ExportText,
  origin: string,
  scope: ExportScope,
): string {
  // A conversation not yet saved has no title: it is named by its first question, as the history list names it.
  const firstQuestion = messages.find((m) => m.role === "user");
  const heading = oneLine(title) || (firstQuestion && oneLine(messageAnswerText(firstQuestion))) || "Conversation";
  const out = [`# ${heading}`, header(messages, scope, t)];
  let first = true;
  for (const m of messages) {
    if (m.role === "user") {
      const question = oneLine(messageAnswerText(m));
      // The title is most often the first question itself: it is not repeated as the first heading.
      if (question && !(first && question === heading)) out.push(`## ${question}`);
      first = false;
      continue;
    }
    if (m.role !== "assistant") continue;
    const answer = checkedAnswer(m);
    if (!answer.text.trim()) continue;
    const body = checkedMarkdown(answer, t, {
      heading: `#### ${t.references}\n`,
      page: (page) => fill(t.page, { page }),
      href: (c) => `${origin}${documentHref(c)}`,
      escape: withoutHtml,
    }).trim();
    // The model's name is text: a model name with `<` or `*` stays words.
    out.push(answer.model ? `${body}\n\n_${oneLine(fill(t.writtenBy, { model: answer.model })).replace(/[_*]/g, "\\$&")}_` : body);
  }
  return `${out.join("\n\n")}\n`;
}

/** A file name for the export: the title's letters and digits (any script), else "conversation". */
export function exportFileName(title: string): string {
  const base = title
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return `${base || "conversation"}.md`;
}
