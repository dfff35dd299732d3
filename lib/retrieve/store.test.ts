import { execFile } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import * as lancedb from "@lancedb/lancedb";
import { Field, Schema, Utf8 } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createNoEmbedder } from "@/lib/embed";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { createBatchIngest, ingestDocument } from "@/lib/ingest";
import { searchKnowledge } from "@/lib/retrieve";
import { gate } from "@/lib/store/async";
import { documentCache, titleSorted } from "@/lib/store/document-cache";
import { createFtsIndex, whitespaceFtsIndex } from "@/lib/store/fts-index";
import { configuredEmbedder, type OpenStoreOptions, openStore, type Store } from "@/lib/store/index";
import { openIndexes } from "@/lib/store/indexes";
import { recentWrites } from "@/lib/store/recent";
import { chunkId, chunkToRow, documentToRow, FTS_COLUMN, parseChunkId, TABLES } from "@/lib/store/schema";
import { sqlIn, sqlString } from "@/lib/store/sql";
import { openTables, readVersion, retryConflicts, VERSION_TTL_MS } from "@/lib/store/tables";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { toIndexText } from "@/lib/tokenize/index-text";
import { AppError, type DocumentRecord } from "@/lib/types";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const enc = (s: string) => new TextEncoder().encode(s);
const tempDir = tempDirs("store-test-");

/** A document row for tests that write the tables directly. */
const docRecord = (id: string, title = id, source = `${id}.md`): DocumentRecord => ({
  id,
  kb: "k",
  title,
  source,
  contentHash: `hash-${id}`,
  size: 1,
  mimeType: "text/markdown",
  author: null,
  tags: [],
  origin: "cli",
  chunkCount: 0,
  createdAt: `2026-01-01T00:00:0${id.length}Z`,
  updatedAt: "2026-01-01T00:00:00Z",
});

/** This process's tables on a new store, and a second connection to it standing for another process. */
async function tablesAndAnother() {
  const dir = await tempDir();
  const tables = await openTables(await lancedb.connect(dir, { readConsistencyInterval: 0 }), 0, () => {});
  const other = await lancedb.connect(dir, { readConsistencyInterval: 0 });
  return {
    tables,
    other,
    close: () => {
      other.close();
      tables.close();
    },
  };
}

/** The source of the first search result for `query`. */
async function topSource(store: Store, query: string): Promise<string | undefined> {
  return (await searchKnowledge(store, { query }))[0]?.document.source;
}

describe("chunk ids", () => {
  it("name their document and place, and parse back", () => {
    expect(parseChunkId(chunkId("doc-1", 0))).toEqual({ documentId: "doc-1", index: 0 });
    expect(parseChunkId(chunkId("a:b", 12))).toEqual({ documentId: "a:b", index: 12 });
    for (const bad of ["doc", "doc:", ":3", "doc:x", "doc:-1", "doc:1.5"]) expect(parseChunkId(bad)).toBeNull();
  });
});

describe("sql literals", () => {
  it("doubles single quotes and nothing else", () => {
    expect(sqlString("o'brien")).toBe("'o''brien'");
    expect(sqlString("a\\'b")).toBe("'a\\''b'");
    expect(sqlIn("id", [])).toBe("false");
    expect(sqlIn("id", ["a", "b'"])).toBe("id IN ('a', 'b''')");
    expect(() => sqlString("a\0b")).toThrow();
  });
});

