/**
 * One chat turn end to end, without a browser: the real MCP endpoint handler (mcp/http.ts) served over
 * HTTP from a real LanceDB store in a temp dir, the AI SDK MCP client, streamText, and the UI message
 * stream the route returns. The model is either the embedded offline answerer or a scripted
 * LanguageModelV4 that behaves like an LLM reading the tool results (it cites the numbers it was shown).
 */

import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { serveWeb, type WebServer } from "@/e2e/helpers/web-server";
import type { AuthSettings } from "@/lib/auth/config";
import type { AppConfig } from "@/lib/config";
import { createOfflineEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore, type Store } from "@/lib/store";
import { handleMcpRequest } from "@/mcp/http";
import { OFFLINE_CHAT } from "@/scripts/eval-chat/harness";
import { runChat } from "./chat";
import type { Citation } from "./citations";
import { REPEATED_CALL_RESULT } from "./loop";
import type { CitationCheck } from "./support";
import { streamingModel, streamOf, TEST_USAGE } from "./test-model";

let dir: string;
let store: Store;
let server: WebServer;
let mcpUrl: string;
/** JSON-RPC methods (and tool names) the MCP endpoint received, as the server saw them. */
const mcpLog: string[] = [];

const enc = new TextEncoder();
const HANDBOOK = `# Employee Handbook

## Annual leave

Full-time employees receive 20 days of annual leave per year. Requests go to your manager two weeks ahead.

## Sick leave

Sick leave of more than three days requires a doctor's certificate.
`;
const EXPENSES = `# Expenses

## Expense claims

Submit an expense claim form with the original receipts within 30 days. Your manager approves claims before finance pays them.
`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "chat-test-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(256) });
  await ingestDocument(store, { filename: "handbook.md", kb: "default", data: enc.encode(HANDBOOK) });
  await ingestDocument(store, { filename: "expenses.md", kb: "default", data: enc.encode(EXPENSES) });

  server = await serveMcp();
  mcpUrl = urlOf(server);
});

const urlOf = (srv: WebServer) => `${srv.base}/api/mcp`;

/** The app's MCP endpoint handler over real HTTP, logging what it receives. */
function serveMcp(auth?: AuthSettings): Promise<WebServer> {
  return serveWeb(async (request) => {
    try {
      const msg = JSON.parse(await request.clone().text()) as { method?: string; params?: { name?: string } };
      mcpLog.push(msg.method === "tools/call" ? `tools/call:${msg.params?.name}` : String(msg.method));
    } catch {
      /* not JSON: the handler answers with an error */
    }
    return handleMcpRequest(request, { getStore: async () => store, ...(auth ? { auth } : {}) });
  });
}

afterAll(async () => {
  await server?.close();
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const config: AppConfig["chat"] = { ...OFFLINE_CHAT, model: "test", maxSteps: 4 };

interface Chunk {
  type: string;
  delta?: string;
  data?: { citations: Citation[] };
  errorText?: string;
  toolName?: string;
  output?: unknown;
}

/** Reads the UI message stream (SSE) of a chat response. */
async function readTurn(res: Response) {
  const body = await res.text();
  const chunks: Chunk[] = body
    .split("\n\n")
    .map((event) => event.replace(/^data: /, "").trim())
    .filter((d) => d && d !== "[DONE]")
    .map((d) => JSON.parse(d) as Chunk);
  const text = chunks
    .filter((c) => c.type === "text-delta")
    .map((c) => c.delta)
    .join("");
  const citations = chunks.filter((c) => c.type === "data-citations").at(-1)?.data?.citations ?? [];
  const errors = chunks.filter((c) => c.type === "error").map((c) => c.errorText);
  return { chunks, text, citations, errors };
}

type Step = (opts: LanguageModelV4CallOptions, results: string[]) => { search?: Record<string, unknown>; text?: string };

/** A model that follows a script, one entry per step; it sees the tool results of the turn as text. `calls`: what each step was asked. */
function scriptedModel(script: Step[]): { model: LanguageModelV4; calls: LanguageModelV4CallOptions[] } {
  const calls: LanguageModelV4CallOptions[] = [];
  const usage = TEST_USAGE;
  const model: LanguageModelV4 = streamingModel(async (opts) => {
    calls.push(opts);
    const results = opts.prompt
      .filter((m) => m.role === "tool")
      .flatMap((m) => m.content)
      .map((p) => (p.type === "tool-result" && p.output.type === "text" ? p.output.value : ""));
    const step = script[Math.min(calls.length - 1, script.length - 1)](opts, results);
    const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
    if (step.search) {
      parts.push({
        type: "tool-call",
        toolCallId: `call-${calls.length}`,
        toolName: "search_knowledge",
        input: JSON.stringify(step.search),
      });
      parts.push({ type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } });
    } else {
      parts.push({ type: "text-start", id: "t" });
      // Deltas cut through markers, as real streams do.
      for (const piece of (step.text ?? "").match(/[\s\S]{1,3}/g) ?? []) parts.push({ type: "text-delta", id: "t", delta: piece });
      parts.push({ type: "text-end", id: "t" });
      parts.push({ type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } });
    }
    return streamOf(parts);
  });
  return { model, calls };
}

