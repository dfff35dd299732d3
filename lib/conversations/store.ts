/**
 * The `conversations` table, a side table of the document store (like the knowledge-base registry).
 * Messages and feedback are JSON cells: a conversation is always read and written whole.
 */
import { randomUUID } from "node:crypto";
import { Field, Int32, Schema } from "apache-arrow";
import { getStore, perStore, type Store, serialQueue } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq } from "@/lib/store/sql";
import { addTextColumn, upsertRows } from "@/lib/store/tables";
import { AppError } from "@/lib/types";
import { wellFormedMessages } from "./parts";
import {
  type Conversation,
  type ConversationSummary,
  type CreateConversation,
  createConversationSchema,
  type Feedback,
  type FeedbackInput,
  MAX_TITLE_CHARS,
  type StoredMessage,
  type UpdateConversation,
} from "./schema";

const CONVERSATIONS_TABLE = "conversations";

const conversationsSchema = new Schema([
  textField("id"),
  textField("title"),
  textField("kbs"),
  textField("scope"),
  textField("messages"),
  // JSON list of the picked documents; null in rows written before it existed (read as every document).
  textField("documents", true),
  textField("feedback"),
  textField("search_text"),
  new Field("message_count", new Int32(), false),
  textField("created_at"),
  textField("updated_at"),
]);
const SUMMARY_COLUMNS = ["id", "title", "kbs", "message_count", "created_at", "updated_at"];

export interface ConversationStore {
  /** Newest first; `q` matches title and message text (case-insensitive); `kb` keeps those asked against it (or all). */
  list(opts?: { q?: string; kb?: string }): Promise<ConversationSummary[]>;
  get(id: string): Promise<Conversation | null>;
  create(input: CreateConversation): Promise<Conversation>;
  update(id: string, patch: UpdateConversation): Promise<Conversation>;
  delete(id: string): Promise<boolean>;
  setFeedback(id: string, input: FeedbackInput): Promise<Conversation>;
}

function textOf(m: StoredMessage): string {
  return m.parts.map((p) => (p.type === "text" && typeof p.text === "string" ? p.text : "")).join(" ");
}