describe("store on a real LanceDB", () => {
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    dir = await tempDir();
    store = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
  });
  afterAll(() => store.close());

  it("starts empty", async () => {
    expect(await store.listDocuments()).toEqual([]);
    expect(await store.listKbs()).toEqual([]);
    expect(await store.getDocument("nope")).toBeNull();
    expect(await store.getDocumentText("nope")).toBeNull();
    expect(await store.getChunk("nope")).toBeNull();
    expect(await store.getChunks("nope")).toEqual([]);
    expect(await store.deleteDocument("nope")).toBe(false);
    expect(await searchKnowledge(store, { query: "anything" })).toEqual([]);
  });

  it("stores documents, text and ordered chunks, lists them sorted by title, and deletes them", async () => {
    const text = `# Zebra handbook\n\n${Array.from({ length: 60 }, (_, i) => `Paragraph ${i} about zebras and their stripes.`).join("\n\n")}`;
    const z = await ingestDocument(store, { filename: "zebra.md", data: enc(text), kb: "animals", tags: ["b", "a"], author: "Ann" });
    const a = await ingestDocument(store, { filename: "aardvark.txt", data: enc("Aardvarks eat ants."), kb: "animals", title: "Aardvark" });
    expect(z.status).toBe("added");
    const docs = await store.listDocuments({ kb: "animals" });
    expect(docs.map((d) => d.title)).toEqual(["Aardvark", "Zebra handbook"]);
    const doc = (await store.getDocument(z.document.id))!;
    expect(doc).toMatchObject({
      source: "zebra.md",
      kb: "animals",
      author: "Ann",
      tags: ["b", "a"],
      mimeType: "text/markdown",
      origin: "upload",
    });
    expect(doc.chunkCount).toBeGreaterThan(1);
    expect(await store.getDocumentText(doc.id)).toBe(text);
    // Several bodies read together: the cached one (just read), an uncached one, and one that is not there.
    const texts = await store.getDocumentTexts([doc.id, a.document.id, "no-such-document", doc.id]);
    expect([...texts.keys()].sort()).toEqual([doc.id, a.document.id].sort());
    expect(texts.get(doc.id)).toBe(text);
    expect(texts.get(a.document.id)).toBe("Aardvarks eat ants.");
    expect(await store.getDocumentTexts([])).toEqual(new Map());
    const chunks = await store.getChunks(doc.id);
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    for (const c of chunks) expect(c.text).toBe(text.slice(c.start, c.end));
    expect(chunks[0].heading).toBe("Zebra handbook");
    expect(await store.getChunk(chunks[1].id)).toEqual(chunks[1]);
    expect(await store.listKbs()).toEqual(["animals"]);

    expect(await store.deleteDocument(doc.id)).toBe(true);
    expect(await store.getDocument(doc.id)).toBeNull();
    expect([...(await store.getDocumentTexts([doc.id, a.document.id])).keys()]).toEqual([a.document.id]);
    expect(await store.getChunks(doc.id)).toEqual([]);
    expect(await store.getDocument(a.document.id)).not.toBeNull();
    const hits = await searchKnowledge(store, { query: "zebras stripes" });
    expect(hits.every((h) => h.document.id !== doc.id)).toBe(true);
  });

  it("is safe with quotes and backslashes in ids and knowledge-base names", async () => {
    const kb = `o'brien's \\"kb\\" ' OR '1'='1`;
    // Such a name never gets in (one knowledge-base name rule, lib/kb/names.ts)…
    await expect(ingestDocument(store, { filename: "q.md", data: enc("# Q\n\nq"), kb })).rejects.toMatchObject({ code: "bad_request" });
    const r = await ingestDocument(store, {
      filename: "it's a file'; DROP.md",
      data: enc("# Quote test\n\nThe quokka smiles."),
      kb: "quotes",
    });
    expect(r.document.source).toBe("it's a file'; DROP.md");
    // …and filters with it still find nothing rather than everything.
    expect(await store.listDocuments({ kb })).toEqual([]);
    expect((await store.listDocuments({ kb: "quotes" })).map((d) => d.id)).toEqual([r.document.id]);
    expect(await store.getDocument("' OR '1'='1")).toBeNull();
    expect(await store.getChunks("x' OR document_id != '")).toEqual([]);
    expect(await store.deleteDocument("x' OR id != '")).toBe(false);
    const hits = await searchKnowledge(store, { query: "quokka", kb: "quotes" });
    expect(hits[0].document.id).toBe(r.document.id);
    expect(await searchKnowledge(store, { query: "quokka", kb })).toEqual([]);
    expect(await searchKnowledge(store, { query: "quokka", kb: "' OR '1'='1" })).toEqual([]);
    expect(await store.deleteDocument(r.document.id)).toBe(true);
    expect(await store.listDocuments({ kb: "quotes" })).toEqual([]);
  });

  it("finds Chinese by full text: 报销 in 员工先填写报销申请单", async () => {
    await ingestDocument(store, { filename: "报销.md", data: enc("# 财务制度\n\n员工先填写报销申请单，然后交给部门经理审批。"), kb: "zh" });
    await ingestDocument(store, { filename: "请假.md", data: enc("# 人事制度\n\n请假需要提前三天在系统中提交申请。"), kb: "zh" });
    const byText = await store.textSearch("报销", { limit: 5, kbs: ["zh"] });
    expect(byText).toHaveLength(1);
    expect(byText[0].text).toContain("员工先填写报销申请单");
    // A search reads fewer columns (SEARCH_COLUMNS) and rebuilds the rest: the same chunk as a full read.
    expect(byText[0]).toEqual({ ...(await store.getChunk(byText[0].id)), textScore: expect.any(Number) });
    expect(byText[0].textScore).toBeGreaterThan(0);
    expect(byText[0]).toMatchObject({ kb: "zh", index: 0 });
    const hits = await searchKnowledge(store, { query: "报销怎么办理？", kb: "zh" });
    expect(hits[0].document.source).toBe("报销.md");
  });

  it("filters by one or several knowledge bases and clamps topK", async () => {
    await ingestDocument(store, { filename: "one.md", data: enc("Shared word platypus in kb one."), kb: "k1" });
    await ingestDocument(store, { filename: "two.md", data: enc("Shared word platypus in kb two."), kb: "k2" });
    const only1 = await searchKnowledge(store, { query: "platypus", kb: "k1" });
    expect(only1.map((h) => h.document.kb)).toEqual(["k1"]);
    const both = await searchKnowledge(store, { query: "platypus", kb: ["k1", "k2"] });
    expect(both.map((h) => h.document.kb).sort()).toEqual(["k1", "k2"]);
    const all = await searchKnowledge(store, { query: "platypus", topK: 100 });
    expect(all.length).toBeLessThanOrEqual(20);
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(await searchKnowledge(store, { query: "platypus", topK: 0 })).toHaveLength(1);
    for (let i = 1; i < all.length; i++) expect(all[i - 1].score).toBeGreaterThanOrEqual(all[i].score);
    await expect(searchKnowledge(store, { query: "   " })).rejects.toMatchObject({ code: "bad_request" });
  });

  it("a second connection sees writes of the first at once (no reopen)", async () => {
    const other = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
    try {
      const before = (await other.listDocuments()).length;
      const r = await ingestDocument(store, { filename: "late.md", data: enc("The narwhal arrived late."), kb: "k3" });
      expect((await other.listDocuments()).length).toBe(before + 1);
      expect((await searchKnowledge(other, { query: "narwhal" }))[0].document.id).toBe(r.document.id);
      await other.deleteDocument(r.document.id);
      expect(await store.getDocument(r.document.id)).toBeNull();
      expect((await searchKnowledge(store, { query: "narwhal" })).some((h) => h.document.id === r.document.id)).toBe(false);
    } finally {
      other.close();
    }
  });

  it("appends a large new document's chunks in several bounded commits, and it reads back whole", async () => {
    // About 6 M characters of text, and its index text besides: more than one commit may carry (LanceDB serializes a
    // commit's rows in one synchronous go, which must not hold up other requests).
    const paragraph = (i: number) => `Paragraph ${i} records that the walrus colony ${i % 97} moved north along the coast.`;
    const text = Array.from({ length: 75_000 }, (_, i) => paragraph(i)).join("\n\n");
    const conn = await lancedb.connect(dir, { readConsistencyInterval: 0 });
    try {
      const chunksTable = await conn.openTable(TABLES.chunks);
      const before = await chunksTable.version();
      const r = await ingestDocument(store, { filename: "walrus.txt", data: enc(text), kb: "big" });
      // The row counts of the versions since: each append is one step up.
      const after = await chunksTable.version();
      const counts: number[] = [];
      for (let v = before; v <= after; v++) {
        const at = await conn.openTable(TABLES.chunks);
        await at.checkout(v);
        counts.push(await at.countRows());
        at.close();
      }
      const appends = counts.slice(1).filter((n, i) => n > counts[i]);
      expect(appends.length).toBeGreaterThanOrEqual(2);
      expect(counts.at(-1)! - counts[0]).toBe(r.document.chunkCount);
      const chunks = await store.getChunks(r.document.id);
      expect(chunks.length).toBe(r.document.chunkCount);
      expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
      expect(chunks.every((c) => c.text === text.slice(c.start, c.end))).toBe(true);
      expect(chunks.at(-1)!.end).toBe(text.length);
      expect((await searchKnowledge(store, { query: "walrus colony 96 moved north", kb: "big" }))[0].document.id).toBe(r.document.id);
    } finally {
      conn.close();
    }
  });
});

