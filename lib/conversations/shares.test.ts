import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import type { TempStore } from "@/lib/store/temp-store";
import { openTempStore } from "@/lib/store/temp-store";
import { getPins, withPins } from "./pins";
import { shareTokenSchema } from "./schema";
import { changedSince, getShares, heldKbs, sharedView, snapshotOf } from "./shares";
import { getConversations } from "./store";

const cite = (kb: string) => ({ type: "data-citations", data: { citations: [{ n: 1, kb, chunk_id: `${kb}-c` }] } });
const reader = (kbs: string[]): Principal =>
  ({ kind: "user", user: { id: "u", email: "u@x", name: "u", role: "reader", kbs }, session: {}, caller: {} }) as unknown as Principal;

let temp: TempStore;
beforeAll(async () => {
  temp = await openTempStore("conversation-shares-test-", 64);
});
afterAll(async () => {
  await temp?.close();
});

describe("pins and share links", () => {
  it("lists pinned conversations first, most recently pinned first, and unpins", async () => {
    const pins = await getPins(temp.store);
    const list = ["a", "b", "c"].map((id) => ({ id, title: id, kbs: [], messageCount: 0, createdAt: "", updatedAt: "" }));
    await pins.set("c", true);
    await new Promise((r) => setTimeout(r, 5));
    await pins.set("b", true);
    expect(withPins(list, await pins.all()).map((c) => [c.id, c.pinned])).toEqual([
      ["b", true],
      ["c", true],
      ["a", false],
    ]);
    await pins.set("b", false);
    expect(withPins(list, await pins.all()).map((c) => c.id)).toEqual(["c", "a", "b"]);
  });

  it("makes one link per conversation, finds it by token, updates its snapshot under the same token, and revokes it", async () => {
    const shares = await getShares(temp.store);
    const snap = { title: "t", kbs: [], messages: [{ id: "q", role: "user" as const, parts: [{ type: "text", text: "Hi" }] }] };
    const s = await shares.create("conv-1", snap);
    expect(shareTokenSchema.safeParse(s.token).success).toBe(true);
    expect((await shares.create("conv-1", { ...snap, title: "other" })).token).toBe(s.token);
    expect((await shares.byToken(s.token))?.snapshot).toEqual(snap);
    const later = { ...snap, title: "t2" };
    const updated = await shares.update("conv-1", later);
    expect(updated?.token).toBe(s.token);
    expect((await shares.byToken(s.token))?.snapshot).toEqual(later);
    expect((await shares.all()).map((x) => x.conversationId)).toContain("conv-1");
    expect(await shares.update("conv-none", later)).toBeNull();
    expect(await shares.revoke("conv-1")).toBe(true);
    expect(await shares.byToken(s.token)).toBeNull();
    expect(await shares.revoke("conv-1")).toBe(false);
  });

  it("stores a snapshot only when it passes the conversations' validation, and drops malformed parts as they do", async () => {
    const shares = await getShares(temp.store);
    const bad = { title: "x".repeat(500), kbs: [], messages: [] };
    await expect(shares.create("conv-bad", bad)).rejects.toThrow();
    expect(await shares.of("conv-bad")).toBeNull();
    const malformed = {
      title: "t",
      kbs: [],
      messages: [
        {
          id: "a",
          role: "assistant" as const,
          parts: [
            { type: "text", text: "ok" },
            { type: "data-citations", data: { citations: "no" } },
          ],
        },
      ],
    };
    await shares.create("conv-parts", malformed);
    expect((await shares.of("conv-parts"))?.snapshot).toEqual({
      ...malformed,
      messages: [{ ...malformed.messages[0], parts: [{ type: "text", text: "ok" }] }],
    });
  });

  it("is a snapshot: shows the shown branch as shared, not what was asked later, to whoever may read what the snapshot holds", async () => {
    const conversations = await getConversations(temp.store);
    const c = await conversations.create({
      messages: [
        { id: "q1", role: "user", parts: [{ type: "text", text: "Leave?" }] },
        { id: "a1", role: "assistant", kbs: ["hr"], parts: [{ type: "text", text: "25 days [1]." }, cite("hr")] },
        { id: "a1b", role: "assistant", kbs: ["finance"], parentId: "q1", parts: [{ type: "text", text: "Budget [1]." }, cite("finance")] },
      ],
    });
    expect(heldKbs(c.messages)).toEqual({ kbs: ["finance", "hr"], unknown: false });
    // The shown branch is q1 → a1b (the last stored message): the snapshot holds that branch only.
    const snap = snapshotOf(c);
    expect(snap.messages.map((m) => m.id)).toEqual(["q1", "a1b"]);
    const view = sharedView(reader(["finance"]), snap, "2026-01-01");
    expect(view.messages.map((m) => m.id)).toEqual(["q1", "a1b"]);
    expect(view.messages.some((m) => "kbs" in m || "parentId" in m)).toBe(false);
    expect(() => sharedView(reader(["hr"]), snap, "")).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => sharedView(reader(["finance"]), { ...snap, kbs: ["legal"] }, "")).toThrow(expect.objectContaining({ status: 403 }));
    // A question asked later is not in the link until the owner updates it.
    const later = await conversations.update(c.id, {
      messages: [
        ...c.messages,
        { id: "q2", role: "user", parentId: "a1b", parts: [{ type: "text", text: "And the secret?" }] },
        { id: "a2", role: "assistant", parentId: "q2", kbs: ["hr"], parts: [{ type: "text", text: "NIGHTINGALE [1]." }, cite("hr")] },
      ],
    });
    expect(changedSince(snap, later)).toBe(true);
    expect(changedSince(snap, c)).toBe(false);
    expect(sharedView(reader(["finance"]), snap, "").messages.map((m) => m.id)).toEqual(["q1", "a1b"]);
    // Updated, it holds hr's content too: a finance-only reader is told which knowledge base and whom to ask.
    const maker = { id: "alice", limit: { kbs: ["finance", "hr"], write: false }, name: "Alice <alice@x>" };
    const refused = (() => {
      try {
        sharedView(reader(["finance"]), snapshotOf(later), "", maker);
      } catch (err) {
        return err as { status: number; message: string; detail: unknown };
      }
    })();
    expect(refused?.status).toBe(403);
    expect(refused?.detail).toEqual({ kbs: ["hr"], sharedBy: "Alice <alice@x>" });
    expect(refused?.message).toContain('"hr"');
    expect(refused?.message).not.toContain("403");
  });

  it("counts the knowledge bases the server recorded for an answer, not the citations it carries", () => {
    // read_document's answer: a tool result and no citation, recorded as drawing on "secret".
    const read = {
      type: "dynamic-tool",
      toolName: "read_document",
      toolCallId: "c1",
      state: "output-available",
      input: { document_id: "d1" },
      output: { structuredContent: { document: { id: "d1", title: "Plan", source: "plan.md", kb: "secret" }, text: "NIGHTINGALE-7731" } },
    };
    const recorded = [{ id: "a", role: "assistant" as const, kbs: ["secret"], parts: [read, cite("default")] }];
    expect(heldKbs(recorded)).toEqual({ kbs: ["secret"], unknown: false });
    // An answer stored before answers were recorded: its tool results name their knowledge bases.
    const legacy = [{ id: "a", role: "assistant" as const, parts: [{ type: "text", text: "NIGHTINGALE-7731" }, read] }];
    expect(heldKbs(legacy)).toEqual({ kbs: ["secret"], unknown: false });
    const c = { title: "t", kbs: [] };
    expect(() => sharedView(reader(["default"]), { ...c, messages: legacy }, "")).toThrow(expect.objectContaining({ status: 403 }));
    expect(sharedView(reader(["default", "secret"]), { ...c, messages: legacy }, "").messages).toHaveLength(1);
    // A tool result whose knowledge bases cannot be told (the connectors' search): only for who may read them all.
    const search = { ...read, toolName: "search", output: { structuredContent: { results: [{ id: "x", title: "Plan", url: "u" }] } } };
    const unknown = [{ id: "a", role: "assistant" as const, parts: [search] }];
    expect(heldKbs(unknown).unknown).toBe(true);
    expect(() => sharedView(reader(["default", "secret"]), { ...c, messages: unknown }, "")).toThrow(
      expect.objectContaining({ status: 403 }),
    );
    const admin = { kind: "owner", via: "local", caller: {} } as unknown as Principal;
    expect(sharedView(admin, { ...c, messages: unknown }, "").messages).toHaveLength(1);
  });

  it("stops working once the account that made it is gone or may no longer read what it holds", () => {
    const snap = {
      title: "t",
      kbs: [],
      messages: [{ id: "a", role: "assistant" as const, kbs: ["hr"], parts: [{ type: "text", text: "25 days" }] }],
    };
    expect(sharedView(reader(["hr"]), snap, "", { id: "m", limit: { kbs: ["hr"], write: false }, name: "a" }).title).toBe("t");
    expect(() => sharedView(reader(["hr"]), snap, "", null)).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => sharedView(reader(["hr"]), snap, "", { id: "m", limit: { kbs: [], write: false }, name: "a" })).toThrow(
      expect.objectContaining({ status: 404 }),
    );
  });

  it("shares what an answer quoted from a file its maker attached, and never a file someone else attached", () => {
    const quoting = (kb: string) => ({
      title: "t",
      kbs: [],
      messages: [{ id: "a", role: "assistant" as const, kbs: ["hr", kb], parts: [{ type: "text", text: "25 days [1]" }, cite(kb)] }],
    });
    const maker = { id: "m", limit: { kbs: ["hr"], write: true }, name: "Maker" };
    expect(sharedView(reader(["hr"]), quoting("~m~0b7c"), "", maker).messages).toHaveLength(1);
    // The local owner (no account) attaches into "~~<uuid>" and shares a conversation that has no recorded maker.
    expect(sharedView(reader(["hr"]), quoting("~~0b7c"), "").messages).toHaveLength(1);
    expect(() => sharedView(reader(["hr"]), quoting("~other~0b7c"), "", maker)).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => sharedView(reader(["hr"]), quoting("~~0b7c"), "", maker)).toThrow(expect.objectContaining({ status: 404 }));
  });
});
