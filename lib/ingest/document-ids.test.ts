/**
 * Document ids on real LanceDB stores: the same knowledge base and file name keep their id within a dataset
 * (across processes' opens), but the id is not sha256 of the name, and another dataset names the same file
 * otherwise; a document stored under the old unkeyed id keeps it when its file comes again.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOfflineEmbedder } from "@/lib/embed";
import { openStore, type Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { ingestDocument } from "./index";

const enc = new TextEncoder();
const unkeyed = (kb: string, name: string) => createHash("sha256").update(`${kb}\u0000${name}`).digest("hex").slice(0, 24);
const ingest = (store: Store, kb: string, filename: string, text: string) =>
  ingestDocument(store, { kb, filename, data: enc.encode(text) });

let first: TempStore;
let second: TempStore;

beforeAll(async () => {
  first = await openTempStore("doc-ids-a-", 32);
  second = await openTempStore("doc-ids-b-", 32);
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

describe("document ids", () => {
  it("cannot be computed from the knowledge base and file name", async () => {
    const { document } = await ingest(first.store, "board", "layoffs-2027.md", "# Layoffs\n\nThe plan for 2027.\n");
    expect(document.id).toMatch(/^[0-9a-f]{24}$/);
    expect(document.id).not.toBe(unkeyed("board", "layoffs-2027.md"));
    const other = await ingest(second.store, "board", "layoffs-2027.md", "# Layoffs\n\nThe plan for 2027.\n");
    expect(other.document.id).not.toBe(document.id);
  });

  it("stay the same for the same file in one dataset, in every process that opens it", async () => {
    const before = (await first.store.findDocument("board", { source: "layoffs-2027.md" }))!;
    const again = await openStore({ uri: first.dir, embedder: createOfflineEmbedder(32) });
    try {
      expect((await again.documentIds())("board", "layoffs-2027.md")).toBe(before.id);
      // Deleted and uploaded again (not found by name): the same id, from the dataset's key.
      expect(await again.deleteDocument(before.id)).toBe(true);
      const back = await ingest(again, "board", "layoffs-2027.md", "# Layoffs\n\nThe plan for 2027, revised.\n");
      expect(back).toMatchObject({ status: "added", document: { id: before.id } });
    } finally {
      await again.close();
    }
  });

  it("a document stored under the old unkeyed id keeps it when its file is uploaded again", async () => {
    const { store } = second;
    // As a dataset written before ids were keyed has it: the document under sha256(kb, name) (moved in under that id).
    await ingest(store, "incoming", "leave.md", "# Leave\n\n20 days of annual leave.\n");
    expect(await store.moveKb("incoming", "hr", (d) => unkeyed("hr", d.source))).toBe(1);
    const old = (await store.findDocument("hr", { source: "leave.md" }))!;
    expect(old.id).toBe(unkeyed("hr", "leave.md"));

    const changed = await ingest(store, "hr", "leave.md", "# Leave\n\n25 days of annual leave.\n");
    expect(changed).toMatchObject({ status: "updated", document: { id: old.id } });
    expect((await store.listDocuments({ kb: "hr" })).map((d) => d.id)).toEqual([old.id]);
    expect((await store.getChunks(old.id)).map((c) => c.text).join("\n")).toContain("25 days");
  });
});
