/**
 * A conversation as Markdown: each question as a heading, each answer with its citations renumbered as shown
 * and its numbered references, each a link to the passage in the app (`origin` + the document view).
 */

import { fill } from "@/components/fill";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { citationsOf, messageAnswerText } from "./message-parts";
import { answerWithReferences, displayCitations, documentHref } from "./sources";

export function conversationMarkdown(
  title: string,
  messages: readonly ChatUIMessage[],
  t: { references: string; page: string },
  origin: string,
): string {
  const out = [`# ${title.trim() || "Conversation"}`];
  for (const m of messages) {
    const text = messageAnswerText(m).trim();
    if (!text) continue;
    if (m.role === "user") {
      out.push(`## ${text.replace(/\s+/g, " ")}`);
      continue;
    }
    const { byN } = displayCitations(text, citationsOf(m));
    out.push(
      answerWithReferences(
        text,
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