describe("document cache", () => {
  it("takes this process's own commit as written, and reads every document again after anyone else's", async () => {
    const { tables, other, close } = await tablesAndAnother();
    try {
      const cache = documentCache(tables);
      const reads = vi.spyOn(tables.documents, "query");
      const otherWrites = async (d: DocumentRecord) => (await other.openTable("documents")).add([documentToRow(d, { text: "y" })]);
      const ids = async () => titleSorted(await cache.get()).map((d) => d.id);
      const write = (docs: DocumentRecord[], meanwhile?: () => Promise<unknown>) =>
        cache.commit({ upserted: docs }, async () => {
          await meanwhile?.();
          await retryConflicts(() =>
            tables.documents
              .mergeInsert("id")
              .whenMatchedUpdateAll()
              .whenNotMatchedInsertAll()
              .execute(docs.map((d) => documentToRow(d, { text: "x" }))),
          );
        });

      expect(await ids()).toEqual([]);
      await write([docRecord("b", "Bravo"), docRecord("a", "alpha"), docRecord("c", "charlie")]);
      await write([docRecord("b", "Zulu")]); // a replacement moves to its new title's place
      expect(await ids()).toEqual(["a", "c", "b"]);
      expect((await cache.get()).byId.get("b")?.title).toBe("Zulu");
      expect(reads).toHaveBeenCalledTimes(1); // only the first, empty read

      // Another connection commits: the cache's version is no longer the one this process's commit started from.
      await otherWrites(docRecord("m", "Mike"));
      await new Promise((r) => setTimeout(r, VERSION_TTL_MS)); // another process's commit is seen this late
      await write([docRecord("d", "delta")]);
      expect(await ids()).toEqual(["a", "c", "d", "m", "b"]);
      expect(reads).toHaveBeenCalledTimes(2);
      // ... or commits while this process's commit is under way.
      await write([docRecord("e", "echo")], () => otherWrites(docRecord("n", "November")));
      expect(await ids()).toEqual(["a", "c", "d", "e", "m", "n", "b"]);
      expect(reads).toHaveBeenCalledTimes(3);
      // A read while this process's commit is under way (the table's version already moved) answers with the
      // documents before it, without reading every document.
      let during: string[] = [];
      await write([docRecord("f", "foxtrot")], async () => {
        await retryConflicts(() => tables.documents.add([documentToRow(docRecord("g", "golf"), { text: "x" })]));
        await new Promise((r) => setTimeout(r, VERSION_TTL_MS));
        during = await ids();
      });
      expect(during).toEqual(["a", "c", "d", "e", "m", "n", "b"]);
      expect(reads).toHaveBeenCalledTimes(3);
      // That commit was two versions (g, then f): the next read takes both from the table.
      expect(await ids()).toEqual(["a", "c", "d", "e", "f", "g", "m", "n", "b"]);
      expect(reads).toHaveBeenCalledTimes(4);
      // A deletion is followed the same way.
      await cache.commit({ deleted: ["c", "m"] }, () => retryConflicts(() => tables.documents.delete("id IN ('c', 'm')")));
      expect(await ids()).toEqual(["a", "d", "e", "f", "g", "n", "b"]);
      expect((await cache.get()).byId.has("c")).toBe(false);
      expect(reads).toHaveBeenCalledTimes(4);
      // Several commits with no list asked for in between: the title order is made once, when asked for, and a
      // list a reader holds does not change.
      const held = titleSorted(await cache.get());
      await write([docRecord("h", "hotel"), docRecord("a", "yankee")]);
      await cache.commit({ deleted: ["h", "d"] }, () => retryConflicts(() => tables.documents.delete("id IN ('h', 'd')")));
      await write([docRecord("i", "india")]);
      expect(await ids()).toEqual(["e", "f", "g", "i", "n", "a", "b"]);
      expect(held.map((d) => d.id)).toEqual(["a", "d", "e", "f", "g", "n", "b"]);
      expect(reads).toHaveBeenCalledTimes(4);
    } finally {
      close();
    }
  });
});

describe("documents by source and content hash", () => {
  it("follow this process's commits without reading every document again", async () => {
    const store = await openStore({ uri: await tempDir(), embedder: createNoEmbedder(), maintenanceDelayMs: 600_000 });
    try {
      const a = await ingestDocument(store, { filename: "a.md", data: enc("Alpha rules apply on Mondays.") });
      expect((await store.findDocument("default", { source: "a.md" }))?.id).toBe(a.document.id); // builds the lookup
      const b = await ingestDocument(store, { filename: "b.md", data: enc("Bravo rules apply on Tuesdays.") });
      expect((await store.findDocument("default", { source: "b.md" }))?.id).toBe(b.document.id);
      expect((await store.findDocument("default", { contentHash: b.document.contentHash }))?.id).toBe(b.document.id);
      const a2 = await ingestDocument(store, { filename: "a.md", data: enc("Alpha rules apply on Fridays now.") });
      expect(a2.status).toBe("updated");
      expect(await store.findDocument("default", { contentHash: a.document.contentHash })).toBeNull();
      expect((await store.findDocument("default", { contentHash: a2.document.contentHash }))?.id).toBe(a.document.id);
      expect((await store.findDocument("default", { source: "a.md" }))?.contentHash).toBe(a2.document.contentHash);
    } finally {
      await store.close();
    }
  });
});

