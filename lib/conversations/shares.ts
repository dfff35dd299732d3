/**
 * Share links: a secret token that opens a read-only copy of a conversation (the shown branch) for a signed-in
 * person who may read every knowledge base the conversation cites; the owner revokes it by deleting the row.
 */
import { randomBytes } from "node:crypto";
import { Schema } from "apache-arrow";
import { mayReadKb, type Principal } from "@/lib/auth/principal";
import { getStore, perStore, type Store } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq } from "@/lib/store/sql";
import { AppError } from "@/lib/types";
import { activePath, normalizeTree } from "./branches";
import type { Conversation, SharedConversation, StoredMessage } from "./schema";

const SHARES_TABLE = "conversation_shares";
const sharesSchema = new Schema([textField("token"), textField("conversation_id"), textField("created_at")]);

interface Share {
  token: string;
  conversationId: string;
  createdAt: string;
}

export interface ShareStore {
  /** The conversation's link, if it has one. */
  of(conversationId: string): Promise<Share | null>;
  byToken(token: string): Promise<Share | null>;
  /** The existing link, or a new one. */
  create(conversationId: string): Promise<Share>;
  /** Revokes the conversation's link (also when the conversation is deleted); whether there was one. */
  revoke(conversationId: string): Promise<boolean>;
}

const toShare = (r: Record<string, unknown>): Share => ({
  token: String(r.token),
  conversationId: String(r.conversation_id),
  createdAt: String(r.created_at),
});

async function openShares(store: Store): Promise<ShareStore> {
  const side = await store.sideTable(SHARES_TABLE, sharesSchema);
  const first = async (where: string) => {
    const rows = await side.table.query().where(where).limit(1).toArray();
    return rows.length ? toShare(rows[0]) : null;
  };
  const of = (conversationId: string) => first(sqlEq("conversation_id", conversationId));
  return {
    of,
    byToken: (token) => first(sqlEq("token", token)),
    async create(conversationId) {
      const known = await of(conversationId);
      if (known) return known;
      // 24 random bytes: 32 base64url characters, as shareTokenSchema expects.
      const share = { token: randomBytes(24).toString("base64url"), conversationId, createdAt: new Date().toISOString() };
      await side.write((t) => t.add([{ token: share.token, conversation_id: conversationId, created_at: share.createdAt }]));
      return share;
    },
    async revoke(conversationId) {
      if (!(await of(conversationId))) return false;
      await side.write((t) => t.delete(sqlEq("conversation_id", conversationId)));
      return true;
    },
  };
}

const sharesOf = perStore("conversation-shares", openShares);

export async function getShares(store?: Store): Promise<ShareStore> {
  return sharesOf(store ?? (await getStore()));
}

/** The knowledge bases a set of messages draws on: those of every passage retrieved for its answers. */
export function citedKbs(messages: readonly StoredMessage[]): string[] {
  const kbs = new Set<string>();
  for (const m of messages)
    for (const p of m.parts) {
      const citations = p.type === "data-citations" ? (p.data as { citations?: { kb?: unknown }[] } | undefined)?.citations : undefined;
      for (const c of citations ?? []) if (typeof c.kb === "string") kbs.add(c.kb);
    }
  return [...kbs].sort();
}

/**
 * The read-only copy a share link shows `p`: the shown branch, when `p` may read every knowledge base it cites
 * and every one the conversation was limited to; 403 otherwise.
 */
export function sharedView(p: Principal, c: Conversation): SharedConversation {
  const messages = activePath(normalizeTree(c.messages)).map(({ parentId: _parent, ...m }) => m);
  const readable = mayReadKb(p);
  const missing = [...new Set([...citedKbs(messages), ...c.kbs])].filter((kb) => !readable(kb));
  if (missing.length) throw new AppError("forbidden", "This shared conversation cites a knowledge base you may not read.");
  return { title: c.title, messages, updatedAt: c.updatedAt };
}
