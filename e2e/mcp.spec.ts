/**
 * The MCP endpoint over real HTTP: the built Next server (offline app, knowledge/ indexed at start-up),
 * the SDK's own client, LanceDB on disk, and the ingest CLI as a separate process.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { searchToolNames } from "@/lib/kb/names";
import { connectMcp, mcpUrl, postRaw, resultText, search } from "./helpers/mcp";
import { expect, PORTS, test, WORKER_DATA_DIR } from "./helpers/servers";

const URL_MCP = mcpUrl(PORTS.offline);
const BASE = `http://127.0.0.1:${PORTS.offline}`;
const DATA_DIR = path.resolve(WORKER_DATA_DIR, "offline");
const CLI_KB = "e2e-mcp-cli";
const KNOWLEDGE_SOURCES = ["员工手册.md", "employee-handbook.md", "product-faq.md", "security-policy.txt"];

let client: Client;

test.beforeAll(async () => {
  client = await connectMcp(URL_MCP);
});

test.afterAll(async () => {
  await client?.close();
});

test("health reports the indexed knowledge folder", async () => {
  const res = await fetch(`${BASE}/api/health`);
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body.ok).toBe(true);
  expect(body.documents).toBeGreaterThanOrEqual(KNOWLEDGE_SOURCES.length);
  expect(body.embedder.name).toEqual(expect.any(String));
});

test("lists the read tools with annotations and output schemas", async () => {
  const { tools: all } = await client.listTools();
  // Every read tool, and one search_<kb> per knowledge base; the write tools only for a read-write token
  // (e2e/kbs-api.spec.ts).
  const { kbs } = (await (await fetch(`${BASE}/api/kbs`)).json()) as { kbs: { name: string }[] };
  const kbNames = kbs.map((k) => k.name);
  expect(kbNames).toContain("default");
  const perKb = [...searchToolNames(kbNames).values()];
  const readTools = ["fetch", "list_documents", "read_document", "search", "search_faq", "search_knowledge"];
  expect(all.map((t) => t.name).sort()).toEqual([...readTools, ...perKb].sort());
  expect(
    all
      .filter((t) => typeof t._meta?.["knowledge-base/kb"] === "string")
      .map((t) => t.name)
      .sort(),
  ).toEqual(perKb.sort());
  const byName = new Map(all.map((t) => [t.name, t]));
  const tools = ["list_documents", "read_document", "search_knowledge"].map((n) => byName.get(n)!);
  for (const tool of tools) {
    expect(tool.description!.length).toBeGreaterThan(40);
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(tool.outputSchema?.type).toBe("object");
    expect(tool.inputSchema.type).toBe("object");
  }
  const searchTool = byName.get("search_knowledge")!;
  expect(searchTool.inputSchema.required).toEqual(["query"]);
  expect(searchTool.inputSchema.properties).toMatchObject({
    top_k: { type: "integer", minimum: 1, maximum: 20 },
    kb: { type: "string" },
  });
  expect(Object.keys(searchTool.outputSchema!.properties!)).toEqual(["results"]);
});

test.describe("search_knowledge", () => {
  test("answers a Chinese question from the Chinese handbook", async () => {
    const { result, results } = await search(client, { query: "员工如何申请报销？" });
    expect(result.isError).toBeFalsy();
    expect(results[0].document.source).toBe("员工手册.md");
    expect(results[0].text).toContain("员工先填写报销申请单");
  });

  test("answers an English question from the English handbook", async () => {
    const { results } = await search(client, { query: "How many days of annual leave do employees get?" });
    expect(results[0].document.source).toBe("employee-handbook.md");
    expect(results[0].text).toMatch(/annual leave/i);
    expect(results[0].text).toContain("20 days");
  });

  test("answers a product question from the FAQ", async () => {
    const { results } = await search(client, { query: "What happens to my data when I close my Nimbus Notes account?" });
    expect(results[0].document.source).toBe("product-faq.md");
    expect(results[0].text).toContain("30 days");
  });

  test("numbers results 1..n and lists them as [ref] title › heading blocks", async () => {
    const { results, text } = await search(client, { query: "leave", top_k: 4 });
    expect(results.length).toBeGreaterThan(1);
    expect(results.map((r) => r.ref)).toEqual(results.map((_, i) => i + 1));
    const scores = results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    let previous = -1;
    for (const r of results) {
      const header = text.split("\n").find((line) => line.startsWith(`[${r.ref}] `));
      expect(header, `block for [${r.ref}]`).toBeDefined();
      expect(header!.startsWith(`[${r.ref}] ${r.document.title}`)).toBe(true);
      const lastSection = r.heading.split(" › ").pop()!;
      if (lastSection) expect(header!.endsWith(lastSection)).toBe(true);
      const at = text.indexOf(r.text.trim());
      expect(at, `text of [${r.ref}] is in the text content`).toBeGreaterThan(text.indexOf(header!));
      expect(at).toBeGreaterThan(previous);
      previous = at;
    }
  });

  test("returns at most top_k results", async () => {
    expect((await search(client, { query: "leave policy", top_k: 1 })).results).toHaveLength(1);
    expect((await search(client, { query: "leave policy", top_k: 3 })).results).toHaveLength(3);
    expect((await search(client, { query: "leave policy" })).results.length).toBeLessThanOrEqual(5);
  });

  test("filters by knowledge base", async () => {
    const inDefault = await search(client, { query: "annual leave", kb: "default" });
    expect(inDefault.results.length).toBeGreaterThan(0);
    expect(inDefault.results.every((r) => r.kb === "default")).toBe(true);
    // kb is an enum of the existing knowledge bases: an unknown one is an argument error naming them.
    const elsewhere = await search(client, { query: "annual leave", kb: "no-such-kb" });
    expect(elsewhere.result.isError).toBe(true);
    expect(elsewhere.text).toMatch(/kb must be one of .*"default"/);
  });
});

test("ChatGPT's search and fetch: each url opens the document page with the passage highlighted", async ({ page }) => {
  const found = await client.callTool({ name: "search", arguments: { query: "How many days of annual leave do I get?" } });
  const { results } = found.structuredContent as { results: { id: string; title: string; url: string }[] };
  expect(results.length).toBeGreaterThan(0);
  const fetched = await client.callTool({ name: "fetch", arguments: { id: results[0].id } });
  const passage = fetched.structuredContent as { id: string; text: string; url: string; metadata: { document_id: string } };
  expect(passage).toMatchObject({ id: results[0].id, url: results[0].url });
  expect(passage.text).toMatch(/annual leave/i);
  // The server listens on BASE and no PUBLIC_URL is set: the links point there.
  expect(results[0].url).toBe(`${BASE}/documents/${passage.metadata.document_id}?chunk=${encodeURIComponent(passage.id)}`);

  await page.goto(results[0].url);
  const highlighted = page.locator('[data-testid="doc-block"][data-highlighted="true"]');
  await expect(highlighted.first()).toBeInViewport();
  await expect(highlighted.filter({ hasText: /annual leave/i }).first()).toBeVisible();
});

test("list_documents shows the knowledge documents with chunk counts", async () => {
  const result = await client.callTool({ name: "list_documents", arguments: {} });
  const docs = (result.structuredContent as { documents: { id: string; source: string; title: string; kb: string; chunk_count: number }[] })
    .documents;
  const text = resultText(result);
  for (const source of KNOWLEDGE_SOURCES) {
    const doc = docs.find((d) => d.source === source);
    expect(doc, source).toBeDefined();
    expect(doc!.kb).toBe("default");
    expect(doc!.chunk_count).toBeGreaterThan(0);
    expect(text).toContain(`${doc!.title} (${source}) — document_id: ${doc!.id}`);
  }
  const none = await client.callTool({ name: "list_documents", arguments: { kb: "no-such-kb" } });
  expect((none.structuredContent as { documents: unknown[] }).documents).toEqual([]);
});

test.describe("read_document", () => {
  test("reads a whole document by id", async () => {
    const { results } = await search(client, { query: "员工报销申请单" });
    const hit = results.find((r) => r.document.source === "员工手册.md")!;
    const result = await client.callTool({ name: "read_document", arguments: { document_id: hit.document.id } });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as { document: { source: string }; text: string; truncated: boolean; total_chars: number };
    expect(data.document.source).toBe("员工手册.md");
    expect(data.truncated).toBe(false);
    expect(data.text).toHaveLength(data.total_chars);
    expect(data.text).toContain(hit.text.trim());
    expect(resultText(result)).toContain("员工先填写报销申请单");
  });

  test("reads a chunk with its neighbours, in order, marking the requested one", async () => {
    const list = await client.callTool({ name: "list_documents", arguments: {} });
    const docs = (list.structuredContent as { documents: { id: string; chunk_count: number }[] }).documents;
    const doc = docs.filter((d) => d.chunk_count >= 3).sort((a, b) => b.chunk_count - a.chunk_count)[0];
    expect(doc, "a knowledge document with at least 3 chunks").toBeDefined();
    // The middle chunk of that document, found through its full text.
    const whole = await client.callTool({ name: "read_document", arguments: { document_id: doc.id } });
    const wholeText = (whole.structuredContent as { text: string }).text;
    const middle = Math.floor(wholeText.length / 2);
    const { results } = await search(client, { query: wholeText.slice(middle, middle + 80), top_k: 10 });
    const target = results.find((r) => r.document.id === doc.id)!;
    expect(target).toBeDefined();
    const result = await client.callTool({ name: "read_document", arguments: { chunk_id: target.chunk_id, before: 1, after: 1 } });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as {
      document: { id: string };
      chunks: { chunk_id: string; index: number; text: string; requested: boolean }[];
      total_chunks: number;
    };
    expect(data.document.id).toBe(doc.id);
    expect(data.total_chunks).toBe(doc.chunk_count);
    const requested = data.chunks.filter((c) => c.requested);
    expect(requested).toHaveLength(1);
    expect(requested[0].chunk_id).toBe(target.chunk_id);
    expect(requested[0].text).toBe(target.text);
    // Chunk indexes run 0..total-1: the window is the requested chunk and one on each side, clipped at the ends.
    const i = requested[0].index;
    const expected = [i - 1, i, i + 1].filter((n) => n >= 0 && n < doc.chunk_count);
    expect(data.chunks.map((c) => c.index)).toEqual(expected);
    expect(resultText(result)).toContain("requested");
  });
});

test.describe("bad requests", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["search_knowledge", { query: "" }, /query must not be empty/],
    ["search_knowledge", { query: "leave", top_k: 0 }, /top_k must be between 1 and 20/],
    ["search_knowledge", { query: "leave", top_k: 50 }, /top_k must be between 1 and 20/],
    ["search_knowledge", { query: 42 }, /query must be a string/],
    ["read_document", { document_id: "no-such-document" }, /No document with document_id "no-such-document"/],
    ["read_document", { chunk_id: "no-such-chunk" }, /No chunk with chunk_id "no-such-chunk"/],
    ["read_document", { chunk_id: "x", before: 11 }, /before must be between 0 and 10/],
    ["read_document", { document_id: "a", chunk_id: "b" }, /exactly one of document_id or chunk_id/],
    ["read_document", {}, /exactly one of document_id or chunk_id/],
  ];
  for (const [name, args, message] of cases) {
    test(`${name} ${JSON.stringify(args)} is a tool error`, async () => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(message);
    });
  }

  test("invalid arguments come back as HTTP 200 with an isError result", async () => {
    const res = await postRaw(
      URL_MCP,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "search_knowledge", arguments: { query: "", top_k: 0 } },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.json?.id).toBe(7);
    expect(res.json?.result?.isError).toBe(true);
    expect(JSON.stringify(res.json?.result?.content)).toContain("query must not be empty");
  });

  test("an unknown tool is a JSON-RPC invalid-params error", async () => {
    const err = await client.callTool({ name: "delete_everything", arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain("Unknown tool: delete_everything");
  });

  test("an unknown method is a JSON-RPC method-not-found error", async () => {
    const res = await postRaw(URL_MCP, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/destroy", params: {} }));
    expect(res.json?.error?.code).toBe(-32601);
    expect(res.json?.id).toBe(1);
  });

  test("malformed JSON is a JSON-RPC parse error with a 4xx status", async () => {
    const res = await postRaw(URL_MCP, '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"');
    expect(res.status).toBe(400);
    expect(res.contentType).toContain("application/json");
    expect(res.json?.error?.code).toBe(-32700);
  });

  test("JSON that is not JSON-RPC is rejected with a 4xx JSON-RPC error", async () => {
    const res = await postRaw(URL_MCP, JSON.stringify({ hello: "world" }));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect([-32700, -32600]).toContain(res.json?.error?.code);
  });

  test("GET and DELETE are 405 JSON-RPC errors (stateless server)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(URL_MCP, { method, headers: { accept: "application/json, text/event-stream" } });
      expect(res.status, method).toBe(405);
      expect((await res.json()).error.code).toBe(-32000);
    }
  });
});

test("a document ingested by the CLI becomes searchable without restarting the server", async () => {
  // A word no document has, so only this version of the file can match it; the fixed file name makes a
  // rerun on the same data dir update the document instead of adding another.
  const codeword = `quill${Math.random().toString(36).slice(2, 10)}`;
  const phrase = `The ${codeword} lighthouse tour departs from the north pier at dawn`;
  const dir = await mkdtemp(path.join(os.tmpdir(), "mcp-e2e-"));
  const file = path.join(dir, "lighthouse-tours.md");
  await writeFile(file, `# Lighthouse tours\n\n## Departures\n\n${phrase}. Bring a warm coat.\n`);
  try {
    const before = await search(client, { query: `${codeword} lighthouse tour` });
    expect(before.results.some((r) => r.text.includes(phrase))).toBe(false);

    // Its own kb keeps it out of the default kb that other specs look at.
    const cli = await runCli(["run", "ingest", "--", file, "--kb", CLI_KB, "--no-wait"]);
    expect(cli.code, cli.output).toBe(0);

    const after = await search(client, { query: `${codeword} lighthouse tour` });
    expect(after.results[0].document.source).toBe(path.basename(file));
    expect(after.results[0].kb).toBe(CLI_KB);
    expect(after.results[0].text).toContain(phrase);
    const listed = await client.callTool({ name: "list_documents", arguments: { kb: CLI_KB } });
    const docs = (listed.structuredContent as { documents: { source: string }[] }).documents;
    expect(docs.map((d) => d.source)).toContain(path.basename(file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", args, {
      env: { ...process.env, DATA_DIR: DATA_DIR, KNOWLEDGE_DIR: "knowledge", OPENAI_API_KEY: "", NEXT_TELEMETRY_DISABLED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
