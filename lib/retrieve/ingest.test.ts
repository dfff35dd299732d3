import { mkdir, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import iconv from "iconv-lite";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Embedder } from "@/lib/embed";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { addConcurrently, createBatchIngest, ingestDocument, readInputFile, reindexAll, syncKnowledgeDir } from "@/lib/ingest/index";
import { fileNameOf, parseTags } from "@/lib/kb/fields";
import { searchKnowledge } from "@/lib/retrieve";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import type { IngestProgress } from "@/lib/types";

const enc = (s: string) => new TextEncoder().encode(s);
const tempDir = tempDirs("ingest-test-");

/** The real offline embedder, counting the texts it is asked to embed. */
function countingEmbedder(dim = 64): Embedder & { texts: string[] } {
  const inner = createOfflineEmbedder(dim);
  const texts: string[] = [];
  return {
    name: inner.name,
    dimension: inner.dimension,
    texts,
    embed(batch, opts) {
      texts.push(...batch);
      return inner.embed(batch, opts);
    },
  };
}

/** A long Markdown document: `n` sections, each a few sentences mentioning `word`. */
function longDoc(word: string, n: number, variant = ""): string {
  const parts = ["# Field guide"];
  for (let i = 0; i < n; i++) {
    parts.push(
      `## Section ${i}`,
      `The ${word} number ${i} lives in region ${i}. ${variant}It eats leaves and grass near water ${i}. Observers count ${word}s every spring.`,
    );
  }
  return parts.join("\n\n");
}

let store: Store;
let embedder: ReturnType<typeof countingEmbedder>;
beforeEach(async () => {
  embedder = countingEmbedder();
  store = await openStore({ uri: await tempDir(), embedder });
  return () => store.close();
});

