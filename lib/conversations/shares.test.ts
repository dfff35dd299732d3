import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import type { TempStore } from "@/lib/store/temp-store";
import { openTempStore } from "@/lib/store/temp-store";
import { getPins, withPins } from "./pins";
import { shareTokenSchema } from "./schema";
import { citedKbs, getShares, sharedView } from "./shares";
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

  it("makes one link per conversation, finds it by token, and revokes it", async () => {
    const shares = await getShares(temp.store);
    const s = await shares.create("conv-1");
    expect(shareTokenSchema.safeParse(s.token).success).toBe(true);
    expect((await shares.create("conv-1")).token).toBe(s.token);
    expect((await shares.byToken(s.token))?.conversationId).toBe("conv-1");
    expect(await shares.revoke("conv-1")).toBe(true);
    expect(await shares.byToken(s.token)).toBeNull();
    expect(await shares.revoke("conv-1")).toBe(false);
  });

  it("shows the shown branch only to someone who may read every knowledge base it cites", async () => {
    const conversations = await getConversations(temp.store);
    const c = await conversations.create({
      messages: [
        { id: "q1", role: "user", parts: [{ type: "text", text: "Leave?" }] },
        { id: "a1", role: "assistant", parts: [{ type: "text", text: "25 days [1]." }, cite("hr")] },
        { id: "a1b", role: "assistant", parentId: "q1", parts: [{ type: "text", text: "Budget [1]." }, cite("finance")] },
      ],
    });
    expect(citedKbs(c.messages)).toEqual(["finance", "hr"]);
    // The shown branch is q1 → a1b (the last stored message): it cites finance only.
    const view = sharedView(reader(["finance"]), c);
    expect(view.messages.map((m) => m.id)).toEqual(["q1", "a1b"]);
    expect(() => sharedView(reader(["hr"]), c)).toThrow(expect.objectContaining({ status: 403 }));
    const limited = { ...c, kbs: ["legal"] };
    expect(() => sharedView(reader(["finance"]), limited)).toThrow(expect.objectContaining({ status: 403 }));
  });
});