describe("table versions for reads", () => {
  it("are asked of Lance once per interval, at once after this process writes, and see another's commit in time", async () => {
    const { tables, other, close } = await tablesAndAnother();
    try {
      const asked = vi.spyOn(tables.documents, "version");
      const v0 = await readVersion(tables.documents);
      expect(await readVersion(tables.documents)).toBe(v0);
      expect(asked).toHaveBeenCalledTimes(1);

      await retryConflicts(() => tables.documents.add([documentToRow(docRecord("a", "A"), { text: "x" })]));
      expect(await readVersion(tables.documents)).toBe(v0 + 1); // own write: at once

      await (await other.openTable("documents")).add([documentToRow(docRecord("b"), { text: "y" })]);
      await new Promise((r) => setTimeout(r, VERSION_TTL_MS));
      expect(await readVersion(tables.documents)).toBe(v0 + 2); // another's: within the interval
    } finally {
      close();
    }
  });
});

describe("full-text index creation", () => {
  it("is shared by a write and a maintenance run that both find none, and a concurrent build elsewhere is taken", async () => {
    const { tables, other, close } = await tablesAndAnother();
    const indexes = await openIndexes(tables, { maintenanceDelayMs: 600_000 }, recentWrites(), gate());
    try {
      const text = "The heron fishes at dawn.";
      const row = (i: number) =>
        chunkToRow({
          id: `d:${i}`,
          documentId: "d",
          kb: "k",
          index: i,
          heading: "",
          start: 0,
          end: text.length,
          page: null,
          text,
          indexText: "heron fish dawn",
          textHash: "",
          vector: [],
        });
      await tables.chunks.add([row(0)]);
      // The first write's own check and a maintenance run at once: both found no index and both committed
      // CreateIndex, and the write failed with Lance's "preempted by concurrent transaction CreateIndex".
      await Promise.all([indexes.afterWrite(), indexes.optimize(), indexes.afterWrite()]);
      const fts = async () => (await tables.chunks.listIndices()).filter((i) => i.columns.includes(FTS_COLUMN));
      expect(await fts()).toHaveLength(1);
      expect(await indexes.ftsAvailable()).toBe(true);

      // Another process building it at the same moment: whichever commits second gets the conflict and takes
      // the index the first made.
      await tables.chunks.dropIndex((await fts())[0].name);
      indexes.chunksReset();
      const elsewhere = (await other.openTable("chunks")).createIndex(FTS_COLUMN, { config: whitespaceFtsIndex(), replace: true });
      const results = await Promise.allSettled([indexes.afterWrite(), elsewhere]);
      expect(results.filter((r) => r.status === "rejected").length).toBeLessThanOrEqual(1); // `elsewhere` may lose
      expect(results[0].status).toBe("fulfilled");
      expect(await fts()).toHaveLength(1);
    } finally {
      await indexes.stop();
      close();
    }
  });
});

describe("approximate vector index", () => {
  it("is built past the row threshold and stays current through adds and deletes", async () => {
    const dir = await tempDir();
    const embedder = createOfflineEmbedder(64);
    const store = await openStore({ uri: dir, embedder, vectorIndexMinRows: 60 });
    try {
      const words = Array.from({ length: 70 }, (_, i) => `word${i.toString(36)}x${(i * 7919).toString(36)}`);
      for (const [i, w] of words.entries())
        await ingestDocument(store, { filename: `d${i}.md`, data: enc(`Document ${i} is about ${w}.`) });
      await store.optimize();
      const conn = await lancedb.connect(dir);
      const indices = await (await conn.openTable("chunks")).listIndices();
      expect(indices.map((i) => i.columns[0]).sort()).toEqual(["index_text", "vector"]);
      const top = async (text: string) => (await store.vectorSearch((await embedder.embed([text]))[0], { limit: 3 }))[0]?.text;
      expect(await top(`Document 5 is about ${words[5]}.`)).toBe(`Document 5 is about ${words[5]}.`);
      // Rows added after the index was built are still found, deleted ones are gone.
      const late = await ingestDocument(store, { filename: "late.md", data: enc("A late note about capybaras.") });
      expect(await top("A late note about capybaras.")).toBe("A late note about capybaras.");
      await store.deleteDocument(late.document.id);
      await store.optimize();
      expect(await top("A late note about capybaras.")).not.toBe("A late note about capybaras.");
      expect((await searchKnowledge(store, { query: words[42] }))[0].chunk.text).toContain(words[42]);
      conn.close();
    } finally {
      await store.close();
    }
  });
});