describe("ingestDocument", () => {
  it("adds, then skips the same bytes without parsing or embedding again", async () => {
    /** Ingests the same guide, with its progress events. */
    const ingestGuide = async () => {
      const events: IngestProgress[] = [];
      const result = await ingestDocument(
        store,
        { filename: "guide.md", data: enc(longDoc("okapi", 10)) },
        { onProgress: (p) => events.push(p) },
      );
      return { result, events };
    };
    const { result: first, events } = await ingestGuide();
    expect(first.status).toBe("added");
    const stages = [...new Set(events.map((e) => e.stage))];
    expect(stages).toEqual(["received", "parsing", "chunking", "embedding", "indexing", "done"]);
    const lastEmbedding = events.filter((e) => e.stage === "embedding").at(-1)!;
    expect(lastEmbedding.done).toBe(lastEmbedding.total);
    expect(lastEmbedding.total).toBe(first.document.chunkCount);
    expect(events.at(-1)).toMatchObject({ stage: "done", documentId: first.document.id, chunkCount: first.document.chunkCount });

    const embedded = embedder.texts.length;
    const { result: again, events: events2 } = await ingestGuide();
    expect(again.status).toBe("unchanged");
    expect(again.document).toEqual(first.document);
    expect(events2.map((e) => e.stage)).toEqual(["received", "skipped"]);
    expect(embedder.texts.length).toBe(embedded);
    expect(await store.listDocuments()).toHaveLength(1);
  });

  it("replaces a changed file in place and embeds only the chunks that changed", async () => {
    const v1 = longDoc("okapi", 12);
    const first = await ingestDocument(store, { filename: "guide.md", data: enc(v1), tags: ["a"] });
    const n1 = embedder.texts.length;
    // Change only the last section.
    const v2 = v1.replace("It eats leaves and grass near water 11.", "It now eats bamboo shoots near water 11.");
    const second = await ingestDocument(store, { filename: "guide.md", data: enc(v2) });
    expect(second.status).toBe("updated");
    expect(second.document.id).toBe(first.document.id);
    expect(second.document.createdAt).toBe(first.document.createdAt);
    expect(second.document.contentHash).not.toBe(first.document.contentHash);
    const newlyEmbedded = embedder.texts.slice(n1);
    expect(newlyEmbedded.length).toBeGreaterThanOrEqual(1);
    expect(newlyEmbedded.length).toBeLessThan(second.document.chunkCount);
    expect(newlyEmbedded.join("\n")).toContain("bamboo");

    expect(await store.listDocuments()).toHaveLength(1);
    expect(await store.getDocumentText(first.document.id)).toBe(v2);
    const chunks = await store.getChunks(first.document.id);
    expect(chunks).toHaveLength(second.document.chunkCount);
    for (const c of chunks) expect(c.text).toBe(v2.slice(c.start, c.end));
    const hits = await searchKnowledge(store, { query: "bamboo shoots" });
    expect(hits[0].chunk.text).toContain("bamboo");
    const old = await searchKnowledge(store, { query: "leaves grass water 11", topK: 20 });
    expect(old.some((h) => h.chunk.text.includes("leaves and grass near water 11."))).toBe(false);
  });

  it("shrinking a document leaves no stale chunks behind", async () => {
    const r1 = await ingestDocument(store, { filename: "g.md", data: enc(longDoc("tapir", 15)) });
    const r2 = await ingestDocument(store, { filename: "g.md", data: enc("# Field guide\n\nOnly one short paragraph about tapirs now.") });
    expect(r2.document.chunkCount).toBe(1);
    expect(r1.document.chunkCount).toBeGreaterThan(1);
    expect(await store.getChunks(r1.document.id)).toHaveLength(1);
    const hits = await searchKnowledge(store, { query: "tapir region", topK: 20 });
    expect(hits).toHaveLength(1);
  });

  it("replacement is atomic: searches during the replace always find the document", async () => {
    // Maintenance right after each write: searches also meet the folds' commits and a net being emptied.
    const folding = await openStore({ uri: await tempDir(), embedder, maintenanceDelayMs: 0 });
    try {
      const base = await ingestDocument(folding, { filename: "atomic.md", data: enc(longDoc("gazelle", 20)) });
      let replacing = true;
      const counts: number[] = [];
      const reader = (async () => {
        while (replacing) {
          const hits = await searchKnowledge(folding, { query: "gazelle region", topK: 20 });
          counts.push(hits.filter((h) => h.document.id === base.document.id).length);
        }
      })();
      for (let round = 0; round < 12; round++) {
        const data = enc(longDoc("gazelle", 20 - (round % 4) * 5, `Revision ${round}. `));
        await ingestDocument(folding, { filename: "atomic.md", data });
      }
      replacing = false;
      await reader;
      expect(counts.length).toBeGreaterThan(0);
      expect(counts.filter((c) => c === 0)).toEqual([]);
    } finally {
      await folding.close();
    }
  }, 120_000);

  it("does not duplicate the same content under another name in the same kb", async () => {
    const a = await ingestDocument(store, { filename: "a.md", data: enc("# Same\n\nIdentical body text.") });
    const b = await ingestDocument(store, { filename: "copy of a.md", data: enc("# Same\n\nIdentical body text.") });
    expect(b.status).toBe("unchanged");
    expect(b.document.id).toBe(a.document.id);
    expect(await store.listDocuments()).toHaveLength(1);
    const other = await ingestDocument(store, { filename: "a.md", data: enc("# Same\n\nIdentical body text."), kb: "other" });
    expect(other.status).toBe("added");
    expect(other.document.id).not.toBe(a.document.id);
  });

  it("in bulk, finds a duplicate of a document whose commit is still in flight, and reports every document", async () => {
    const events: IngestProgress[] = [];
    const batch = createBatchIngest(store, { maxDocuments: 1, onProgress: (p) => events.push(p) });
    const body = (n: number) => enc(`# Doc ${n}\n\nBody number ${n} about herons.`);
    const first = await batch.add({ filename: "one.md", data: body(1), origin: "cli" }); // its commit starts now
    const copy = await batch.add({ filename: "copy.md", data: body(1), origin: "cli" });
    expect(copy.result.status).toBe("unchanged");
    expect(copy.result.document.id).toBe(first.result.document.id);
    for (const n of [2, 3, 4]) await batch.add({ filename: `d${n}.md`, data: body(n), origin: "cli" });
    expect(await batch.flush()).toEqual([]);
    expect((await store.listDocuments()).map((d) => d.source).sort()).toEqual(["d2.md", "d3.md", "d4.md", "one.md"]);
    expect(
      events
        .filter((e) => e.stage === "done")
        .map((e) => e.file)
        .sort(),
    ).toEqual(["d2.md", "d3.md", "d4.md", "one.md"]);
  });

  it("in bulk, preparing goes on while a commit is in flight, up to four batches' worth, then waits for it", async () => {
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const put = store.putDocuments.bind(store);
    const commits: number[] = [];
    vi.spyOn(store, "putDocuments").mockImplementation(async (items) => {
      commits.push(items.length);
      if (commits.length === 1) await held;
      return put(items);
    });
    const batch = createBatchIngest(store, { maxDocuments: 2 });
    const add = (n: number) =>
      batch.add({ filename: `d${n}.md`, data: enc(`# Doc ${n}\n\nBody number ${n} about cranes.`), origin: "cli" });
    for (const n of [1, 2]) await add(n); // the second fills the batch: its commit starts, and is held
    for (const n of [3, 4, 5, 6, 7, 8, 9]) await add(n); // prepared while it is held
    let tenth = false;
    const adding = add(10).then(() => (tenth = true)); // four batches' worth wait now: this add waits for the commit
    await new Promise((r) => setTimeout(r, 300));
    expect(tenth).toBe(false);
    release();
    await adding;
    expect(await batch.flush()).toEqual([]);
    expect(commits).toEqual([2, 8]); // the next commit took everything prepared meanwhile
    expect(await store.listDocuments()).toHaveLength(10);
  });

  it("in bulk, a document whose write fails is reported alone, and the others of its batch land", async () => {
    const put = store.putDocuments.bind(store);
    vi.spyOn(store, "putDocuments").mockImplementation(async (items) => {
      if (items.some((i) => i.doc.source === "bad.md")) throw new Error("disk full");
      return put(items);
    });
    const events: IngestProgress[] = [];
    const batch = createBatchIngest(store, { maxDocuments: 3, onProgress: (p) => events.push(p) });
    const reported = [];
    for (const name of ["a.md", "bad.md", "c.md", "d.md", "e.md"]) {
      const { failures } = await batch.add({ filename: name, data: enc(`# ${name}\n\nAbout ${name} and storks.`), origin: "cli" });
      reported.push(...failures);
    }
    reported.push(...(await batch.flush()));
    expect(reported).toEqual([{ filename: "bad.md", error: "disk full", status: "added" }]);
    expect((await store.listDocuments()).map((d) => d.source).sort()).toEqual(["a.md", "c.md", "d.md", "e.md"]);
    expect(events.filter((e) => e.stage === "failed").map((e) => e.file)).toEqual(["bad.md"]);
  });

  it("in bulk, concurrent adds of the same name or bytes keep one document each, and every distinct one lands", async () => {
    const batch = createBatchIngest(store, { maxDocuments: 2 });
    const body = (n: number) => enc(`# Doc ${n}\n\nBody number ${n} about egrets.`);
    const inputs = [
      { filename: "a.md", data: body(1) },
      { filename: "a-copy.md", data: body(1) }, // same bytes, other name
      { filename: "b.md", data: body(2) },
      { filename: "b.md", data: body(2) }, // same name and bytes
      ...[3, 4, 5, 6].map((n) => ({ filename: `d${n}.md`, data: body(n) })),
    ];
    const statuses: [string, string][] = [];
    await addConcurrently(
      inputs,
      async (input) => {
        const { result } = await batch.add({ ...input, origin: "cli" });
        statuses.push([result.document.source, result.status]);
      },
      { concurrency: 4 },
    );
    expect(await batch.flush()).toEqual([]);
    expect((await store.listDocuments()).map((d) => d.source).sort()).toEqual(["a.md", "b.md", "d3.md", "d4.md", "d5.md", "d6.md"]);
    const of = (source: string) =>
      statuses
        .filter(([s]) => s === source)
        .map(([, status]) => status)
        .sort();
    expect(of("a.md")).toEqual(["added", "unchanged"]);
    expect(of("b.md")).toEqual(["added", "unchanged"]);
  });

  it("rejects bad input and leaves what is stored untouched", async () => {
    const good = await ingestDocument(store, { filename: "keep.md", data: enc("# Keep\n\nThe ibis wades.") });
    const snapshot = { docs: await store.listDocuments(), chunks: await store.getChunks(good.document.id) };
    const events: IngestProgress[] = [];
    await expect(
      ingestDocument(store, { filename: "keep.exe", data: enc("MZ") }, { onProgress: (p) => events.push(p) }),
    ).rejects.toMatchObject({ code: "unsupported_type" });
    expect(events.at(-1)).toMatchObject({ stage: "failed", file: "keep.exe" });
    await expect(ingestDocument(store, { filename: "keep.md", data: enc("   \n\n  ") })).rejects.toMatchObject({ code: "parse_failed" });
    expect(() => fileNameOf("")).toThrow(expect.objectContaining({ code: "bad_request" }));
    await expect(ingestDocument(store, { filename: "x.md", data: enc("x"), kb: "  " })).rejects.toMatchObject({ code: "bad_request" });
    expect(() => parseTags([1])).toThrow(expect.objectContaining({ code: "bad_request" }));
    const ac = new AbortController();
    ac.abort();
    await expect(ingestDocument(store, { filename: "keep.md", data: enc("# Keep\n\nChanged.") }, { signal: ac.signal })).rejects.toThrow();
    expect(await store.listDocuments()).toEqual(snapshot.docs);
    expect(await store.getChunks(good.document.id)).toEqual(snapshot.chunks);
    expect((await searchKnowledge(store, { query: "ibis" }))[0].document.id).toBe(good.document.id);
  });

  it("keeps only the base name of the file, never a path (the name rule where a file comes in: fileNameOf)", async () => {
    const r = await ingestDocument(store, { filename: fileNameOf("../../etc/secret notes.md"), data: enc("# Notes\n\nText.") });
    expect(r.document.source).toBe("secret notes.md");
    const w = await ingestDocument(store, { filename: fileNameOf("C:\\Users\\x\\win.txt"), data: enc("Windows text.") });
    expect(w.document.source).toBe("win.txt");
    expect(w.document.title).toBe("win");
  });

  it("reads GBK text files", async () => {
    const data = new Uint8Array(iconv.encode("员工先填写报销申请单，然后交给财务部门。", "gbk"));
    const r = await ingestDocument(store, { filename: "gbk.txt", data, kb: "zh" });
    expect(await store.getDocumentText(r.document.id)).toBe("员工先填写报销申请单，然后交给财务部门。");
    const hits = await searchKnowledge(store, { query: "报销", kb: "zh" });
    expect(hits[0].document.id).toBe(r.document.id);
  });

  it("a newly added document is found by full text right away", async () => {
    for (let i = 0; i < 3; i++) await ingestDocument(store, { filename: `f${i}.md`, data: enc(`Filler document ${i} about marmots.`) });
    await store.optimize();
    await ingestDocument(store, { filename: "new.md", data: enc("The axolotl regrows limbs.") });
    const byText = await store.textSearch("axolotl", { limit: 5 });
    expect(byText.map((c) => c.text)).toEqual(["The axolotl regrows limbs."]);
  });
});

