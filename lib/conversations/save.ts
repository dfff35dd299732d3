/**
 * What a saved conversation holds is the server's to decide. The browser sends its messages, but:
 * - an answer is the server's own copy: the one the conversation already holds, or the one recorded as the chat
 *   streamed it (lib/conversations/answers.ts), with the knowledge bases its tool results drew from; an answer
 *   the server has no copy of is dropped (its later turns follow its question), so nothing stored claims a
 *   source, or holds a document, that the server did not see it draw on;
 * - a question keeps only its text (the asker's own words) and its metadata (the documents it was asked with).
 */

import type { Store } from "@/lib/store";
import { getAnswers } from "./answers";
import { normalizeTree } from "./branches";
import type { Conversation, CreateConversation, StoredMessage, UpdateConversation } from "./schema";
import { getConversations } from "./store";

/** A question as stored: its text parts and metadata, nothing the browser could pass off as the server's. */
function question(m: StoredMessage & { parentId: string | null }): StoredMessage {
  const { id, role, parentId, metadata } = m;
  const parts = m.parts.filter((p) => p.type === "text" && typeof p.text === "string").map((p) => ({ type: "text", text: p.text }));
  return { id, role, parentId, ...(metadata !== undefined ? { metadata } : {}), parts };
}

/**
 * The messages to store: `incoming` (as the browser sent them) with every answer replaced by the server's copy
 * — from `held` (the conversation's stored answers) or `recorded` — or dropped. `taken`: the recorded answers used.
 */
export function vetMessages(
  incoming: readonly StoredMessage[],
  held: readonly StoredMessage[],
  recorded: ReadonlyMap<string, StoredMessage>,
): { messages: StoredMessage[]; taken: string[] } {
  const heldAnswers = new Map(held.filter((m) => m.role === "assistant").map((m) => [m.id, m]));
  const taken: string[] = [];
  /** Where the children of a dropped answer now hang: its own parent. */
  const relinked = new Map<string, string | null>();
  const parentOf = (id: string | null) => {
    let p = id;
    for (let hops = 0; p !== null && relinked.has(p) && hops < incoming.length; hops++) p = relinked.get(p) ?? null;
    return p;
  };
  const out: StoredMessage[] = [];
  for (const m of normalizeTree(incoming)) {
    if (m.role !== "assistant") {
      out.push(question(m));
      continue;
    }
    const own = heldAnswers.get(m.id) ?? recorded.get(m.id);
    if (!own) {
      relinked.set(m.id, m.parentId);
      continue;
    }
    if (!heldAnswers.has(m.id)) taken.push(m.id);
    out.push({ ...own, parentId: m.parentId });
  }
  return { messages: out.map((m) => ({ ...m, parentId: parentOf(m.parentId as string | null) })), taken };
}

async function vetted(store: Store, owner: string | null, incoming: readonly StoredMessage[], held: readonly StoredMessage[]) {
  const answers = await getAnswers(store);
  const heldIds = new Set(held.map((m) => m.id));
  const asked = incoming.filter((m) => m.role === "assistant" && !heldIds.has(m.id)).map((m) => m.id);
  // The recorded question is the note's, not part of the stored answer.
  const recorded = new Map<string, StoredMessage>(
    [...(asked.length ? await answers.take(owner, asked) : [])].map(([id, { question: _, ...m }]) => [id, m]),
  );
  return { ...vetMessages(incoming, held, recorded), forget: (taken: string[]) => (taken.length ? answers.forget(taken) : undefined) };
}

/** Starts a conversation of `owner` (a user id; null for the admin secret's) with the server's copy of its answers. */
export async function createConversation(store: Store, owner: string | null, input: CreateConversation): Promise<Conversation> {
  const v = await vetted(store, owner, input.messages ?? [], []);
  const conversation = await (await getConversations(store)).create({ ...input, messages: v.messages });
  await v.forget(v.taken);
  return conversation;
}

/** Changes a conversation of `owner`; new messages are vetted as createConversation's are. */
export async function updateConversation(store: Store, owner: string | null, id: string, patch: UpdateConversation): Promise<Conversation> {
  const conversations = await getConversations(store);
  if (!patch.messages) return conversations.update(id, patch);
  const held = (await conversations.get(id))?.messages ?? [];
  const v = await vetted(store, owner, patch.messages, held);
  const conversation = await conversations.update(id, { ...patch, messages: v.messages });
  await v.forget(v.taken);
  return conversation;
}
