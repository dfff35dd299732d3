/**
 * "Save as note": an answer kept with its checked text and citations. The note is the server's own copy of the
 * answer — from the caller's saved conversation, or as recorded while it streamed — never what a browser sends.
 */
import { citedNumbers } from "@/lib/agent/citations";
import type { Citation, CitationCheck } from "@/lib/agent/protocol";
import type { Principal } from "@/lib/auth/principal";
import { requireOwn } from "@/lib/auth/scope";
import { getAnswers } from "@/lib/conversations/answers";
import type { StoredMessage } from "@/lib/conversations/schema";
import { getConversations } from "@/lib/conversations/store";
import type { Store } from "@/lib/store";
import { AppError } from "@/lib/types";
import { maySeeNote, noteOwnerOf } from "./access";
import { MAX_NOTE_TITLE_CHARS, type Note } from "./schema";
import { getNotes } from "./store";

type Part = { type: string; text?: unknown; data?: unknown };

const partsOf = (m: StoredMessage) => m.parts as Part[];
const textOf = (m: StoredMessage) =>
  partsOf(m)
    .map((p) => (p.type === "text" && typeof p.text === "string" ? p.text : ""))
    .join("");

/** The answer `messageId` of the caller: in their conversation when named and saved, else as recorded. */
async function answerOf(p: Principal, store: Store, messageId: string, conversationId?: string) {
  if (conversationId) {
    await requireOwn(p, store, "conversation", conversationId);
    const c = await (await getConversations(store)).get(conversationId);
    const i = c?.messages.findIndex((m) => m.id === messageId && m.role === "assistant") ?? -1;
    if (c && i >= 0) {
      const asked = c.messages.slice(0, i).findLast((m) => m.role === "user");
      return { answer: c.messages[i], question: asked ? textOf(asked) : undefined };
    }
  }
  const recorded = (await (await getAnswers(store)).take(noteOwnerOf(p) || null, [messageId])).get(messageId);
  if (recorded) {
    const { question, ...answer } = recorded;
    return { answer: answer as StoredMessage, question };
  }
  throw new AppError("not_found", "There is no such answer.");
}

/** A short title from the question (or the answer), cut at a word. */
function titleFrom(text: string): string {
  const t = text
    .replace(/\[\d+\]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  if (t.length <= 80) return t;
  const cut = t.slice(0, 80);
  const space = cut.lastIndexOf(" ");
  return `${(space > 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Keeps the caller's answer as a note, with the text its citation check left and the passages it cites. */
export async function saveAnswerAsNote(
  p: Principal,
  store: Store,
  input: { messageId: string; conversationId?: string; title?: string },
): Promise<Note> {
  const { answer, question } = await answerOf(p, store, input.messageId, input.conversationId);
  const check = partsOf(answer).find((x) => x.type === "data-check")?.data as CitationCheck | undefined;
  const citations = ((partsOf(answer).findLast((x) => x.type === "data-citations")?.data as { citations?: Citation[] } | undefined)
    ?.citations ?? []) as Citation[];
  const text = check?.text ?? textOf(answer);
  const cited = new Set(citedNumbers(text));
  const kept = citations.filter((c) => cited.has(c.n));
  if (!kept.length)
    throw new AppError("bad_request", "This answer cites no passage of the library: only a cited answer can be kept as a note.");
  const kbs = [...new Set(kept.map((c) => c.kb))];
  const model =
    (answer.metadata as { mode?: string; model?: string } | undefined)?.mode === "llm"
      ? (answer.metadata as { model?: string }).model
      : undefined;
  const note = {
    kind: "answer" as const,
    title: (input.title ?? titleFrom(question || text)).slice(0, MAX_NOTE_TITLE_CHARS) || "Note",
    kbs,
    text,
    ...(check ? { check } : {}),
    citations: kept,
    ...(question ? { question } : {}),
    ...(model ? { model } : {}),
  };
  if (!maySeeNote(p, { kbs, owner: noteOwnerOf(p) })) throw new AppError("not_found", "There is no such answer.");
  const { owner: _, ...saved } = await (await getNotes(store)).add(noteOwnerOf(p), note);
  return saved;
}
