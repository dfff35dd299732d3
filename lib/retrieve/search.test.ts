/**
 * The retrieval pipeline end to end on a real LanceDB in a temp dir: query analysis, the lexical reranker,
 * a cross-encoder behind a local fake /rerank server (and its fallback), small-to-big context.
 */

import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { ingestDocument } from "@/lib/ingest";
import { openStore, type Store } from "@/lib/store";
import { hitContexts } from "./context";
import { searchKnowledge } from "./index";

const enc = (s: string) => new TextEncoder().encode(s);
let dir: string;
let store: Store;
let port = 0;
// The fake cross-encoder prefers documents that mention "penguin".
const server = http.createServer((req, res) => {
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    const { documents } = JSON.parse(raw) as { documents: string[] };
    const results = documents.map((d, index) => ({ index, relevance_score: d.includes("penguin") ? 1 : 0 }));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }));
  });
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "search-test-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(256) });
  const docs: [string, string][] = [
    [
      "leave.md",
      "# Leave policy\n\nEmployees get 12 days of sick leave per year. A doctor's note is needed after three days.\n\nAnnual leave is 20 days.",
    ],
    [
      "birds.md",
      "# Birds\n\nThe emperor penguin breeds in the Antarctic winter. Sick birds are rare in the colony.\n\nPenguins cannot fly.",
    ],
    ["zh.md", "# 请假制度\n\n员工每年有12天带薪病假。病假超过三天需要医生证明。\n\n年假为每年20天，需提前一周申请。"],
    ["zh2.md", "# 报销流程\n\n员工先填写报销申请单，由部门经理审批。什么费用可以报销由财务部决定。"],
  ];
  for (const [filename, text] of docs) await ingestDocument(store, { filename, data: enc(text), kb: "t", origin: "cli" });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  await store.close();
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

describe("searchKnowledge", () => {
  it("answers a Chinese question by its content words, not its question words", async () => {
    const hits = await searchKnowledge(store, { query: "病假需要什么证明？" });
    expect(hits[0].document.source).toBe("zh.md");
    expect(hits[0].chunk.text).toContain("医生证明");
  });

  it("matches English across inflections and prefers the chunk holding all the terms", async () => {
    const hits = await searchKnowledge(store, { query: "How many days of sick leave do employees get?" });
    expect(hits[0].document.source).toBe("leave.md");
    expect(hits[0].chunk.text).toContain("12 days of sick leave");
  });

  it("lets a configured cross-encoder reorder the top results, and keeps the lexical order when it is unreachable", async () => {
    const ce = { baseUrl: `http://127.0.0.1:${port}`, model: "fake", topN: 20, timeoutMs: 2000 };
    const lexical = await searchKnowledge(store, { query: "sick leave" }, { crossEncoder: null });
    expect(lexical[0].document.source).toBe("leave.md");
    const reranked = await searchKnowledge(store, { query: "sick leave" }, { crossEncoder: ce });
    expect(reranked[0].document.source).toBe("birds.md");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const down = await searchKnowledge(store, { query: "sick leave" }, { crossEncoder: { ...ce, baseUrl: "http://127.0.0.1:9" } });
    expect(down.map((h) => h.chunk.id)).toEqual(lexical.map((h) => h.chunk.id));
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });

  it("gives each hit the whole sentences around it", async () => {
    const hits = await searchKnowledge(store, { query: "annual leave 20 days" });
    const [ctx] = await hitContexts(store, hits.slice(0, 1));
    expect(hits[0].document.source).toBe("leave.md");
    const full = (await store.getDocumentText(hits[0].document.id))!;
    expect(full.slice(0, hits[0].chunk.start).trim().endsWith(ctx.before)).toBe(true);
    expect(full.slice(hits[0].chunk.end).trim().startsWith(ctx.after)).toBe(true);
  });
});
