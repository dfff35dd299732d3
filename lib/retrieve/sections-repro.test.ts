/**
 * The section-sized-answer reproductions (fixtures/repro/sections, made-up documents; see its README), each
 * ingested alone into a real LanceDB in a temp dir and searched with the offline defaults.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createNoEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore, type Store } from "@/lib/store";
import { searchKnowledge } from "./index";

const repro = path.resolve(import.meta.dirname, "../../fixtures/repro/sections");
const opened: { dir: string; store: Store }[] = [];

async function knowledgeBase(name: string): Promise<Store> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `repro-${name}-`));
  const store = await openStore({ uri: dir, embedder: createNoEmbedder() });
  opened.push({ dir, store });
  for (const file of (await readdir(path.join(repro, name))).sort())
    await ingestDocument(store, { filename: file, data: await readFile(path.join(repro, name, file)), kb: "repro", origin: "cli" });
  await store.optimize();
  return store;
}

afterAll(async () => {
  for (const { dir, store } of opened) {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

const top = async (store: Store, query: string) =>
  (await searchKnowledge(store, { query, topK: 5 })).map((h) => ({
    source: h.document.source,
    title: h.document.title,
    heading: h.chunk.heading,
    text: h.chunk.text,
  }));

describe("section repros", () => {
  it("r1: the table row answering the question is in the top 2, with its section's lead-in and header", async () => {
    const store = await knowledgeBase("r1");
    for (const query of [
      "Which chat channel should I use to reach the security executive?",
      "Which chat channel should I use to reach the executive for information security?",
    ]) {
      const hits = await top(store, query);
      const at = hits.findIndex((h) => h.text.includes("Chief Information Security Officer | `#sentinel`"));
      expect(at, JSON.stringify(hits.map((h) => [h.source, h.heading]))).toBeGreaterThanOrEqual(0);
      expect(at).toBeLessThan(2);
      const hit = hits[at];
      expect(hit).toMatchObject({ source: "chat.md", title: "Chat" });
      expect(hit.heading).toBe("Channels › Getting in touch with leadership");
      expect(hit.text).toContain("To get in touch with one of our executives");
      expect(hit.text).toContain("| Leader | Channel |");
    }
  }, 120_000);

  it("r2: the one short relevant section beats a long document of generic sections", async () => {
    const store = await knowledgeBase("r2");
    const hits = await top(store, "What is the start date of the current planning period?");
    expect(hits[0]).toMatchObject({ source: "finance.md", heading: "Planning Cycle" });
    expect(hits[0].text).toContain("PC27-P1 | 2026-03-01 to 2026-05-31");
  }, 120_000);

  it("front matter is the title, not body text", async () => {
    const store = await knowledgeBase("r2");
    const hits = await top(store, "people process transfer start date");
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) {
      expect(h.text).not.toMatch(/^---|title:/m);
      expect(["Finance", "People Process"]).toContain(h.title);
    }
  }, 120_000);
});
