/**
 * Share links: a secret token that opens a read-only SNAPSHOT of a conversation — its shown branch and title as
 * they were when the owner made or last updated the link — for a signed-in person who may read every knowledge
 * base whose content the snapshot holds. Messages added later stay private until the owner updates the link;
 * the owner revokes it by deleting the row.
 */
import { randomBytes } from "node:crypto";
import { Schema } from "apache-arrow";
import { z } from "zod";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { limitOfPrincipal, mayReadKb, type Principal } from "@/lib/auth/principal";
import { type AccessLimit, limitOf, mayRead } from "@/lib/auth/roles";
import { ownersOf } from "@/lib/auth/scope";
import { kbListSchema } from "@/lib/kb/names";
import { getStore, perStore, type Store } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq } from "@/lib/store/sql";
import { addTextColumn, upsertRows } from "@/lib/store/tables";
import { kbsOfToolResult } from "@/lib/tools/result-kbs";
import { attachmentOwnerOf, isAttachmentKb } from "@/lib/tools/scope";
import { AppError } from "@/lib/types";
import { activePath, normalizeTree } from "./branches";
import { wellFormedMessages } from "./parts";
import {
  type Conversation,
  MAX_CONVERSATION_MESSAGES,
  MAX_TITLE_CHARS,
  type SharedConversation,
  type ShareLink,
  type StoredMessage,
} from "./schema";
import { getConversations } from "./store";

const SHARES_TABLE = "conversation_shares";
// `snapshot` (JSON) and `updated_at` are null in rows written before links were snapshots.
const sharesSchema = new Schema([
  textField("token"),
  textField("conversation_id"),
  textField("created_at"),
  textField("snapshot", true),
  textField("updated_at", true),
]);

/** What a link shows: the conversation's shown branch (each answer with the knowledge bases it drew on), title and limits. */
export interface ShareSnapshot {
  title: string;
  /** The knowledge bases the conversation was limited to. */
  kbs: string[];
  messages: StoredMessage[];
}

/** A stored snapshot passes the conversations' own validation: a message or part that is not well formed is left out. */
const snapshotSchema = z.object({
  title: z.string().max(MAX_TITLE_CHARS),
  kbs: kbListSchema,
  messages: z.array(z.unknown()).max(MAX_CONVERSATION_MESSAGES),
});

interface Share {
  token: string;
  conversationId: string;
  createdAt: string;
  updatedAt: string;
  /** null: a link made before links were snapshots; "invalid": a stored snapshot that fails validation. */
  snapshot: ShareSnapshot | null | "invalid";
}

/** The snapshot a link of conversation `c` takes now: its shown branch, title and limits. */
export function snapshotOf(c: Pick<Conversation, "title" | "kbs" | "messages">): ShareSnapshot {
  const messages = activePath(normalizeTree(c.messages)).map(({ parentId: _parent, ...m }) => m);
  return { title: c.title, kbs: [...c.kbs], messages };
}

function parseSnapshot(json: unknown): ShareSnapshot | "invalid" {
  let raw: unknown;
  try {
    raw = JSON.parse(String(json));
  } catch {
    return "invalid";
  }
  const parsed = snapshotSchema.safeParse(raw);
  return parsed.success ? { ...parsed.data, messages: wellFormedMessages(parsed.data.messages) } : "invalid";
}

/** Whether conversation `c` now holds what snapshot `s` does not show: other messages, title or limits. */
export function changedSince(s: ShareSnapshot, c: Conversation): boolean {
  const now = snapshotOf(c);
  const ids = (x: ShareSnapshot) => x.messages.map((m) => m.id).join("\n");
  return now.title !== s.title || ids(now) !== ids(s) || [...now.kbs].sort().join() !== [...s.kbs].sort().join();
}

/** The link as its owner sees it. */
export function shareLinkOf(share: Share, c: Conversation | null): ShareLink {
  const { token, conversationId, createdAt, updatedAt } = share;
  const stale = !!c && (share.snapshot === null || share.snapshot === "invalid" || changedSince(share.snapshot, c));
  return { token, conversationId, createdAt, updatedAt, stale };
}

export interface ShareStore {
  /** The conversation's link, if it has one. */
  of(conversationId: string): Promise<Share | null>;
  byToken(token: string): Promise<Share | null>;
  /** Every link (owners are checked by the caller). */
  all(): Promise<Share[]>;
  /** The existing link, or a new one showing `snapshot`. */
  create(conversationId: string, snapshot: ShareSnapshot): Promise<Share>;
  /** The link, same token, now showing `snapshot`; null when the conversation has no link. */
  update(conversationId: string, snapshot: ShareSnapshot): Promise<Share | null>;
  /** Revokes the conversation's link (also when the conversation is deleted); whether there was one. */
  revoke(conversationId: string): Promise<boolean>;
}

const toShare = (r: Record<string, unknown>): Share => ({
  token: String(r.token),
  conversationId: String(r.conversation_id),
  createdAt: String(r.created_at),
  updatedAt: String(r.updated_at ?? r.created_at),
  snapshot: r.snapshot == null ? null : parseSnapshot(r.snapshot),
});

