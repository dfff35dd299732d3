/** Custom instructions of a knowledge base: stored with it (a store from before them gets the column), kept on rename. */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Field, Schema, Utf8 } from "apache-arrow";
import { afterEach, describe, expect, it } from "vitest";
import { createOfflineEmbedder } from "@/lib/embed";
import { createKnowledgeBase, getKnowledgeBase } from "@/lib/kb";
import { instructionsFor } from "@/lib/kb/names";
import { openRegistry } from "@/lib/kb/registry";
import { openStore, type Store } from "@/lib/store";
import { updateKnowledgeBase } from "./knowledge-bases";

const dirs: string[] = [];
const stores: Store[] = [];
async function freshStore(): Promise<{ dir: string; store: Store }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "kb-instructions-"));
  dirs.push(dir);
  const store = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
  stores.push(store);
  return { dir, store };
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe("knowledge-base custom instructions", () => {
  it("stores them with the knowledge base, trims them, keeps them on rename and across a reopen", async () => {
    const { dir, store } = await freshStore();
    const registry = await openRegistry(store);
    await createKnowledgeBase(store, registry, { name: "hr", title: "Human Resources" });
    expect((await getKnowledgeBase(store, registry, "hr"))!.instructions).toBe("");
    await updateKnowledgeBase(store, registry, "hr", { instructions: "  Answer formally. Decline salary questions.  " });
    expect((await getKnowledgeBase(store, registry, "hr"))!.instructions).toBe("Answer formally. Decline salary questions.");
    await updateKnowledgeBase(store, registry, "hr", { name: "people" });
    expect((await getKnowledgeBase(store, registry, "people"))!.instructions).toBe("Answer formally. Decline salary questions.");
    await store.close();
    stores.length = 0;
    const again = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
    stores.push(again);
    expect((await getKnowledgeBase(again, await openRegistry(again), "people"))!.instructions).toBe(
      "Answer formally. Decline salary questions.",
    );
  });

  it("adds the column to a knowledge-base table made before instructions existed, keeping its rows", async () => {
    const { store } = await freshStore();
    const str = (n: string) => new Field(n, new Utf8(), false);
    const old = await store.sideTable(
      "kbs",
      new Schema([str("name"), str("title"), str("description"), str("created_at"), str("updated_at")]),
    );
    const at = new Date().toISOString();
    await old.write((t) => t.add([{ name: "legal", title: "Legal", description: "Contracts", created_at: at, updated_at: at }]));
    const registry = await openRegistry(store);
    expect(await registry.getKb("legal")).toMatchObject({ title: "Legal", description: "Contracts", instructions: "" });
    await updateKnowledgeBase(store, registry, "legal", { instructions: "Always answer in English." });
    expect((await registry.getKb("legal"))!.instructions).toBe("Always answer in English.");
  });

  it("gives the chat the instructions of the knowledge bases it searches", () => {
    const kbs = [
      { name: "hr", title: "HR", instructions: "Be brief." },
      { name: "legal", title: "Legal", instructions: "" },
      { name: "it", title: "IT", instructions: "Refuse password questions." },
    ];
    expect(instructionsFor(kbs, ["hr"])).toBe("For HR (hr):\nBe brief.");
    expect(instructionsFor(kbs, ["legal"])).toBe("");
    expect(instructionsFor(kbs)).toContain("Refuse password questions.");
    expect(instructionsFor(kbs)).toContain("Be brief.");
  });
});