describe("offline search and the full-text index's lag", () => {
  it("knows when the index lags behind a write, and finds what this process just wrote in memory until maintenance", async () => {
    const dir = await tempDir();
    const store = await openStore({ uri: dir, embedder: createOfflineEmbedder(64), maintenanceDelayMs: 600_000 });
    try {
      expect((await store.textIndexState()).complete).toBe(false); // no index yet
      await ingestDocument(store, { filename: "a.md", data: enc("The heron nests in reeds.") });
      await store.optimize();
      const covered = await store.textIndexState();
      expect(covered.complete).toBe(true);
      // The only indexed row says "heron"; the new one is scored by a flat scan against that index.
      await ingestDocument(store, { filename: "b.md", data: enc("The heron fishes at dawn.") });
      const lagging = await store.textIndexState();
      expect(lagging.version).toBeGreaterThan(covered.version);
      expect(lagging.complete).toBe(false);
      const before = await searchKnowledge(store, { query: "heron fishes" });
      expect(before.map((h) => h.document.source)).toContain("b.md");
      expect(store.recentChunks().map((r) => r.chunk.text)).toEqual(["The heron fishes at dawn."]);
      await store.optimize();
      expect((await store.textIndexState()).complete).toBe(true);
      expect(store.recentChunks()).toEqual([]); // folded into the index
      expect(await topSource(store, "heron fishes")).toBe("b.md");
    } finally {
      await store.close();
    }
  });

  it("leaves the rows the index lacks out of a search that also looks in the freshness net, while this process wrote them all", async () => {
    const dir = await tempDir();
    const opts = { uri: dir, embedder: createNoEmbedder(), maintenanceDelayMs: 600_000 };
    const store = await openStore(opts);
    const other = await openStore(opts); // another process, as far as the first store can tell
    const ids = async (q: string, withRecent: boolean) =>
      (await store.textSearch(toIndexText(q), { limit: 5, withRecent })).map((c) => c.documentId);
    try {
      const birds = ["heron", "egret", "curlew", "plover"].map((b) => `The ${b} wades in the shallow water of the bay.`);
      for (const [i, text] of birds.entries()) await ingestDocument(store, { filename: `${i}.md`, data: enc(text) });
      await store.optimize();
      const dunlin = await ingestDocument(store, { filename: "dunlin.md", data: enc("The dunlin wades in the bay at dusk.") });
      const heron = await store.findDocument("default", { source: "0.md" });
      await store.deleteDocument(heron!.id); // a delete of this process keeps the rule
      expect(await store.textIndexState()).toMatchObject({ complete: false, inRecent: true });
      expect(await ids("dunlin wades", false)).toContain(dunlin.document.id); // Lance scans the unindexed rows
      expect(await ids("dunlin wades", true)).not.toContain(dunlin.document.id); // the net has them: no scan
      expect(await topSource(store, "dunlin wades")).toBe("dunlin.md");

      // Another process's write: the unindexed rows are no longer all in this process's net.
      const sanderling = await ingestDocument(other, { filename: "s.md", data: enc("The sanderling wades in the bay at noon.") });
      await new Promise((r) => setTimeout(r, VERSION_TTL_MS + 20));
      expect((await store.textIndexState()).inRecent).toBe(false);
      expect(await ids("sanderling wades", true)).toContain(sanderling.document.id);

      // Once the index covers every row again, this process's writes are left to the net again.
      await store.optimize();
      const knot = await ingestDocument(store, { filename: "knot.md", data: enc("The knot wades in the bay at dawn.") });
      expect(await ids("knot wades", true)).not.toContain(knot.document.id);
      expect(await ids("knot wades", false)).toContain(knot.document.id);
    } finally {
      other.close();
      await store.close();
    }
  });

  it("answers the body of a document this process just wrote from memory, not by scanning the documents table", async () => {
    const dir = await tempDir();
    const store = await openStore({ uri: dir, embedder: createNoEmbedder(), maintenanceDelayMs: 600_000 });
    const conn = await lancedb.connect(dir);
    try {
      const text = "The oystercatcher opens mussels with its bill.";
      const r = await ingestDocument(store, { filename: "o.md", data: enc(text) });
      const table = Object.getPrototypeOf(await conn.openTable(TABLES.documents));
      const reads = [vi.spyOn(table, "query"), vi.spyOn(table, "takeRowIds")];
      expect(await store.getDocumentText(r.document.id)).toBe(text);
      for (const read of reads) expect(read).not.toHaveBeenCalled();
      for (const read of reads) read.mockRestore();
    } finally {
      conn.close();
      await store.close();
    }
  });

  it("leaves to the net again the rows this process wrote while its fold ran, once the fold is over", async () => {
    const { tables, other, close } = await tablesAndAnother();
    const recent = recentWrites();
    const fts = createFtsIndex(tables, recent);
    const chunk = (documentId: string, word: string) => {
      const text = `The ${word} wades in the bay.`;
      return {
        id: `${documentId}:0`,
        documentId,
        kb: "k",
        index: 0,
        heading: "",
        start: 0,
        end: text.length,
        page: null,
        text,
        indexText: `${word} wade bay`,
      };
    };
    const add = (table: lancedb.Table, c: ReturnType<typeof chunk>) =>
      retryConflicts(() => table.add([chunkToRow({ ...c, textHash: "", vector: [] })]));
    const ownWrite = async (c: ReturnType<typeof chunk>) => {
      const done = fts.beginWrite();
      await add(tables.chunks, c);
      recent.add([c]);
      done(1);
    };
    try {
      await add(tables.chunks, chunk("a", "heron"));
      await fts.ensure();
      expect((await fts.coverage()).complete).toBe(true);
      await ownWrite(chunk("b", "egret"));
      expect(await fts.coverage()).toMatchObject({ complete: false, inRecent: true });

      // A fold (compaction and index update), then a write of this process that the index does not cover.
      const from = await fts.beforeFold();
      await retryConflicts(() => tables.chunks.optimize());
      await ownWrite(chunk("c", "curlew"));
      expect((await fts.coverage()).inRecent).toBe(false); // the fold's commits are not writes of this process
      await fts.folded(from);
      expect(await fts.coverage()).toMatchObject({ complete: false, inRecent: true });

      // Another process's write after that: its rows are not in this process's net.
      await add(await other.openTable(TABLES.chunks), chunk("d", "plover"));
      await new Promise((r) => setTimeout(r, VERSION_TTL_MS + 20));
      expect((await fts.coverage()).inRecent).toBe(false);
    } finally {
      close();
    }
  });

  it("holds a delete back while a fold of the big tables runs, so Lance does not fail the fold for it", async () => {
    const dir = await tempDir();
    const store = await openStore({ uri: dir, embedder: createNoEmbedder(), maintenanceDelayMs: 600_000 });
    const conn = await lancedb.connect(dir, { readConsistencyInterval: 0 });
    try {
      const paragraph = (d: number, i: number) => `Document ${d}, paragraph ${i}: the tide at station ${i % 89} rose early.`;
      const ids: string[] = [];
      for (let d = 0; d < 12; d++) {
        const text = Array.from({ length: 4000 }, (_, i) => paragraph(d, i)).join("\n\n");
        ids.push((await ingestDocument(store, { filename: `${d}.txt`, data: enc(text) })).document.id);
      }
      const chunks = await conn.openTable(TABLES.chunks);
      expect((await chunks.stats()).fragmentStats.numFragments).toBeGreaterThan(1);
      // The delete comes while the fold rewrites the fragments: without the hold, Lance fails the fold
      // ("Rewrite transaction was preempted by concurrent transaction Delete") and nothing is compacted.
      const fold = store.optimize();
      await new Promise((r) => setTimeout(r, 50));
      expect(await store.deleteDocument(ids[3])).toBe(true);
      await fold;
      await chunks.checkout((await chunks.listVersions()).at(-1)!.version);
      expect((await chunks.stats()).fragmentStats.numFragments).toBe(1);
      expect(await store.getDocument(ids[3])).toBeNull();
      expect(await store.getChunks(ids[3])).toEqual([]);
    } finally {
      conn.close();
      await store.close();
    }
  });

  it("knows when the freshness net dropped a chunk the index does not cover", () => {
    const recent = recentWrites(2);
    const chunk = (id: string) => {
      const [documentId, index] = id.split(":");
      return {
        id,
        documentId,
        kb: "k",
        index: Number(index),
        heading: "",
        start: 0,
        end: 5,
        page: null,
        text: "heron",
        indexText: "heron",
      };
    };
    recent.add([chunk("a:0")]);
    const g = recent.generation();
    recent.add([chunk("b:0"), chunk("b:1")]); // a:0 dropped
    expect(recent.overflowed()).toBe(true);
    recent.foldedUpTo(g); // a:0 is in the index now
    expect(recent.overflowed()).toBe(false);
    recent.add([chunk("c:0")]); // b:0 dropped, not folded
    expect(recent.overflowed()).toBe(true);

    const big = recentWrites(2);
    big.add([chunk("d:0"), chunk("d:1"), chunk("d:2")]); // one document over the cap: d:0 never got in
    expect(big.overflowed()).toBe(true);
    const cleared = recentWrites(2);
    cleared.add([chunk("e:0")]);
    cleared.clear(); // a knowledge base deleted or moved: e:0 is not folded and no longer in the net
    expect(cleared.overflowed()).toBe(true);

    // A write's chunks are in the net before its commit, in place of the document's old ones; a fold that began
    // before the commit landed leaves them there, and a failed write takes them out and stops the net vouching.
    const staging = recentWrites(10);
    staging.add([chunk("f:0"), chunk("f:1")]);
    const ids = () => staging.list().map((r) => r.chunk.id);
    const write = staging.stage([chunk("f:0")], ["f"]);
    expect(ids()).toEqual(["f:0"]);
    staging.foldedUpTo(staging.generation());
    expect(ids()).toEqual(["f:0"]);
    write.commit();
    staging.foldedUpTo(staging.generation());
    expect(ids()).toEqual([]);
    staging.add([chunk("g:0")]);
    const failed = staging.stage([chunk("g:1")], ["g"]);
    failed.abort();
    expect(ids()).toEqual([]);
    expect(staging.overflowed()).toBe(true);
    staging.foldedUpTo(staging.generation());
    expect(staging.overflowed()).toBe(false);
  });

  it("still finds unindexed chunks after the freshness net was cleared without a write to them", async () => {
    const dir = await tempDir();
    const store = await openStore({ uri: dir, embedder: createNoEmbedder(), maintenanceDelayMs: 600_000 });
    try {
      await ingestDocument(store, { filename: "a.md", data: enc("The avocet sweeps its bill through the mud.") });
      await store.optimize();
      const godwit = await ingestDocument(store, { filename: "g.md", data: enc("The godwit probes deep mud for worms.") });
      await store.deleteKb("nothing-here"); // clears the net, commits nothing to the chunks
      expect((await store.textIndexState()).inRecent).toBe(false);
      expect((await searchKnowledge(store, { query: "godwit probes mud" }))[0]?.document.id).toBe(godwit.document.id);
    } finally {
      await store.close();
    }
  });

  /** Waits (at most 20 s) for background maintenance to fold every chunk into the full-text index. */
  const untilIndexed = (store: Store) =>
    vi.waitFor(async () => expect((await store.textIndexState()).complete).toBe(true), { timeout: 20_000, interval: 100 });

  /** Waits (at most 20 s) until `count` documents are stored (a write's document rows land after its chunks). */
  const untilDocuments = (store: Store, count: number) =>
    vi.waitFor(async () => expect(await store.listDocuments()).toHaveLength(count), { timeout: 20_000, interval: 50 });

  /** Once a background run has come and gone, the new writes are still out of the index, yet a search finds `source`. */
  async function expectUnfoldedYetFound(store: Store, query: string, source: string) {
    await new Promise((r) => setTimeout(r, 100));
    await store.maintenanceIdle();
    expect((await store.textIndexState()).complete).toBe(false);
    expect(await topSource(store, query)).toBe(source);
  }

  /**
   * A store that counts as big past 10 chunks, holding 80 chunks all in the full-text index, whose background
   * maintenance runs 20 ms after a write.
   */
  async function bigIndexedStore(opts: Partial<OpenStoreOptions> = {}): Promise<Store> {
    const store = await openStore({
      uri: await tempDir(),
      embedder: createNoEmbedder(),
      maintenanceDelayMs: 20,
      foldAlwaysBelowRows: 10,
      ...opts,
    });
    const crane = (i: number) =>
      `Paragraph ${i} describes harbour crane number ${i}: ${"its boom, cab, cables and hook are inspected. ".repeat(8)}`;
    const paragraphs = Array.from({ length: 80 }, (_, i) => crane(i)); // about one chunk each
    await ingestDocument(store, { filename: "cranes.md", data: enc(paragraphs.join("\n\n")) });
    await store.optimize();
    expect((await store.textIndexState()).complete).toBe(true);
    return store;
  }

  it("on a big store, leaves a small write out of the index until enough wait, and still finds it", async () => {
    const store = await bigIndexedStore();
    try {
      await ingestDocument(store, { filename: "heron.md", data: enc("The heron fishes at dawn.") }); // 1 chunk: under 2 %
      await expectUnfoldedYetFound(store, "heron fishes dawn", "heron.md");
      await store.optimize(); // explicit: folds
      expect((await store.textIndexState()).complete).toBe(true);
      expect(await topSource(store, "heron fishes dawn")).toBe("heron.md");
    } finally {
      await store.close();
    }
  });

  it("on a big store, folds a burst of writes only once a quarter waits or the writes stop", async () => {
    const store = await bigIndexedStore({ writeQuietMs: 1500 });
    try {
      // Five one-chunk documents in a row: over 2 % of the chunks, under a quarter, while writes continue.
      for (const bird of ["heron", "egret", "curlew", "plover", "dunlin"]) {
        await ingestDocument(store, { filename: `${bird}.md`, data: enc(`The ${bird} feeds on the mudflats at low tide.`) });
      }
      await expectUnfoldedYetFound(store, "dunlin mudflats", "dunlin.md"); // a 2 % fold would have run here
      // Once the writes stop, the next background run folds them.
      await untilIndexed(store);
      expect(await topSource(store, "dunlin mudflats")).toBe("dunlin.md");
    } finally {
      await store.close();
    }
  });

  it("leaves an upload to a store of a few hundred chunks out of the index until enough wait (each fold costs memory)", async () => {
    const store = await openStore({ uri: await tempDir(), embedder: createNoEmbedder(), maintenanceDelayMs: 20 });
    try {
      const batch = createBatchIngest(store);
      const para = (d: number, p: number) =>
        `Section ${p} of report ${d}: ${Array.from({ length: 60 }, (_, w) => `w${(d * 131 + p * 17 + w * 7) % 4999}`).join(" ")}.`;
      // One section per paragraph: each is a chunk (paragraphs of one section are packed up to 1,500 characters).
      for (let d = 0; d < 8; d++) {
        const text = Array.from({ length: 40 }, (_, p) => `## Part ${p}\n\n${para(d, p)}`).join("\n\n");
        await batch.add({ filename: `report-${d}.md`, data: enc(text) });
      }
      expect(await batch.flush()).toEqual([]);
      await store.optimize();
      expect((await store.stats()).rows.chunks).toBeGreaterThan(300);
      await ingestDocument(store, { filename: "heron.md", data: enc("The heron fishes at dawn.") });
      await expectUnfoldedYetFound(store, "heron fishes dawn", "heron.md");
    } finally {
      await store.close();
    }
  });

  it("leaves a batch ingest's writes unfolded until it flushes, even on a small store", async () => {
    const store = await openStore({ uri: await tempDir(), embedder: createNoEmbedder(), maintenanceDelayMs: 20 });
    try {
      await ingestDocument(store, { filename: "first.md", data: enc("The avocet sweeps its bill through shallow water.") });
      await store.optimize();
      const batch = createBatchIngest(store, { maxChunks: 1 }); // a commit per document
      for (const bird of ["heron", "egret", "curlew"]) {
        await batch.add({ filename: `${bird}.md`, data: enc(`The ${bird} feeds on the mudflats at low tide.`) });
      }
      // add() returns before its commit lands (commits run in the background): wait for all three, bulk still open.
      await untilDocuments(store, 4);
      await expectUnfoldedYetFound(store, "egret mudflats", "egret.md"); // a small store folds every write otherwise
      expect(await batch.flush()).toEqual([]);
      await untilIndexed(store);
      expect(await topSource(store, "curlew mudflats")).toBe("curlew.md");
    } finally {
      await store.close();
    }
  });

  it("rebuilds the full-text index in one piece once most of its rows came in by updates", async () => {
    const dir = await tempDir();
    const store = await openStore({ uri: dir, embedder: createNoEmbedder(), maintenanceDelayMs: 600_000 });
    // The index's pieces on disk (one token dictionary each); old versions are removed by retainMs 0.
    const pieces = async () =>
      (await readdir(path.join(dir, "chunks.lance", "_indices"), { recursive: true })).filter((f) => /part_\d+_tokens\.lance$/.test(f))
        .length;
    try {
      await ingestDocument(store, { filename: "first.md", data: enc("The heron nests in reeds.") }); // index built over 1 row
      for (let i = 0; i < 4; i++)
        await ingestDocument(store, { filename: `more-${i}.md`, data: enc(`Bird ${i}: the egret ${i} wades in shallow water.`) });
      await store.optimize({ retainMs: 0 });
      expect(await pieces()).toBe(1);
      expect((await store.textIndexState()).complete).toBe(true);
      expect(await topSource(store, "egret 3 wades")).toBe("more-3.md");
      expect(await topSource(store, "heron reeds")).toBe("first.md");
    } finally {
      await store.close();
    }
  });
});