/** One chat turn of `model` on `question`, read to its end. */
async function askScripted(model: LanguageModelV4, question: string, chat = config) {
  return readTurn(await runChat({ config: chat, mcpUrl, model, messages: [{ role: "user", content: question }] }));
}

/** The numbered blocks of a search result as a model reads it: "[n] Title › Section", a source line, the text. */
function blocksOf(result: string): { n: number; text: string }[] {
  return result.split(/^(?=\[\d+\] )/m).flatMap((text) => {
    const m = text.match(/^\[(\d+)\] /);
    return m ? [{ n: Number(m[1]), text }] : [];
  });
}

/** Number of the first result block whose text contains `needle`, in a tool result the model read. */
function refOf(result: string, needle: string): number {
  const block = blocksOf(result).find((b) => b.text.includes(needle));
  if (!block) throw new Error(`no result contains "${needle}"`);
  return block.n;
}

describe("chat turn", () => {
  beforeEach(() => {
    mcpLog.length = 0;
  });

  it("offline mode: searches through the MCP endpoint and quotes the supporting sentence with a valid [n]", async () => {
    const res = await runChat({
      config,
      mcpUrl,
      messages: [{ role: "user", content: "How many days of annual leave do full-time employees get?" }],
    });
    expect(res.status).toBe(200);
    const { text, citations, errors } = await readTurn(res);
    expect(errors).toEqual([]);
    expect(mcpLog).toContain("tools/call:search_knowledge");
    const m = text.match(/Full-time employees receive 20 days of annual leave per year\. \[(\d+)\]/);
    expect(m).not.toBeNull();
    const cited = citations.find((c) => c.n === Number(m![1]))!;
    expect(cited.text).toContain("Full-time employees receive 20 days of annual leave per year.");
    expect(cited.document.source).toBe("handbook.md");
  });

  it("a question longer than a search query (5,000 characters) is searched by its end, without a tool error", async () => {
    const filler = "Some background on why I ask, which goes on for a while without saying much. ".repeat(66);
    const question = `${filler}How many days of annual leave do full-time employees get?`;
    expect(question.length).toBeGreaterThan(5000);
    const res = await runChat({ config, mcpUrl, messages: [{ role: "user", content: question }] });
    expect(res.status).toBe(200);
    const { text, errors } = await readTurn(res);
    expect(errors).toEqual([]);
    expect(text).toContain("Full-time employees receive 20 days of annual leave per year.");
  });

  it("a model's search query of 5,000 characters is fitted to the one query limit (MAX_QUERY_CHARS), not refused by the tool", async () => {
    const question = `${"Context that says little. ".repeat(200)}How many days of annual leave do full-time employees get?`;
    expect(question.length).toBeGreaterThan(5000);
    const { model } = scriptedModel([
      () => ({ search: { query: question } }),
      (_o, results) => ({ text: `Twenty days [${refOf(results[0], "20 days")}].` }),
    ]);
    const { chunks, text, errors } = await askScripted(model, question);
    expect(errors).toEqual([]);
    expect(chunks.filter((c) => c.type === "tool-output-error")).toEqual([]);
    expect(mcpLog).toContain("tools/call:search_knowledge");
    expect(text).toMatch(/^Twenty days \[\d+\]\.$/);
  });

  it("offline mode: says the knowledge base does not contain an absent topic, citing nothing", async () => {
    const res = await runChat({ config, mcpUrl, messages: [{ role: "user", content: "What is the boiling point of mercury?" }] });
    const { text } = await readTurn(res);
    expect(text).toMatch(/knowledge base does not contain/);
    expect(text).not.toMatch(/\[\d+\]/);
  });

  it("numbers chunks across two searches in one turn, and drops markers that point at nothing", async () => {
    // Counted when the model answers: the follow-up suggestions' check searches after the answer.
    let searched = -1;
    const searches = () => mcpLog.filter((m) => m === "tools/call:search_knowledge").length;
    const { model, calls } = scriptedModel([
      () => ({ search: { query: "annual leave days" } }),
      () => ({ search: { query: "expense claim receipts" } }),
      (_o, results) => {
        searched = searches();
        return {
          text:
            `Employees get 20 days of annual leave [${refOf(results[0], "20 days")}]. ` +
            `Claims need the original receipts [${refOf(results[1], "original receipts")}]. Invented [42].`,
        };
      },
    ]);
    const { text, citations } = await askScripted(model, "leave and expenses?");
    expect(searched).toBe(2);

    // One number per chunk for the whole turn: no two citations share a number or a chunk.
    expect(new Set(citations.map((c) => c.n)).size).toBe(citations.length);
    expect(new Set(citations.map((c) => c.chunk_id)).size).toBe(citations.length);
    expect(citations.map((c) => c.n)).toEqual(citations.map((_, i) => i + 1));

    // What the model read in both searches uses the turn-wide numbers: each block's number is the
    // number of that very chunk, even where the tool's own refs (1..k per search) would collide.
    const read = calls[2].prompt
      .filter((m) => m.role === "tool")
      .flatMap((m) => blocksOf((m.content[0] as { output: { value: string } }).output.value));
    expect(read.length).toBeGreaterThan(2);
    for (const block of read) expect(block.text).toContain(citations.find((c) => c.n === block.n)?.text.trim());

    const markers = [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(markers.length).toBe(2);
    expect(text).not.toContain("[42]");
    const [leave, claims] = markers.map((n) => citations.find((c) => c.n === n)!);
    expect(leave.text).toContain("20 days of annual leave");
    expect(claims.text).toContain("original receipts");
    expect(leave.chunk_id).not.toBe(claims.chunk_id);
  });

  it("checks the model's citations: a wrong [n] is moved to the chunk that says it, an unsupported sentence is marked", async () => {
    const { model } = scriptedModel([
      () => ({ search: { query: "annual leave days expense claim receipts" } }),
      (_o, results) => {
        const leave = refOf(results[0], "20 days");
        const claims = refOf(results[0], "original receipts");
        return {
          text:
            `Full-time employees receive 20 days of annual leave per year [${claims}]. ` +
            `Submit an expense claim form with the original receipts within 30 days [${claims}]. ` +
            `Interns get 45 days of paid leave on Mars [${leave}].`,
        };
      },
    ]);
    const { chunks, text, citations } = await askScripted(model, "leave and expenses?");
    const check = chunks.filter((c) => c.type === "data-check").at(-1) as unknown as { data: CitationCheck } | undefined;
    expect(check).toBeDefined();
    const [leave, claims, mars] = check!.data.sentences;
    const leaveChunk = citations.find((c) => c.text.includes("20 days"))!;
    const claimsChunk = citations.find((c) => c.text.includes("original receipts"))!;
    expect(leave.citations).toEqual([{ n: leaveChunk.n, from: claimsChunk.n, support: expect.any(Number) }]);
    expect(claims.citations).toEqual([{ n: claimsChunk.n, support: expect.any(Number) }]);
    expect(mars).toMatchObject({ unsupported: "citation", numbers: ["45"] });
    expect(check!.data.text).toBe(text.replace(`year [${claimsChunk.n}]`, `year [${leaveChunk.n}]`));
  });

  it("ends the loop on a repeated identical call and answers from what was found", async () => {
    // Counted when the model answers: the follow-up suggestions' check searches after the answer.
    let searched = -1;
    const { model, calls } = scriptedModel([
      () => ({ search: { query: "sick leave certificate" } }),
      () => ({ search: { query: "sick leave certificate" } }),
      (opts, results) => {
        if (opts.toolChoice?.type !== "none") return { search: { query: "sick leave certificate" } };
        searched = mcpLog.filter((m) => m === "tools/call:search_knowledge").length;
        return { text: `A certificate is needed after three days [${refOf(results[0], "certificate")}].` };
      },
    ]);
    const { text, citations } = await askScripted(model, "sick leave?");
    // The repeat never reached the MCP endpoint; the model was told to answer, and could not call tools.
    expect(searched).toBe(1);
    expect(calls.length).toBe(3);
    expect(calls[2].toolChoice).toEqual({ type: "none" });
    const repeated = calls[2].prompt.filter((m) => m.role === "tool").at(-1)!;
    expect((repeated.content[0] as { output: { value: string } }).output.value).toBe(REPEATED_CALL_RESULT);
    const n = Number(text.match(/\[(\d+)\]/)![1]);
    expect(citations.find((c) => c.n === n)!.text).toContain("doctor's certificate");
  });

  it("stops after the configured number of steps, the last one without tools", async () => {
    let i = 0;
    const { model, calls } = scriptedModel([
      (opts) => (opts.toolChoice?.type === "none" ? { text: "Done." } : { search: { query: `q${i++}` } }),
    ]);
    const { text } = await askScripted(model, "x", { ...config, maxSteps: 3 });
    expect(calls.length).toBe(3);
    expect(calls.map((c) => c.toolChoice?.type ?? "auto")).toEqual(["auto", "auto", "none"]);
    expect(text).toBe("Done.");
  });

  it("gets through an endpoint that requires tokens, with the app's internal secret", async () => {
    const locked = await serveMcp({ requireToken: true, loopbackOnly: false, rateLimitPerMinute: 1, allowedOrigins: [] });
    try {
      // Without a token the endpoint refuses…
      const anonymous = await fetch(urlOf(locked), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(anonymous.status).toBe(401);
      // …the chat is let in (and not rate-limited: a turn takes several requests).
      const { text, errors } = await readTurn(
        await runChat({
          config,
          mcpUrl: urlOf(locked),
          messages: [{ role: "user", content: "How many days of annual leave do full-time employees get?" }],
        }),
      );
      expect(errors).toEqual([]);
      expect(text).toMatch(/20 days of annual leave per year\. \[\d+\]/);
    } finally {
      await locked.close();
    }
  });

  it("answers 502 mcp_unavailable when the MCP endpoint cannot be reached", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const res = await runChat({ config, mcpUrl: `http://127.0.0.1:${port}/api/mcp`, messages: [{ role: "user", content: "x" }] });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { code: "mcp_unavailable" } });
  });
});