function toRow(share: Omit<Share, "snapshot">, snapshot: ShareSnapshot) {
  const valid = snapshotSchema.parse(snapshot);
  return {
    token: share.token,
    conversation_id: share.conversationId,
    created_at: share.createdAt,
    updated_at: share.updatedAt,
    snapshot: JSON.stringify({ ...valid, messages: wellFormedMessages(valid.messages) }),
  };
}

async function openShares(store: Store): Promise<ShareStore> {
  const side = await store.sideTable(SHARES_TABLE, sharesSchema);
  await addTextColumn(side, "snapshot");
  await addTextColumn(side, "updated_at");
  const first = async (where: string) => {
    const rows = await side.table.query().where(where).limit(1).toArray();
    return rows.length ? toShare(rows[0]) : null;
  };
  const of = (conversationId: string) => first(sqlEq("conversation_id", conversationId));
  return {
    of,
    byToken: (token) => first(sqlEq("token", token)),
    async all() {
      const rows = await side.table.query().select(["token", "conversation_id", "created_at", "updated_at"]).toArray();
      return rows.map(toShare);
    },
    async create(conversationId, snapshot) {
      const known = await of(conversationId);
      if (known) return known;
      const now = new Date().toISOString();
      // 24 random bytes: 32 base64url characters, as shareTokenSchema expects.
      const share = { token: randomBytes(24).toString("base64url"), conversationId, createdAt: now, updatedAt: now };
      await side.write((t) => t.add([toRow(share, snapshot)]));
      return { ...share, snapshot };
    },
    async update(conversationId, snapshot) {
      const known = await of(conversationId);
      if (!known) return null;
      const share = { ...known, updatedAt: new Date().toISOString() };
      await upsertRows(side, "token", [toRow(share, snapshot)]);
      return { ...share, snapshot };
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
 * Who made a share link, as the share check needs them: the access of their account now and the name to ask for
 * access, or `null` when the account is gone; `undefined` for a conversation made with the admin secret or on
 * this machine (no account).
 */
type ShareMaker = { id: string; limit: AccessLimit; name: string } | null | undefined;

const gone = () => new AppError("not_found", "This share link does not exist or was revoked.");

/** Who made conversation `id`, now (see ShareMaker). */
async function makerOf(store: Store, id: string): Promise<ShareMaker> {
  const userId = (await ownersOf(store, "conversation")).get(id);
  if (userId === undefined) return undefined;
  const user = (await (await getAccountStore(store)).users()).get(userId);
  if (!user) return null;
  return { id: user.id, limit: limitOf(user), name: user.name && user.name !== user.email ? `${user.name} <${user.email}>` : user.email };
}

/**
 * What share link `token` shows `p` (sharedView); 404 for a link that does not exist or was revoked. A link made
 * before links were snapshots takes its snapshot now, from the conversation as it is.
 */
export async function openShared(store: Store, p: Principal, token: string): Promise<SharedConversation> {
  const shares = await getShares(store);
  let share = await shares.byToken(token);
  const conversation = share && (await (await getConversations(store)).get(share.conversationId));
  if (!share || !conversation || share.snapshot === "invalid") throw gone();
  if (share.snapshot === null) share = await shares.update(share.conversationId, snapshotOf(conversation));
  if (!share || share.snapshot === null || share.snapshot === "invalid") throw gone();
  return sharedView(p, share.snapshot, share.updatedAt, await makerOf(store, conversation.id));
}

/**
 * The read-only copy a share link shows `p`: the snapshot (taken at `at`), when `p` may read every knowledge base
 * whose content it holds — counted from the snapshot itself, tool results included — and every one the
 * conversation was limited to; 403 otherwise, naming the knowledge bases `p` lacks and whom to ask. The link stops
 * working (404) once the account that made it is removed or may no longer read all of them itself.
 */
export function sharedView(p: Principal, snapshot: ShareSnapshot, at: string, maker?: ShareMaker): SharedConversation {
  const held = heldKbs(snapshot.messages);
  // A file the maker attached to the conversation goes with it: sharing the conversation shares what it quoted from
  // the file, which no one else may read otherwise (lib/auth/scope.ts). Someone else's attachment is never shared.
  const makersAttachment = (kb: string) => isAttachmentKb(kb) && attachmentOwnerOf(kb) === (maker ? maker.id : null);
  const needed = [...new Set([...held.kbs, ...snapshot.kbs])].filter((kb) => !makersAttachment(kb)).sort();
  if (maker === null) throw gone();
  if (maker && (held.unknown ? maker.limit.kbs !== null : !needed.every((kb) => mayRead(maker.limit, kb)))) throw gone();
  const readable = mayReadKb(p);
  const missing = needed.filter((kb) => !readable(kb));
  if ((held.unknown && limitOfPrincipal(p).kbs !== null) || missing.length) {
    const ask = maker ? `${maker.name} (who shared it) or an administrator` : "an administrator";
    const which = missing.length ? `the knowledge base ${missing.map((kb) => `"${kb}"`).join(", ")}` : "knowledge bases";
    throw new AppError(
      "forbidden",
      `This shared conversation quotes ${which}, which you may not read. Ask ${ask} for access.`,
      undefined,
      undefined,
      { kbs: missing, ...(maker ? { sharedBy: maker.name } : {}) },
    );
  }
  const messages = snapshot.messages.map(({ kbs: _kbs, ...m }) => m);
  return { title: snapshot.title, messages, updatedAt: at };
}
