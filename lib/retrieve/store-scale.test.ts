/**
 * Regression: ingestion used to hang for good past ~6,000 chunks (Lance's one-thread compute pool on a
 * 2-core machine deadlocked in Table.optimize() once a vector index existed), and every later upload or
 * delete queued behind it. Here: past 10,000 chunks in batches, with the vector index built, then an upload
 * and a delete while background maintenance runs; everything completes and reads stay right.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { createBatchIngest, ingestDocument } from "@/lib/ingest";
import { searchKnowledge } from "@/lib/retrieve";
import { openStore } from "@/lib/store/index";

const enc = (s: string) => new TextEncoder().encode(s);
let dir = "";
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A document of `paragraphs` distinct ~480-character paragraphs (one chunk each at the default chunk size). */
function documentText(n: number, paragraphs: number): string {
  const out = [`# Report ${n}`];
  for (let p = 0; p < paragraphs; p++) {
    const words = Array.from({ length: 70 }, (_, w) => `t${((n * 131 + p * 17 + w * 7) % 5003).toString(36)}`);
    out.push(`Section ${p} of report ${n} covers ${words.join(" ")}.`);
  }
  return out.join("\n\n");
}

describe("ingest at scale on a small machine", () => {
  it("configures Lance's thread pools before first use", () => {
    expect(Number(process.env.LANCE_CPU_THREADS)).toBeGreaterThanOrEqual(4);
    expect(Number(process.env.LANCE_IO_THREADS)).toBeGreaterThanOrEqual(8);
  });

  it("ingests past 10,000 chunks, then uploads and deletes while maintenance runs", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "store-scale-"));
    const store = await openStore({ uri: dir, embedder: createOfflineEmbedder(64), vectorIndexMinRows: 3000, maintenanceDelayMs: 20 });
    try {
      const batch = createBatchIngest(store);
      let chunks = 0;
      for (let n = 0; chunks <= 10_000; n++) {
        const { result, failures } = await batch.add({
          filename: `report-${n}.md`,
          data: enc(documentText(n, 40)),
          kb: "scale",
          origin: "cli",
        });
        expect(failures).toEqual([]);
        chunks += result.document.chunkCount;
      }
      expect(await batch.flush()).toEqual([]);
      await store.optimize(); // the vector index exists from here on: the state in which optimize() used to hang
      const stats = await store.stats();
      expect(stats.rows.chunks).toBe(chunks);
      expect(stats.rows.chunks).toBeGreaterThan(10_000);

      // More writes make maintenance due again; start one and write while it runs.
      await batch.add({ filename: "report-late.md", data: enc(documentText(9999, 30)), kb: "scale", origin: "cli" });
      await batch.flush();
      const maintenance = store.optimize();
      const upload = ingestDocument(store, { filename: "upload.md", data: enc("The quokka smiles at visitors on Rottnest."), kb: "scale" });
      const removed = store.deleteDocument((await store.listDocuments({ kb: "scale" })).find((d) => d.source === "report-3.md")!.id);
      const [added, existed] = await Promise.all([upload, removed]);
      await maintenance;
      await store.maintenanceIdle();

      expect(existed).toBe(true);
      expect((await searchKnowledge(store, { query: "quokka Rottnest" }))[0].document.id).toBe(added.document.id);
      expect((await store.listDocuments({ kb: "scale" })).some((d) => d.source === "report-3.md")).toBe(false);
      const hits = await searchKnowledge(store, { query: "Section 5 of report 3 covers", topK: 20 });
      expect(hits.some((h) => h.document.source === "report-3.md")).toBe(false);
      const after = await store.stats();
      expect(after.rows.documents).toBe(stats.rows.documents + 1 /* late */ + 1 /* upload */ - 1 /* deleted */);
    } finally {
      await store.close();
    }
  }, 600_000);
});
