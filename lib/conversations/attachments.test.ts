/**
 * A file attached to a question belongs to its conversation: only its owner reads it (by id), a question of someone
 * else cannot name it, no listing shows it, and deleting the conversation deletes it. Real LanceDB in a temp dir.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { User } from "@/lib/auth/accounts/types";
import type { Principal } from "@/lib/auth/principal";
import { mayReadKb } from "@/lib/auth/principal";
import { newAttachmentKb, questionDocuments, readableDocuments } from "@/lib/auth/scope";
import { ingestMarkdown } from "@/lib/ingest/test-kbs";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { attachmentIdsOf, deleteAttachments } from "./attachments";
import type { StoredMessage } from "./schema";

const user = (id: string, role: User["role"]): Principal => ({
  kind: "user",
  user: { id, email: `${id}@team.test`, name: id, role, kbs: ["hr"], passwordHash: null, origin: "local", createdAt: "" } as User,
  session: { hash: "h", userId: id, csrf: "c", createdAt: "", expiresAt: "" },
  caller: { address: "127.0.0.1", local: true },
});
const alice = user("usr_alice", "editor");
const bob = user("usr_bob", "admin");

let temp: TempStore;
let store: Store;
let mine: string;
let library: string;

beforeAll(async () => {
  temp = await openTempStore("attachments-test-");
  store = temp.store;
  const kb = newAttachmentKb(alice);
  await ingestMarkdown(store, kb, { "trip.md": "# Trip\n\nThe trip to Lyon costs 300 euros." });
  await ingestMarkdown(store, "hr", { "leave.md": "# Leave\n\nEmployees get 20 days of leave." });
  for (const d of await store.listDocuments()) if (d.source === "trip.md") mine = d.id;
  for (const d of await store.listDocuments()) if (d.source === "leave.md") library = d.id;
});

afterAll(async () => {
  await temp?.close();
});

const question = (attachments: { id: string; name: string }[]): StoredMessage => ({
  id: `q${attachments.length}`,
  role: "user",
  parts: [{ type: "text", text: "?" }],
  metadata: { documents: attachments.map((a) => a.id), attachments },
});

describe("attachments", () => {
  it("only the owner reads an attachment, by id; no one lists it, not even an admin", async () => {
    const kb = (await store.getDocument(mine))!.kb;
    expect(mayReadKb(alice)(kb)).toBe(false);
    expect(mayReadKb(bob)(kb)).toBe(false);
    expect([...(await readableDocuments(alice, store, [mine, library])).keys()].sort()).toEqual([mine, library].sort());
    expect([...(await readableDocuments(bob, store, [mine, library])).keys()]).toEqual([library]);
    expect(await store.listKbs()).toEqual(["hr"]);
  });

  it("a question names an attachment only when its owner asks", async () => {
    await expect(questionDocuments(alice, store, [mine, library])).resolves.toEqual([mine, library]);
    await expect(questionDocuments(bob, store, [library, mine])).rejects.toMatchObject({ code: "not_found" });
    await expect(questionDocuments(bob, store, undefined)).resolves.toBeUndefined();
  });

  it("deleting the conversation deletes its own attachments, not a document of the library", async () => {
    const messages = [
      question([{ id: mine, name: "trip.md" }]),
      question([
        { id: library, name: "leave.md" },
        { id: mine, name: "trip.md" },
      ]),
    ];
    expect(attachmentIdsOf(messages).sort()).toEqual([mine, library].sort());
    // Someone else's conversation naming it (it cannot, but a stored message could): nothing is deleted.
    expect(await deleteAttachments(bob, store, messages)).toBe(0);
    expect(await deleteAttachments(alice, store, messages)).toBe(1);
    expect(await store.getDocument(mine)).toBeNull();
    expect(await store.getDocument(library)).not.toBeNull();
  });
});
