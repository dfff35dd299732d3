/**
 * The MCP server in-process (SDK client over an in-memory transport) on a real LanceDB store in a temp dir.
 * The HTTP route is covered by e2e/mcp.spec.ts; this covers what is awkward over HTTP: per-KB scoping and
 * long documents.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestMarkdown, TRAVEL_POLICY } from "@/lib/ingest/test-kbs";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import type { KnowledgeServerOptions } from "./index";
import { connectInMemory } from "./test-client";

let temp: TempStore;
let store: Store;
const LONG_PARAGRAPH = "The quarterly archive policy keeps every ledger for seven years. ";

beforeAll(async () => {
  temp = await openTempStore("mcp-test-");
  store = temp.store;
  await ingestMarkdown(store, "hr", { "travel.md": TRAVEL_POLICY });
  await ingestMarkdown(store, "finance", {
    "archive.md": `# Archive\n\n${Array.from({ length: 30 }, (_, i) => `## Part ${i}\n\n${LONG_PARAGRAPH.repeat(12)}`).join("\n\n")}\n`,
  });
});

afterAll(async () => {
  await temp?.close();
});

const connect = (options: KnowledgeServerOptions = {}) => connectInMemory(store, options);

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { type: string; text: string }[]).map((c) => c.text).join("\n");
}

describe("knowledge MCP server", () => {
  it("searches across knowledge bases and filters by kb", async () => {
    const client = await connect();
    const all = await client.callTool({ name: "search_knowledge", arguments: { query: "per diem overnight travel" } });
    expect(all.isError).toBeFalsy();
    const results = (all.structuredContent as { results: { ref: number; kb: string; text: string }[] }).results;
    expect(results[0].kb).toBe("hr");
    expect(results[0].text).toContain("80 euros");
    const finance = await client.callTool({ name: "search_knowledge", arguments: { query: "per diem overnight travel", kb: "finance" } });
    const financeResults = (finance.structuredContent as { results: { kb: string }[] }).results;
    expect(financeResults.every((r) => r.kb === "finance")).toBe(true);
  });

  it("names the available knowledge bases when an unknown one is searched", async () => {
    const client = await connect();
    const r = await client.callTool({ name: "search_knowledge", arguments: { query: "per diem", kb: "nope" } });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { results: unknown[] }).results).toEqual([]);
    expect(textOf(r)).toContain('no knowledge base named "nope"');
    expect(textOf(r)).toContain('"finance", "hr"');
  });

  it("keeps a server scoped to one kb inside it", async () => {
    const client = await connect({ kb: "finance" });
    const r = await client.callTool({ name: "search_knowledge", arguments: { query: "per diem overnight travel" } });
    expect((r.structuredContent as { results: { kb: string }[] }).results.every((x) => x.kb === "finance")).toBe(true);
    const other = await client.callTool({ name: "search_knowledge", arguments: { query: "per diem", kb: "hr" } });
    expect(other.isError).toBe(true);
    expect(textOf(other)).toContain('only serves the knowledge base "finance"');
    const docs = await client.callTool({ name: "list_documents", arguments: {} });
    expect((docs.structuredContent as { documents: { source: string }[] }).documents.map((d) => d.source)).toEqual(["archive.md"]);
    const hrDoc = (await store.listDocuments({ kb: "hr" }))[0];
    const read = await client.callTool({ name: "read_document", arguments: { document_id: hrDoc.id } });
    expect(read.isError).toBe(true);
  });

  it("reads a long document in pieces", async () => {
    const client = await connect();
    const doc = (await store.listDocuments({ kb: "finance" }))[0];
    const full = (await store.getDocumentText(doc.id))!;
    expect(full.length).toBeGreaterThan(20_000);
    const first = await client.callTool({ name: "read_document", arguments: { document_id: doc.id } });
    const s1 = first.structuredContent as { text: string; truncated: boolean; next_offset: number; total_chars: number };
    expect(s1.truncated).toBe(true);
    expect(s1.total_chars).toBe(full.length);
    expect(textOf(first)).toContain(`offset: ${s1.next_offset}`);
    const second = await client.callTool({ name: "read_document", arguments: { document_id: doc.id, offset: s1.next_offset } });
    const s2 = second.structuredContent as { text: string; truncated: boolean };
    expect(s1.text + s2.text).toBe(full);
    expect(s2.truncated).toBe(false);
    const past = await client.callTool({ name: "read_document", arguments: { document_id: doc.id, offset: full.length + 5 } });
    expect(past.isError).toBe(true);
    expect(textOf(past)).toContain("past the end");
  });

  it("answers invalid arguments with tool errors that say what is wrong", async () => {
    const client = await connect();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["search_knowledge", { query: "   " }, /query must not be empty/],
      ["search_knowledge", { query: "x".repeat(1001) }, /at most 1000 characters/],
      ["search_knowledge", { query: "leave", top_k: 0 }, /top_k must be between 1 and 20/],
      ["search_knowledge", { query: "leave", top_k: 2.5 }, /top_k must be a whole number/],
      ["search_knowledge", { query: "leave", topK: 3 }, /topK/],
      ["search_knowledge", {}, /query is required/],
      ["read_document", {}, /exactly one of document_id or chunk_id/],
      ["read_document", { document_id: "a", chunk_id: "b" }, /exactly one of document_id or chunk_id/],
      ["read_document", { chunk_id: "c", before: 11 }, /before must be between 0 and 10/],
      ["read_document", { document_id: "missing" }, /No document with document_id "missing"/],
      ["read_document", { chunk_id: "missing" }, /No chunk with chunk_id "missing"/],
    ];
    for (const [name, args, message] of cases) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(r)).toMatch(message);
    }
  });

  it("reports a failing store as a tool error", async () => {
    const client = await connect({ getStore: async () => Promise.reject(new Error("disk on fire")) });
    const r = await client.callTool({ name: "list_documents", arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("list_documents failed: disk on fire");
  });

  it("answers an unknown tool with a JSON-RPC invalid-params error", async () => {
    const client = await connect();
    const err = await client.callTool({ name: "drop_tables", arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain("Unknown tool: drop_tables");
  });
});
