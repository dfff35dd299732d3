/**
 * A conversation's attachments: the files attached to its questions (each question's metadata names them). One
 * kept with the conversation (not added to the library) is deleted with it.
 */
import type { Principal } from "@/lib/auth/principal";
import { ownsAttachment } from "@/lib/auth/scope";
import type { Store } from "@/lib/store";
import type { StoredMessage } from "./schema";

/** The ids of the files attached to the questions of `messages` (every version of every turn). */
export function attachmentIdsOf(messages: readonly StoredMessage[]): string[] {
  const ids = new Set<string>();
  for (const m of messages) {
    const list = (m.metadata as { attachments?: unknown } | undefined)?.attachments;
    if (!Array.isArray(list)) continue;
    for (const a of list)
      if (a && typeof a === "object" && typeof (a as { id?: unknown }).id === "string") ids.add((a as { id: string }).id);
  }
  return [...ids];
}

/** Deletes the attachments of a conversation the principal deletes: those kept with it that it owns; returns how many. */
export async function deleteAttachments(p: Principal, store: Store, messages: readonly StoredMessage[]): Promise<number> {
  let deleted = 0;
  for (const doc of (await store.getDocuments(attachmentIdsOf(messages))).values()) {
    if (ownsAttachment(p, doc.kb) && (await store.deleteDocument(doc.id))) deleted++;
  }
  return deleted;
}
