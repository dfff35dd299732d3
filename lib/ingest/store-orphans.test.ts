/** Orphan chunks (a write killed between its chunks and its document row) are removed, on a real store. */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { afterAll, describe, expect, it } from "vitest";
import { createNoEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore } from "@/lib/store/index";
import { sqlEq } from "@/lib/store/sql";

const enc = (s: string) => new TextEncoder().encode(s);
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A store with two documents, one of which another connection turns into orphan chunks. */
async function storeWithOrphan() {
  const dir = await mkdtemp(path.join(os.tmpdir(), "orphans-test-"));
  dirs.push(dir);
  const store = await openStore({ uri: dir, embedder: createNoEmbedder() });
  const kept = await ingestDocument(store, {
    filename: "kept.md",
    data: enc("# Kept\n\nThe kept rule stays.\n\nA second paragraph."),
    kb: "k",
  });
  const lost = await ingestDocument(store, { filename: "lost.md", data: enc("# Lost\n\nThe lost rule.\n\nMore of it."), kb: "k" });
  const other = await lancedb.connect(dir, { readConsistencyInterval: 0 });
  const documents = await other.openTable("documents");
  const row = (await documents.query().where(sqlEq("id", lost.document.id)).toArray())[0];
  await documents.delete(sqlEq("id", lost.document.id));
  return { store, other, documents, row, kept: kept.document, lost: lost.document };
}

/** Runs `test` on a store with an orphan (storeWithOrphan), then closes both connections. */
async function withOrphan(test: (s: Awaited<ReturnType<typeof storeWithOrphan>>) => Promise<void>) {
  const s = await storeWithOrphan();
  try {
    await test(s);
  } finally {
    s.other.close();
    await s.store.close();
  }
}

describe("removeOrphans", () => {
  it("deletes the chunks of a missing document and nothing else", () =>
    withOrphan(async ({ store, kept, lost }) => {
      expect((await store.getChunks(lost.id)).length).toBe(lost.chunkCount);
      expect(await store.removeOrphans(1)).toBe(lost.chunkCount);
      expect(await store.getChunks(lost.id)).toEqual([]);
      expect((await store.getChunks(kept.id)).length).toBe(kept.chunkCount);
      expect(await store.removeOrphans(1)).toBe(0);
    }));

  it("leaves chunks whose document row is written during the grace period (another process's write)", () =>
    withOrphan(async ({ store, documents, row, lost }) => {
      const removing = store.removeOrphans(1500);
      await new Promise((r) => setTimeout(r, 300));
      await documents.add([row]);
      expect(await removing).toBe(0);
      expect((await store.getChunks(lost.id)).length).toBe(lost.chunkCount);
    }));
});

describe("a put over orphan chunks", () => {
  it("replaces them, also when they were left after this process's last put (no doubled chunks)", () =>
    withOrphan(async ({ store, documents, lost }) => {
      // The orphan was made after this process's puts (which keep their orphan bookkeeping); another
      // document row keeps the documents' row count as it was.
      await documents.add([{ ...(await documents.query().limit(1).toArray())[0], id: "unrelated-doc" }]);
      const again = await ingestDocument(store, {
        filename: "lost.md",
        data: enc("# Lost\n\nThe lost rule.\n\nMore of it."),
        kb: "k",
      });
      expect(again.document.id).toBe(lost.id);
      const chunks = await store.getChunks(lost.id);
      expect(chunks.length).toBe(lost.chunkCount);
      expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
      // A further put of a new document appends (no rescan needed) and leaves the others alone.
      const added = await ingestDocument(store, { filename: "new.md", data: enc("# New\n\nA new rule."), kb: "k" });
      expect((await store.getChunks(added.document.id)).length).toBe(added.document.chunkCount);
      expect((await store.getChunks(lost.id)).length).toBe(lost.chunkCount);
    }));
});

describe("orphan bookkeeping across a delete", () => {
  it("still knows the orphans after this process deletes a document, so a put over one replaces it", () =>
    withOrphan(async ({ store, kept, lost }) => {
      // This put finds the orphan; the delete after it keeps that knowledge instead of reading every chunk again.
      await ingestDocument(store, { filename: "new.md", data: enc("# New\n\nA new rule."), kb: "k" });
      expect(await store.deleteDocument(kept.id)).toBe(true);
      expect(await store.getChunks(kept.id)).toEqual([]);
      const again = await ingestDocument(store, { filename: "lost.md", data: enc("# Lost\n\nThe lost rule.\n\nMore of it."), kb: "k" });
      expect(again.document.id).toBe(lost.id);
      const chunks = await store.getChunks(lost.id);
      expect(chunks.length).toBe(lost.chunkCount);
      expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
    }));
});
