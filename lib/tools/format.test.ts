import { describe, expect, it } from "vitest";
import { titleWithHeading } from "@/lib/chunk/heading";
import type { ChunkRecord, SearchHit } from "@/lib/types";
import {
  chunkWindow,
  formatChunkWindow,
  formatDocumentList,
  formatDocumentText,
  formatSearchResults,
  sliceText,
  toSearchResults,
  toWindowChunks,
} from "./format";

function chunk(i: number, over: Partial<ChunkRecord> = {}): ChunkRecord {
  return {
    id: `c${i}`,
    documentId: "d1",
    kb: "default",
    index: i,
    heading: "",
    start: i * 10,
    end: i * 10 + 10,
    page: null,
    text: `text ${i}`,
    ...over,
  };
}

function hit(i: number, over: Partial<ChunkRecord> = {}, title = "Handbook"): SearchHit {
  return { chunk: chunk(i, over), document: { id: "d1", title, source: "handbook.md", kb: "default" }, score: 1 / (i + 1) };
}

describe("toSearchResults", () => {
  it("numbers results from 1 in rank order and keeps page only when known", () => {
    const results = toSearchResults([hit(4, { page: 3 }), hit(2), hit(7)]);
    expect(results.map((r) => r.ref)).toEqual([1, 2, 3]);
    expect(results.map((r) => r.chunk_id)).toEqual(["c4", "c2", "c7"]);
    expect(results[0].page).toBe(3);
    expect("page" in results[1]).toBe(false);
    expect(results[0].document).toEqual({ id: "d1", title: "Handbook", source: "handbook.md" });
    expect(results[0].kb).toBe("default");
  });
});

describe("titleWithHeading", () => {
  it("joins title and heading path", () => {
    expect(titleWithHeading("Handbook", "Leave › Sick leave")).toBe("Handbook › Leave › Sick leave");
  });
  it("does not repeat the title when the heading path starts with it", () => {
    expect(titleWithHeading("Handbook", "Handbook › Leave")).toBe("Handbook › Leave");
  });
  it("is the title alone without heading", () => {
    expect(titleWithHeading("员工手册", "")).toBe("员工手册");
  });
});

describe("formatSearchResults", () => {
  it("lists one block per result starting with [ref] title › heading, then the text", () => {
    const text = formatSearchResults(
      toSearchResults([hit(1, { heading: "Leave", text: "20 days a year" }), hit(2, { page: 4, text: "Claims" })]),
      "annual leave",
    );
    const blocks = text.split("\n\n");
    expect(blocks[0]).toContain('2 results for "annual leave"');
    expect(blocks[1].split("\n")[0]).toBe("[1] Handbook › Leave");
    expect(blocks[1]).toContain("chunk_id: c1");
    expect(blocks[1].endsWith("20 days a year")).toBe(true);
    expect(blocks[2].split("\n")[0]).toBe("[2] Handbook");
    expect(blocks[2]).toContain("page 4");
  });
  it("says nothing was found, naming the kb", () => {
    const text = formatSearchResults([], "unicorns", "hr");
    expect(text).toMatch(/^No results found for "unicorns" in knowledge base "hr"/);
  });
});

describe("formatDocumentList", () => {
  it("lists ids and chunk counts", () => {
    const text = formatDocumentList([
      { id: "d1", title: "Handbook", source: "handbook.md", kb: "default", chunk_count: 1, mime_type: "text/markdown", updated_at: "" },
      { id: "d2", title: "FAQ", source: "faq.md", kb: "default", chunk_count: 12, mime_type: "text/markdown", updated_at: "" },
    ]);
    expect(text.split("\n")).toEqual([
      "2 documents in the knowledge base:",
      "- Handbook (handbook.md) — document_id: d1, kb: default, 1 chunk",
      "- FAQ (faq.md) — document_id: d2, kb: default, 12 chunks",
    ]);
  });
  it("says when there are none", () => {
    expect(formatDocumentList([], "x")).toBe('No documents in knowledge base "x".');
  });
});

describe("sliceText", () => {
  const full = "a".repeat(25);
  it("returns everything when short", () => {
    expect(sliceText(full, 0, 100)).toEqual({ text: full, offset: 0, end: 25, total_chars: 25, truncated: false });
  });
  it("truncates and points at the next offset", () => {
    const s = sliceText(full, 0, 10)!;
    expect(s).toMatchObject({ offset: 0, end: 10, truncated: true, next_offset: 10 });
    expect(s.text).toHaveLength(10);
    expect(sliceText(full, 20, 10)).toMatchObject({ text: "aaaaa", end: 25, truncated: false });
  });
  it("rejects an offset past the end, but reads an empty document", () => {
    expect(sliceText(full, 25, 10)).toBeNull();
    expect(sliceText("", 0, 10)).toMatchObject({ text: "", truncated: false });
  });
  it("tells the reader how to continue", () => {
    const doc = { id: "d1", title: "T", source: "t.md", kb: "default" };
    expect(formatDocumentText(doc, sliceText(full, 0, 10)!)).toContain("offset: 10");
    expect(formatDocumentText(doc, sliceText(full, 0, 100)!)).not.toContain("Truncated");
  });
});

describe("chunkWindow", () => {
  const chunks = [0, 1, 2, 3, 4, 5].map((i) => chunk(i));
  it("takes neighbours before and after, clipped at the ends", () => {
    expect(chunkWindow(chunks, "c3", 2, 1)!.map((c) => c.id)).toEqual(["c1", "c2", "c3", "c4"]);
    expect(chunkWindow(chunks, "c0", 2, 2)!.map((c) => c.id)).toEqual(["c0", "c1", "c2"]);
    expect(chunkWindow(chunks, "c5", 0, 3)!.map((c) => c.id)).toEqual(["c5"]);
  });
  it("is null for a chunk not in the list", () => {
    expect(chunkWindow(chunks, "zz", 1, 1)).toBeNull();
  });
  it("marks the requested chunk in data and text", () => {
    const w = toWindowChunks(chunkWindow(chunks, "c2", 1, 1)!, "c2");
    expect(w.map((c) => c.requested)).toEqual([false, true, false]);
    const text = formatChunkWindow({ id: "d1", title: "T", source: "t.md", kb: "default" }, w, 6);
    expect(text).toContain("[chunk #2, requested]");
    expect(text).toContain("[chunk #1]");
    expect(text.indexOf("text 1")).toBeLessThan(text.indexOf("text 2"));
  });
});
