/**
 * A conversation as Markdown: each question as a heading, each answer with its citations renumbered as shown
 * and its numbered references, each a link to the passage in the app (`origin` + the document view). No HTML
 * survives into it: titles, questions and reference labels are text, and an answer's `<` outside code is
 * written as `&lt;` (a document quoted with `<img onerror=…>` stays words wherever the file is opened).
 */

import { fill } from "@/components/fill";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { citationsOf, messageAnswerText } from "./message-parts";
import { answerWithReferences, displayCitations, documentHref, htmlAsText } from "./sources";

/** Markdown with every `<` outside code spans and fenced blocks written as `&lt;`: no tag, no HTML comment. */
function withoutHtml(markdown: string): string {
  return markdown
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/)
    .map((piece, i) => (i % 2 ? piece : piece.replace(/</g, "&lt;")))
    .join("");
}

export function conversationMarkdown(
  title: string,
  messages: readonly ChatUIMessage[],
  t: { references: string; page: string },
  origin: string,
): string {
  const out = [`# ${htmlAsText(title.trim() || "Conversation")}`];
  for (const m of messages) {
    const text = messageAnswerText(m).trim();
    if (!text) continue;
    if (m.role === "user") {
      out.push(`## ${htmlAsText(text.replace(/\s+/g, " "))}`);
      continue;
    }
    const { byN } = displayCitations(text, citationsOf(m));
    out.push(
      answerWithReferences(
        withoutHtml(text),
        byN,
        `#### ${t.references}\n`,
        (page) => fill(t.page, { page }),
        (c) => `${origin}${documentHref(c)}`,
      ).trim(),
    );
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