describe("embedder identity", () => {
  it("refuses a store built with another embedder, with a reindex hint", async () => {
    const dir = await tempDir();
    const a = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
    await ingestDocument(a, { filename: "x.md", data: enc("Some text.") });
    a.close();
    const err = await openStore({ uri: dir, embedder: createOfflineEmbedder(32) }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("embedder_mismatch");
    expect(err.message).toContain("offline-hash-v1-64 (dim 64)");
    expect(err.message).toContain("offline-hash-v1-32 (dim 32)");
    expect(err.message).toContain("npm run ingest -- --reindex");
    const same = { name: "custom", dimension: 64, embed: createOfflineEmbedder(64).embed };
    await expect(openStore({ uri: dir, embedder: same })).rejects.toMatchObject({ code: "embedder_mismatch" });
    // The original embedder still opens it.
    const again = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
    expect(await again.listDocuments()).toHaveLength(1);
    again.close();
  });

  it("adopts a new embedder while nothing is embedded yet", async () => {
    const dir = await tempDir();
    (await openStore({ uri: dir, embedder: createOfflineEmbedder(64) })).close();
    const b = await openStore({ uri: dir, embedder: createOfflineEmbedder(32) });
    await ingestDocument(b, { filename: "y.md", data: enc("Other text about owls.") });
    expect(await topSource(b, "owls")).toBe("y.md");
    b.close();
  });

  it("a running store errors instead of answering after another process reindexed with another embedder", async () => {
    const dir = await tempDir();
    const a = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
    await ingestDocument(a, { filename: "x.md", data: enc("Some text about herons.") });
    const { reindexAll } = await import("@/lib/ingest");
    const b = await openStore({ uri: dir, embedder: createOfflineEmbedder(32), allowMismatch: true });
    expect(b.mismatch).toContain("dim 64");
    await reindexAll(b);
    expect(b.mismatch).toBeNull();
    expect(await topSource(b, "herons")).toBe("x.md");
    await expect(searchKnowledge(a, { query: "herons" })).rejects.toMatchObject({ code: "embedder_mismatch" });
    a.close();
    b.close();
  });
});

describe("getStore", () => {
  it("shares one store per process, opened from the config, and does not cache a failed open", async () => {
    const { getStore } = await import("@/lib/store/index");
    const key = Symbol.for("kb-mcp-chat.store");
    const saved = { ...process.env };
    const dir = await tempDir();
    try {
      Object.assign(process.env, { DATA_DIR: dir, EMBEDDING_PROVIDER: "offline", EMBEDDING_DIMENSION: "64" });
      const a = getStore();
      expect(getStore()).toBe(a);
      const store = await a;
      expect(store.uri).toBe(dir);
      expect(store.embedder.dimension).toBe(64);
      await ingestDocument(store, { filename: "g.md", data: enc("Global store text.") });
      await store.close();
      delete (globalThis as Record<symbol, unknown>)[key];

      process.env.EMBEDDING_DIMENSION = "32"; // the index was built with 64
      const failed = getStore();
      await expect(failed).rejects.toMatchObject({ code: "embedder_mismatch" });
      expect(getStore()).not.toBe(failed);
      await getStore().catch(() => undefined);
    } finally {
      process.env = saved;
      delete (globalThis as Record<symbol, unknown>)[key];
    }
  });
});

describe("a store that keeps no vectors (the offline default)", () => {
  it("has no vector column, ingests, finds, moves and deletes by full text, and refuses vector search", async () => {
    const store = await openStore({ uri: await tempDir(), embedder: createNoEmbedder() });
    try {
      expect((await store.stats()).rows.chunks).toBe(0);
      const a = await ingestDocument(store, { filename: "leave.md", data: enc("# Leave\n\nAnnual leave is 25 days a year.") });
      await ingestDocument(store, { filename: "travel.md", data: enc("# Travel\n\nTrain tickets are refunded within a month.") });
      const hits = await searchKnowledge(store, { query: "how many days of annual leave" });
      expect(hits[0].document.id).toBe(a.document.id);
      await expect(searchKnowledge(store, { query: "leave" }, { mode: "vector" })).rejects.toMatchObject({ code: "bad_request" });
      expect(await store.moveKb("default", "hr", (d) => `hr-${d.id}`)).toBe(2);
      expect((await searchKnowledge(store, { query: "annual leave", kb: "hr" }))[0].document.id).toBe(`hr-${a.document.id}`);
      expect(await store.deleteDocument(`hr-${a.document.id}`)).toBe(true);
      await store.optimize();
      expect(await searchKnowledge(store, { query: "annual leave", kb: "hr" })).toEqual([]);
    } finally {
      await store.close();
    }
    const conn = await lancedb.connect(store.uri);
    const fields = (await (await conn.openTable("chunks")).schema()).fields.map((f) => f.name);
    expect(fields).toContain("index_text");
    expect(fields).not.toContain("vector");
    conn.close();
  });

  it("an app with no embedder chosen keeps serving a store built with offline vectors; a chosen one is refused", async () => {
    const dir = await tempDir();
    const built = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
    await ingestDocument(built, { filename: "old.md", data: enc("Stored before the upgrade.") });
    built.close();
    const saved = { ...process.env };
    try {
      process.env = { ...saved, DATA_DIR: dir, EMBEDDING_PROVIDER: "", EMBEDDING_MODEL: "", EMBEDDING_DIMENSION: "" };
      expect((await configuredEmbedder()).name).toBe("offline-hash-v1-64");
      process.env.EMBEDDING_PROVIDER = "none";
      const none = await configuredEmbedder();
      expect(none.name).toBe("none");
      await expect(openStore({ uri: dir, embedder: none })).rejects.toMatchObject({ code: "embedder_mismatch" });
    } finally {
      process.env = saved;
    }
  });
});

describe("cross-process visibility", () => {
  it("a store open in this process sees a document the CLI (another process) ingested", async () => {
    const dir = await tempDir();
    const store = await openStore({ uri: dir, embedder: createOfflineEmbedder(512) });
    try {
      expect(await store.listDocuments()).toEqual([]);
      const file = path.join(await tempDir(), "cli-doc.md");
      await writeFile(file, "# CLI document\n\nThe wombat digs burrows with its claws.");
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [path.join(repoRoot, "node_modules/tsx/dist/cli.mjs"), "scripts/ingest.ts", file, "--kb", "cli", "--tags", "x,y"],
        {
          cwd: repoRoot,
          env: {
            ...process.env,
            DATA_DIR: dir,
            EMBEDDING_PROVIDER: "offline",
            EMBEDDING_DIMENSION: "512",
            EMBEDDING_MODEL: "",
            STORE_VERSION_RETENTION_S: "1",
          },
        },
      );
      expect(stdout).toMatch(/added 1, updated 0, unchanged 0, failed 0/);
      const docs = await store.listDocuments();
      expect(docs).toHaveLength(1);
      expect(docs[0]).toMatchObject({ source: "cli-doc.md", kb: "cli", origin: "cli", tags: ["x", "y"], title: "CLI document" });
      const hits = await searchKnowledge(store, { query: "wombat burrows" });
      expect(hits[0].document.source).toBe("cli-doc.md");
    } finally {
      await store.close();
    }
  }, 180_000); // a second process (tsx start-up) on a loaded 2-core machine
});

describe("side tables", () => {
  it("are opened once on the store's connection, compacted by its maintenance and closed with it", async () => {
    const dir = await tempDir();
    const store = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
    const schema = new Schema([new Field("key", new Utf8(), false)]);
    let closed = false;
    try {
      const side = await store.sideTable("notes", schema);
      expect(await store.sideTable("notes", schema)).toBe(side);
      for (const key of ["a", "b", "c"]) await side.write((t) => t.add([{ key }]));
      expect((await side.table.stats()).fragmentStats.numFragments).toBe(3);
      await store.optimize({ retainMs: 0 });
      expect((await side.table.stats()).fragmentStats.numFragments).toBe(1);
      expect(await side.table.countRows()).toBe(3);
      await side.recreate(schema);
      expect(await side.table.countRows()).toBe(0);
      const table = side.table;
      closed = true;
      await store.close();
      expect(table.isOpen()).toBe(false);
      await expect(store.sideTable("other", schema)).rejects.toThrow(/closed/);
    } finally {
      if (!closed) store.close();
    }
  });
});
