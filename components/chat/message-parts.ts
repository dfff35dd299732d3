/** What a chat message carries, read from its parts: its text, its citations and its citation check. */
import type { ChatUIMessage, Citation, CitationCheck } from "@/lib/agent/protocol";

export function messageAnswerText(m: ChatUIMessage): string {
  return m.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/** The citation check of a finished answer (`data-check`), if the server sent one. */
export function checkOf(m: ChatUIMessage): CitationCheck | undefined {
  for (const p of m.parts) if (p.type === "data-check") return p.data;
  return undefined;
}

export function citationsOf(m: ChatUIMessage): Citation[] {
  for (let i = m.parts.length - 1; i >= 0; i--) {
    const p = m.parts[i];
    if (p.type === "data-citations") return p.data.citations;
  }
  return [];
}

/** The question an answer (`answerId`) replies to; without one, the last question. */
export function questionBefore<M extends { id: string; role: string }>(messages: M[], answerId?: string): M | undefined {
  const end = answerId ? messages.findIndex((m) => m.id === answerId) : -1;
  return (end >= 0 ? messages.slice(0, end) : messages).findLast((m) => m.role === "user");
}
