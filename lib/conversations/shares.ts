/**
 * Share links: a secret token that opens a read-only copy of a conversation (the shown branch) for a signed-in
 * person who may read every knowledge base whose content the conversation holds; the owner revokes it by
 * deleting the row.
 */
import { randomBytes } from "node:crypto";
import { Schema } from "apache-arrow";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { limitOfPrincipal, mayReadKb, type Principal } from "@/lib/auth/principal";
import { type AccessLimit, limitOf, mayRead } from "@/lib/auth/roles";
import { ownersOf } from "@/lib/auth/scope";
import { getStore, perStore, type Store } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq } from "@/lib/store/sql";
import { kbsOfToolResult } from "@/lib/tools/result-kbs";
import { AppError } from "@/lib/types";
import { activePath, normalizeTree } from "./branches";
import type { Conversation, SharedConversation, StoredMessage } from "./schema";
import { getConversations } from "./store";

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

/**
 * The knowledge bases whose content a set of messages holds: those the server recorded for each answer as it
 * streamed (lib/conversations/save.ts). An answer stored before that record existed counts the knowledge bases
 * its citations and tool results name (lib/tools/result-kbs.ts); `unknown` when one of its tool results names
 * none it can tell, so it may hold any.
 */
export function heldKbs(messages: readonly StoredMessage[]): { kbs: string[]; unknown: boolean } {
  const kbs = new Set<string>();
  let unknown = false;
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    if (Array.isArray(m.kbs)) {
      for (const kb of m.kbs) if (typeof kb === "string") kbs.add(kb);
      continue;
    }
    for (const p of m.parts) {
      if (p.type === "data-citations") {
        const citations = (p.data as { citations?: { kb?: unknown }[] } | undefined)?.citations;
        for (const c of citations ?? []) if (typeof c.kb === "string") kbs.add(c.kb);
      } else if (p.type === "dynamic-tool" || p.type.startsWith("tool-")) {
        if (p.state !== "output-available" && p.state !== "output-error") continue;
        const name = typeof p.toolName === "string" ? p.toolName : p.type.slice("tool-".length);
        const found = p.state === "output-available" ? kbsOfToolResult(name, p.output) : null;
        if (found) for (const kb of found) kbs.add(kb);
        else unknown = true;
      }
    }
  }
  return { kbs: [...kbs].sort(), unknown };
}

/**
 * Who made a share link, as the share check needs them: the access of their account now, or `null` when the
 * account is gone; `undefined` for a conversation made with the admin secret or on this machine (no account).
 */
type ShareMaker = AccessLimit | null | undefined;

const gone = () => new AppError("not_found", "This share link does not exist or was revoked.");

/** The access of the account that made conversation `id` now (see ShareMaker). */
async function makerOf(store: Store, id: string): Promise<ShareMaker> {
  const userId = (await ownersOf(store, "conversation")).get(id);
  if (userId === undefined) return undefined;
  const user = (await (await getAccountStore(store)).users()).get(userId);
  return user ? limitOf(user) : null;
}

/** What share link `token` shows `p` (sharedView); 404 for a link that does not exist or was revoked. */
export async function openShared(store: Store, p: Principal, token: string): Promise<SharedConversation> {
  const share = await (await getShares(store)).byToken(token);
  const conversation = share && (await (await getConversations(store)).get(share.conversationId));
  if (!conversation) throw gone();
  return sharedView(p, conversation, await makerOf(store, conversation.id));
}

/**
 * The read-only copy a share link shows `p`: the shown branch, when `p` may read every knowledge base whose
 * content the conversation holds (any branch of it) and every one it was limited to; 403 otherwise. The link
 * stops working (404) once the account that made it is removed or may no longer read all of them itself.
 */
export function sharedView(p: Principal, c: Conversation, maker?: ShareMaker): SharedConversation {
  const held = heldKbs(c.messages);
  const needed = [...new Set([...held.kbs, ...c.kbs])];
  if (maker === null) throw gone();
  if (maker && (held.unknown ? maker.kbs !== null : !needed.every((kb) => mayRead(maker, kb)))) throw gone();
  const readable = mayReadKb(p);
  if ((held.unknown && limitOfPrincipal(p).kbs !== null) || needed.some((kb) => !readable(kb)))
    throw new AppError("forbidden", "This shared conversation holds content of a knowledge base you may not read.");
  const messages = activePath(normalizeTree(c.messages)).map(({ parentId: _parent, kbs: _kbs, ...m }) => m);
  return { title: c.title, messages, updatedAt: c.updatedAt };
}