/** A title from the first question, cut at a word (or after 60 characters). */
export function titleFrom(messages: StoredMessage[]): string {
  const first = messages.find((m) => m.role === "user");
  const text = first ? textOf(first).replace(/\s+/g, " ").trim() : "";
  if (text.length <= 60) return text;
  const cut = text.slice(0, 60);
  const space = cut.lastIndexOf(" ");
  return `${(space > 30 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function parseJson<T>(s: unknown, fallback: T): T {
  try {
    return JSON.parse(String(s)) as T;
  } catch {
    return fallback;
  }
}

/** A row's messages as the views may read them: a message or part that is not well formed is left out. */
const storedMessages = (json: unknown): StoredMessage[] => wellFormedMessages(parseJson<unknown>(json, []));

function rowToSummary(r: Record<string, unknown>): ConversationSummary {
  return {
    id: String(r.id),
    title: String(r.title),
    kbs: parseJson<string[]>(r.kbs, []),
    messageCount: Number(r.message_count),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

function toRow(c: Conversation): Record<string, unknown> {
  const kbs = [...c.kbs].sort();
  return {
    id: c.id,
    title: c.title,
    kbs: JSON.stringify(kbs),
    // ",a,b," so one knowledge base is found by ",a,"; "" = every knowledge base.
    scope: kbs.length ? `,${kbs.join(",")},` : "",
    documents: JSON.stringify(c.documents),
    messages: JSON.stringify(c.messages),
    feedback: JSON.stringify(c.feedback),
    search_text: `${c.title}\n${c.messages.map(textOf).join("\n")}`.toLowerCase(),
    message_count: c.messages.length,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** The conversations in the side table of `store` (compacted by the store's background maintenance). */
export async function openConversations(store: Store): Promise<ConversationStore> {
  const side = await store.sideTable(CONVERSATIONS_TABLE, conversationsSchema);
  await addTextColumn(side, "documents");

  const serialized = serialQueue();

  const read = async (id: string): Promise<Conversation | null> => {
    const rows = await side.table.query().where(sqlEq("id", id)).limit(1).toArray();
    if (!rows.length) return null;
    const r = rows[0];
    return {
      ...rowToSummary(r),
      documents: r.documents == null ? [] : parseJson<string[]>(r.documents, []),
      messages: storedMessages(r.messages),
      feedback: parseJson<Record<string, Feedback>>(r.feedback, {}),
    };
  };
  const write = async (c: Conversation) => {
    await upsertRows(side, "id", [toRow(c)]);
  };
  const mustRead = async (id: string) => {
    const c = await read(id);
    if (!c) throw new AppError("not_found", `No conversation with id "${id}".`);
    return c;
  };

  return {
    async list(opts = {}) {
      // Filtered here rather than in SQL: a conversation list is small, and user text never meets a LIKE pattern.
      const rows = await side.table
        .query()
        .select([...SUMMARY_COLUMNS, "search_text", "scope"])
        .toArray();
      const needle = opts.q?.toLowerCase();
      return rows
        .filter((r) => !needle || String(r.search_text).includes(needle))
        .filter((r) => !opts.kb || r.scope === "" || String(r.scope).includes(`,${opts.kb},`))
        .map(rowToSummary)
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    },
    get: read,
    create(input) {
      const parsed = createConversationSchema.parse(input);
      return serialized(async () => {
        const id = parsed.id ?? randomUUID();
        if (await read(id)) throw new AppError("conflict", `A conversation with id "${id}" already exists.`);
        const now = new Date().toISOString();
        const c: Conversation = {
          id,
          title: (parsed.title || titleFrom(parsed.messages)).slice(0, MAX_TITLE_CHARS),
          kbs: parsed.kbs,
          documents: parsed.documents,
          messages: parsed.messages,
          feedback: {},
          messageCount: parsed.messages.length,
          createdAt: now,
          updatedAt: now,
        };
        await write(c);
        return c;
      });
    },
    update(id, patch) {
      return serialized(async () => {
        const c = await mustRead(id);
        if (patch.kbs) c.kbs = patch.kbs;
        if (patch.documents) c.documents = patch.documents;
        if (patch.messages) {
          c.messages = patch.messages;
          c.messageCount = patch.messages.length;
          // Feedback on answers that are no longer there (regenerated, edited away) goes with them.
          const ids = new Set(patch.messages.map((m) => m.id));
          c.feedback = Object.fromEntries(Object.entries(c.feedback).filter(([k]) => ids.has(k)));
          if (!c.title) c.title = titleFrom(c.messages).slice(0, MAX_TITLE_CHARS);
        }
        if (patch.title) c.title = patch.title;
        c.updatedAt = new Date().toISOString();
        await write(c);
        return c;
      });
    },
    delete(id) {
      return serialized(async () => {
        if (!(await read(id))) return false;
        await side.write((t) => t.delete(sqlEq("id", id)));
        return true;
      });
    },
    setFeedback(id, input) {
      return serialized(async () => {
        const c = await mustRead(id);
        const m = c.messages.find((x) => x.id === input.messageId);
        if (m?.role !== "assistant") throw new AppError("not_found", `No answer with id "${input.messageId}" in this conversation.`);
        if (input.rating === null) delete c.feedback[input.messageId];
        else
          c.feedback[input.messageId] = { rating: input.rating, ...(input.note ? { note: input.note } : {}), at: new Date().toISOString() };
        // Feedback does not move the conversation up the list: updatedAt is about the chat itself.
        await write(c);
        return c;
      });
    },
  };
}

const conversationsOf = perStore("conversations", openConversations);

/** The process-wide conversation store of `store` (default: the process-wide store, getStore()). */
export async function getConversations(store?: Store): Promise<ConversationStore> {
  return conversationsOf(store ?? (await getStore()));
}