describe("readInputFile", () => {
  it("reads small files at once and big ones without blocking, byte for byte, and reports a missing file", async () => {
    const dir = await tempDir();
    const small = Buffer.from("# Small\n\nA page of a few bytes. 小文件。");
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, "大文件 big file ");
    await writeFile(path.join(dir, "small.md"), small);
    await writeFile(path.join(dir, "big.md"), big);
    expect((await readInputFile(path.join(dir, "small.md"))).equals(small)).toBe(true);
    expect((await readInputFile(path.join(dir, "big.md"))).equals(big)).toBe(true);
    await expect(readInputFile(path.join(dir, "missing.md"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("syncKnowledgeDir", () => {
  it("adds, skips, re-indexes and removes to match the folder, and never removes uploads", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "sub", "deeper"), { recursive: true });
    await writeFile(path.join(dir, "a.md"), "# A\n\nAlpha document about lynxes.");
    await writeFile(path.join(dir, "sub", "b.txt"), "Beta document about otters.");
    await writeFile(path.join(dir, "sub", "deeper", "c.md"), "# C\n\nGamma document about herons.");
    await writeFile(path.join(dir, ".hidden.md"), "# Hidden\n\nShould not be indexed.");
    await writeFile(path.join(dir, "image.png"), "not really a png");
    await writeFile(path.join(dir, "sub", "a.md"), "# Other A\n\nSame name as the top-level a.md.");
    const upload = await ingestDocument(store, { filename: "uploaded.md", data: enc("# Up\n\nUploaded about pandas."), origin: "upload" });

    const r1 = await syncKnowledgeDir(store, dir, "default");
    expect(r1).toMatchObject({ added: 3, updated: 0, unchanged: 0, removed: 0 });
    expect(r1.failed.map((f) => f.file).sort()).toEqual(["image.png", path.join("sub", "a.md")]);
    const docs = await store.listDocuments({ kb: "default" });
    expect(docs.map((d) => d.source).sort()).toEqual(["a.md", "b.txt", "c.md", "uploaded.md"]);
    expect(docs.filter((d) => d.source !== "uploaded.md").every((d) => d.origin === "knowledge")).toBe(true);

    const embedded = embedder.texts.length;
    const r2 = await syncKnowledgeDir(store, dir, "default");
    expect(r2).toMatchObject({ added: 0, updated: 0, unchanged: 3, removed: 0 });
    expect(embedder.texts.length).toBe(embedded);

    await writeFile(path.join(dir, "sub", "b.txt"), "Beta document now about beavers.");
    await unlink(path.join(dir, "sub", "deeper", "c.md"));
    await writeFile(path.join(dir, "d.md"), "# D\n\nDelta document about ravens.");
    const r3 = await syncKnowledgeDir(store, dir, "default");
    expect(r3).toMatchObject({ added: 1, updated: 1, unchanged: 1, removed: 1 });
    const after = await store.listDocuments({ kb: "default" });
    expect(after.map((d) => d.source).sort()).toEqual(["a.md", "b.txt", "d.md", "uploaded.md"]);
    expect(await store.getDocument(upload.document.id)).not.toBeNull();
    expect((await searchKnowledge(store, { query: "beavers" }))[0].document.source).toBe("b.txt");
    expect((await searchKnowledge(store, { query: "herons" })).some((h) => h.document.source === "c.md")).toBe(false);

    // Only its own kb is touched; a missing folder changes nothing.
    await syncKnowledgeDir(store, dir, "second");
    expect((await syncKnowledgeDir(store, path.join(dir, "missing"), "second")).removed).toBe(0);
    expect((await store.listDocuments({ kb: "second" })).length).toBe(3);
    expect((await store.listDocuments({ kb: "default" })).length).toBe(4);
  });
});

describe("reindexAll", () => {
  it("rebuilds every document's chunks with a new embedder from the stored text", async () => {
    const uri = await tempDir();
    const a = await openStore({ uri, embedder: createOfflineEmbedder(64) });
    await ingestDocument(a, { filename: "one.md", data: enc(longDoc("ibex", 6)) });
    await ingestDocument(a, { filename: "two.md", data: enc("# Two\n\nA second document about condors.") });
    const before = await a.listDocuments();
    a.close();

    await expect(openStore({ uri, embedder: createOfflineEmbedder(128) })).rejects.toMatchObject({ code: "embedder_mismatch" });
    const b = await openStore({ uri, embedder: createOfflineEmbedder(128), allowMismatch: true });
    const events: IngestProgress[] = [];
    const r = await reindexAll(b, (p) => events.push(p));
    expect(r.documents).toBe(2);
    expect(r.chunks).toBe(before.reduce((s, d) => s + d.chunkCount, 0));
    expect(events.filter((e) => e.stage === "done")).toHaveLength(2);
    b.close();

    const c = await openStore({ uri, embedder: createOfflineEmbedder(128) });
    expect((await c.listDocuments()).map((d) => d.id)).toEqual(before.map((d) => d.id));
    expect((await searchKnowledge(c, { query: "condors" }))[0].document.source).toBe("two.md");
    c.close();
  });

  it("an interrupted reindex leaves a store no embedder opens until the reindex is rerun", async () => {
    const uri = await tempDir();
    const a = await openStore({ uri, embedder: createOfflineEmbedder(64) });
    await ingestDocument(a, { filename: "one.md", data: enc("# One\n\nA document about storks.") });
    a.close();
    const b = await openStore({ uri, embedder: createOfflineEmbedder(128), allowMismatch: true });
    await b.resetIndex(); // what reindexAll does first; then the process "dies"
    b.close();
    for (const dim of [64, 128]) {
      const err = await openStore({ uri, embedder: createOfflineEmbedder(dim) }).catch((e) => e);
      expect(err).toMatchObject({ code: "embedder_mismatch" });
      expect(err.message).toContain("unfinished reindex");
    }
    const c = await openStore({ uri, embedder: createOfflineEmbedder(128), allowMismatch: true });
    await reindexAll(c);
    c.close();
    const d = await openStore({ uri, embedder: createOfflineEmbedder(128) });
    expect((await searchKnowledge(d, { query: "storks" }))[0].document.source).toBe("one.md");
    d.close();
  });
});
