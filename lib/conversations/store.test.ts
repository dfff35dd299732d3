import { Field, Int32, Schema } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { createOfflineEmbedder } from "@/lib/embed";
import { openStore, type Store } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { upsertRows } from "@/lib/store/tables";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { AppError } from "@/lib/types";
import { activePath, mergePath, normalizeTree, siblingsOf } from "./branches";
import { createConversationSchema, updateConversationSchema } from "./schema";
import { inLibrary } from "./scope";
import { type ConversationStore, openConversations, titleFrom } from "./store";

const OWNER: Principal = { kind: "owner", via: "local", caller: { address: "127.0.0.1", local: true } };
const msg = (id: string, role: "user" | "assistant", text: string) => ({ id, role, parts: [{ type: "text", text }] });

let temp: TempStore;
let documents: Store;
let store: ConversationStore;
beforeAll(async () => {
  temp = await openTempStore("conversations-test-", 64);
  documents = temp.store;
  store = await openConversations(documents);
});
afterAll(async () => {
  await temp?.close();
});

describe("conversation store", () => {
  it("creates, reads back, lists newest first, searches text and filters by knowledge base", async () => {
    const a = await store.create({
      kbs: ["hr"],
      messages: [msg("u1", "user", "How many days of annual leave?"), msg("a1", "assistant", "25 days [1].")],
    });
    expect(a.title).toBe("How many days of annual leave?");
    const b = await store.create({ title: "Plague notes", kbs: [], messages: [msg("u2", "user", "What was the Black Death?")] });
    expect((await store.get(a.id))?.messages).toEqual(a.messages);
    expect((await store.list()).map((c) => c.id)).toEqual([b.id, a.id]);
    expect((await store.list({ q: "black DEATH" })).map((c) => c.id)).toEqual([b.id]);
    expect((await store.list({ q: "plague" })).map((c) => c.id)).toEqual([b.id]);
    // A conversation over every knowledge base belongs to each; one limited to "hr" only to hr.
    expect((await store.list({ kb: "hr" })).map((c) => c.id).sort()).toEqual([a.id, b.id].sort());
    expect((await store.list({ kb: "legal" })).map((c) => c.id)).toEqual([b.id]);
    expect((await store.list({ q: "%" })).length).toBe(0);
  });

  it("renames, replaces messages (dropping feedback on answers that went away) and deletes", async () => {
    const c = await store.create({ messages: [msg("u1", "user", "q"), msg("a1", "assistant", "first answer")] });
    await store.setFeedback(c.id, { messageId: "a1", rating: "down", note: "wrong number" });
    expect((await store.get(c.id))?.feedback.a1).toMatchObject({ rating: "down", note: "wrong number" });
    const renamed = await store.update(c.id, { title: "Leave" });
    expect(renamed.title).toBe("Leave");
    expect(renamed.feedback.a1?.rating).toBe("down");
    const regenerated = await store.update(c.id, { messages: [msg("u1", "user", "q"), msg("a2", "assistant", "second answer")] });
    expect(regenerated.feedback).toEqual({});
    expect(regenerated.messageCount).toBe(2);
    expect(await store.delete(c.id)).toBe(true);
    expect(await store.get(c.id)).toBeNull();
    expect(await store.delete(c.id)).toBe(false);
  });

  it("refuses feedback on a message that is not an answer, and updates of unknown ids", async () => {
    const c = await store.create({ messages: [msg("u1", "user", "q")] });
    await expect(store.setFeedback(c.id, { messageId: "u1", rating: "up" })).rejects.toBeInstanceOf(AppError);
    await expect(store.update("nope", { title: "x" })).rejects.toMatchObject({ status: 404 });
    await expect(store.create({ id: c.id })).rejects.toMatchObject({ status: 409 });
  });

  it("is seen by a second connection to the same store (another process)", async () => {
    const c = await store.create({ title: "shared", messages: [] });
    const otherStore = await openStore({ uri: temp.dir, embedder: createOfflineEmbedder(64) });
    try {
      const other = await openConversations(otherStore);
      expect((await other.get(c.id))?.title).toBe("shared");
    } finally {
      otherStore.close();
    }
  });

  it("titles a conversation from its first question, cut at a word", () => {
    expect(titleFrom([msg("u", "user", "short question")])).toBe("short question");
    const long = titleFrom([msg("u", "user", "word ".repeat(30))]);
    expect(long.length).toBeLessThanOrEqual(61);
    expect(long.endsWith("…")).toBe(true);
  });

  it("keeps every version of a turn (parentId) and the feedback on each, and reads old conversations as one branch", async () => {
    const old = [
      msg("q1", "user", "Leave?"),
      msg("a1", "assistant", "20 days [1]."),
      msg("q2", "user", "Sick?"),
      msg("a2", "assistant", "Note [1]."),
    ];
    const c = await store.create({ messages: old });
    await store.setFeedback(c.id, { messageId: "a1", rating: "up" });
    // Regenerate the first answer: a sibling of a1, the later turn stays.
    const tree = mergePath(normalizeTree(old), [old[0], msg("a1b", "assistant", "Book in the portal [1].")]);
    const saved = await store.update(c.id, { messages: tree });
    expect(saved.feedback.a1?.rating).toBe("up");
    const back = (await store.get(c.id))!;
    expect(back.messages).toHaveLength(5);
    expect(activePath(normalizeTree(back.messages)).map((m) => m.id)).toEqual(["q1", "a1b"]);
    expect(siblingsOf(normalizeTree(back.messages), "a1").map((m) => m.id)).toEqual(["a1", "a1b"]);
  });

  it("saves the documents picked for a conversation and each question's own scope, and changes them on update", async () => {
    const asked = {
      ...msg("u1", "user", "What is in the memo?"),
      metadata: { documents: ["memo"], attachments: [{ id: "memo", name: "memo.md" }] },
    };
    const c = await store.create({ kbs: ["hr"], documents: ["a", "b"], messages: [asked] });
    expect(c.documents).toEqual(["a", "b"]);
    const back = (await store.get(c.id))!;
    expect(back.documents).toEqual(["a", "b"]);
    expect(back.messages[0].metadata).toEqual(asked.metadata);
    expect((await store.update(c.id, { documents: ["b"] })).documents).toEqual(["b"]);
    // A save of messages alone keeps the scope; an empty list means every document again.
    expect((await store.update(c.id, { messages: [asked] })).documents).toEqual(["b"]);
    expect((await store.update(c.id, { documents: [] })).documents).toEqual([]);
    expect((await store.get(c.id))!.documents).toEqual([]);
    expect(updateConversationSchema.safeParse({ documents: ["x".repeat(201)] }).success).toBe(false);
    expect(createConversationSchema.parse({}).documents).toEqual([]);
  });

  it("loads conversations saved before scopes were (no documents column): every document", async () => {
    const old = await openTempStore("conversations-old-", 64);
    try {
      const before = new Schema([
        ...["id", "title", "kbs", "scope", "messages", "feedback", "search_text", "created_at", "updated_at"].map((n) => textField(n)),
        new Field("message_count", new Int32(), false),
      ]);
      const side = await old.store.sideTable("conversations", before);
      const at = new Date().toISOString();
      const row = {
        id: "old1",
        title: "Old",
        kbs: "[]",
        scope: "",
        messages: JSON.stringify([msg("u", "user", "hi")]),
        feedback: "{}",
        search_text: "old\nhi",
        message_count: 1,
        created_at: at,
        updated_at: at,
      };
      await upsertRows(side, "id", [row]);
      expect((await side.table.schema()).fields.some((f) => f.name === "documents")).toBe(false);
      const conversations = await openConversations(old.store);
      const loaded = (await conversations.get("old1"))!;
      expect(loaded.documents).toEqual([]);
      expect(loaded.messages).toHaveLength(1);
      expect((await conversations.update("old1", { documents: ["d1"] })).documents).toEqual(["d1"]);
      expect((await conversations.get("old1"))!.documents).toEqual(["d1"]);
      expect((await conversations.list()).map((c) => c.id)).toEqual(["old1"]);
    } finally {
      await old.close();
    }
  });

  it("drops documents deleted from the library out of a saved scope, and says which", async () => {
    const at = new Date().toISOString();
    const doc = (id: string) => ({
      id,
      kb: "default",
      title: id,
      source: `${id}.md`,
      contentHash: id,
      size: 1,
      mimeType: "text/markdown",
      author: null,
      tags: [],
      origin: "upload" as const,
      chunkCount: 0,
      createdAt: at,
      updatedAt: at,
    });
    await documents.putDocument(doc("keep"), { text: "k" }, []);
    await documents.putDocument(doc("gone"), { text: "g" }, []);
    expect(await inLibrary(OWNER, documents, ["keep", "gone"])).toEqual({ documents: ["keep", "gone"], removed: [] });
    await documents.deleteDocument("gone");
    expect(await inLibrary(OWNER, documents, ["keep", "gone"])).toEqual({ documents: ["keep"], removed: ["gone"] });
    expect(await inLibrary(OWNER, documents, [])).toEqual({ documents: [], removed: [] });
  });
});
