/**
 * The knowledge bases an answer drew from, as the chat records them while each tool result arrives: through the
 * real MCP handler over HTTP on a real store with a public and a secret knowledge base, every reading tool the
 * chat offers (search, one knowledge base's search, FAQ search, list, read), and the connectors' fetch and
 * search, which the chat never offers, through an MCP client.
 */

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWeb, type WebServer } from "@/e2e/helpers/web-server";
import type { AppConfig } from "@/lib/config";
import { createOfflineEmbedder } from "@/lib/embed";
import { getFaqStore } from "@/lib/faq/store";
import { ingestDocument } from "@/lib/ingest";
import { openRegistry, type Registry } from "@/lib/kb/registry";
import { openStore, type Store } from "@/lib/store";
import { TOOL } from "@/lib/tools/names";
import { kbsOfToolResult } from "@/lib/tools/result-kbs";
import { handleMcpRequest } from "@/mcp/http";
import { connectInMemory } from "@/mcp/test-client";
import { OFFLINE_CHAT } from "@/scripts/eval-chat/harness";
import { type RecordedAnswer, runChat } from "./chat";
import { streamingModel, streamOf, TEST_USAGE } from "./test-model";

const enc = new TextEncoder();
const SECRET = "# Project Nightingale\n\n## Budget\n\nNIGHTINGALE-7731 has a budget of 4,200,000 for the merger.\n";
const PUBLIC = "# Handbook\n\n## Annual leave\n\nFull-time employees get 20 days of annual leave per year.\n";
let dir: string;
let store: Store;
let registry: Registry;
let server: WebServer;
let mcpUrl: string;
let secretDoc: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "answer-kbs-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(256) });
  registry = await openRegistry(store, { defaultKb: "default" });
  await ingestDocument(store, { filename: "handbook.md", kb: "default", data: enc.encode(PUBLIC) });
  secretDoc = (await ingestDocument(store, { filename: "nightingale.md", kb: "secret", data: enc.encode(SECRET) })).document.id;
  await (await getFaqStore(store)).add([
    {
      kb: "secret",
      question: "What is the Nightingale budget?",
      answer: "NIGHTINGALE-7731 has 4,200,000.",
      source: { documentId: null, chunkId: null, label: "UI" },
      origin: "manual",
    },
  ]);
  server = await serveWeb((request) => handleMcpRequest(request, { getStore: async () => store, registry }));
  mcpUrl = `${server.base}/api/mcp`;
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const config: AppConfig["chat"] = { ...OFFLINE_CHAT, model: "test", maxSteps: 3 };
const usage = TEST_USAGE;

/** A model that calls one tool (the first offered whose name `pick` accepts), then answers with what it read. */
function callsThen(pick: (name: string) => boolean, input: Record<string, unknown>): LanguageModelV4 {
  let step = 0;
  return streamingModel(async (opts) => {
    const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
    const name = (opts.tools ?? []).map((t) => t.name).find(pick);
    if (step++ === 0 && name) {
      parts.push({ type: "tool-call", toolCallId: "call-1", toolName: name, input: JSON.stringify(input) });
      parts.push({ type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } });
    } else {
      const read = opts.prompt.flatMap((m) => (m.role === "tool" ? m.content : [])).map((p) => JSON.stringify(p));
      parts.push(
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: `I read: ${read.join(" ")}` },
        { type: "text-end", id: "t" },
      );
      parts.push({ type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } });
    }
    return streamOf(parts);
  });
}

/** One turn of `model`; the answer as the server recorded it once the stream ended. */
async function recorded(model: LanguageModelV4): Promise<RecordedAnswer> {
  let answer: RecordedAnswer | undefined;
  const res = await runChat({
    config,
    mcpUrl,
    model,
    messageId: "answer-1",
    messages: [{ role: "user", content: "Tell me about Nightingale" }],
    onAnswer: async (a) => {
      answer = a;
    },
  });
  await res.text();
  expect(answer).toBeDefined();
  return answer!;
}

describe("the knowledge bases an answer drew from", () => {
  it("read_document: the document's knowledge base, though nothing is cited", async () => {
    const a = await recorded(callsThen((n) => n === TOOL.readDocument, { document_id: secretDoc }));
    expect(a.message.id).toBe("answer-1");
    expect(JSON.stringify(a.message)).toContain("4,200,000");
    expect(a.message.parts.some((p) => p.type === "data-citations")).toBe(false);
    expect(a).toMatchObject({ kbs: ["secret"], unattributed: false });
  });

  it("read_document of a passage by chunk_id", async () => {
    const chunk = (await store.getChunks(secretDoc))[0].id;
    expect(await recorded(callsThen((n) => n === TOOL.readDocument, { chunk_id: chunk }))).toMatchObject({ kbs: ["secret"] });
  });

  it("list_documents: every knowledge base it listed", async () => {
    const a = await recorded(callsThen((n) => n === TOOL.listDocuments, {}));
    expect(JSON.stringify(a.message)).toContain("Project Nightingale");
    expect(a).toMatchObject({ kbs: ["default", "secret"], unattributed: false });
  });

  it("search_faq: the entries' knowledge base", async () => {
    const a = await recorded(callsThen((n) => n === TOOL.searchFaq, { query: "Nightingale budget" }));
    expect(JSON.stringify(a.message)).toContain("NIGHTINGALE-7731");
    expect(a).toMatchObject({ kbs: ["secret"], unattributed: false });
  });

  it("search_knowledge and one knowledge base's own search tool", async () => {
    const all = await recorded(callsThen((n) => n === TOOL.searchKnowledge, { query: "Nightingale budget merger" }));
    expect(all.kbs).toContain("secret");
    const own = await recorded(callsThen((n) => n.startsWith("search_") && n.includes("secret"), { query: "Nightingale budget" }));
    expect(JSON.stringify(own.message)).toContain("NIGHTINGALE-7731");
    expect(own).toMatchObject({ kbs: ["secret"], unattributed: false });
  });

  it("a tool error (its text may name a document) cannot be told: the answer counts as drawing on everything in reach", async () => {
    const a = await recorded(callsThen((n) => n === TOOL.readDocument, { document_id: secretDoc, offset: 10_000_000 }));
    expect(JSON.stringify(a.message)).toContain("Project Nightingale");
    expect(a.unattributed).toBe(true);
  });

  it("an answer with no tool call drew on nothing", async () => {
    expect(await recorded(callsThen(() => false, {}))).toMatchObject({ kbs: [], unattributed: false });
  });

  it("fetch names its passage's knowledge base; the connectors' search cannot be told", async () => {
    const client = await connectInMemory(store);
    try {
      const chunk = (await store.getChunks(secretDoc))[0].id;
      const fetched = await client.callTool({ name: TOOL.fetch, arguments: { id: chunk } });
      expect(JSON.stringify(fetched)).toContain("NIGHTINGALE-7731");
      expect(kbsOfToolResult(TOOL.fetch, fetched)).toEqual(["secret"]);
      const found = await client.callTool({ name: TOOL.search, arguments: { query: "Nightingale budget" } });
      expect(JSON.stringify(found)).toContain("Nightingale");
      expect(kbsOfToolResult(TOOL.search, found)).toBeNull();
    } finally {
      await client.close();
    }
  });
});
