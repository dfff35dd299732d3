/**
 * Conversation memory: which earlier turns the model sees.
 *
 * Earlier turns are passed as plain text (the question and the final answer); their tool calls and
 * retrieved chunks are not replayed, and their `[n]` markers are removed because citation numbers
 * belong to the turn that produced them. At most `maxTurns` turns (the current one included) are kept,
 * newest first, while they fit in `maxChars`. The current question is always kept, and the budget
 * applies to history only: the chunks retrieved in the current turn come on top of it, so older turns
 * are dropped before retrieved context ever is.
 */
import type { ModelMessage } from "ai";
import { stripCitations } from "./citations";

export interface PlainMessage {
  role: "user" | "assistant";
  text: string;
}

interface UIMessageLike {
  role: string;
  parts?: readonly { type: string; text?: unknown }[];
}

/** Text of a UI message's text parts (tool, data and reasoning parts are left out). */
export function messageText(m: UIMessageLike): string {
  return (m.parts ?? [])
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("")
    .trim();
}

export function toPlainMessages(messages: readonly UIMessageLike[]): PlainMessage[] {
  const out: PlainMessage[] = [];
  for (const m of messages) {
    if (m.role !== "user" && m.role !== "assistant") continue;
    const text = m.role === "assistant" ? stripCitations(messageText(m)).trim() : messageText(m);
    if (!text) continue;
    const prev = out.at(-1);
    // Two user messages in a row (a failed turn, then a retry) or two answers: keep the later one.
    if (prev && prev.role === m.role) out[out.length - 1] = { role: m.role, text };
    else out.push({ role: m.role, text });
  }
  return out;
}

export interface MemoryOptions {
  maxTurns: number;
  maxChars: number;
}

/** Model messages for this turn: recent history within the budget, ending with the user's question. */
export function selectHistory(messages: readonly PlainMessage[], opts: MemoryOptions): ModelMessage[] {
  const last = messages.at(-1);
  if (last?.role !== "user") return [];
  // Group into turns: a user message and the answer that followed it.
  const turns: PlainMessage[][] = [];
  for (const m of messages.slice(0, -1)) {
    if (m.role === "user" || turns.length === 0) turns.push([m]);
    else turns[turns.length - 1].push(m);
  }
  const kept: PlainMessage[][] = [];
  let used = last.text.length;
  for (let i = turns.length - 1; i >= 0 && kept.length + 1 < opts.maxTurns; i--) {
    const size = turns[i].reduce((s, m) => s + m.text.length, 0);
    if (used + size > opts.maxChars) break;
    used += size;
    kept.unshift(turns[i]);
  }
  const history = kept.flat();
  // A conversation must not start with an answer.
  while (history[0]?.role === "assistant") history.shift();
  return [...history, last].map((m) => ({ role: m.role, content: m.text }));
}
