/**
 * Existence does not leak over MCP (the endpoint over real HTTP with the SDK client, on a real store): with a
 * token limited to one knowledge base, every tool and resource that takes a document or chunk id answers a
 * document of another knowledge base — by its real id or one computed from its file name — exactly as one that
 * does not exist.
 */
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWeb } from "@/e2e/helpers/web-server";
import { testAuthSettings } from "@/lib/auth/test-settings";
import { HR_KB, openTestKbs } from "@/lib/ingest/test-kbs";
import { createAccessToken } from "@/lib/kb";
import { documentUri } from "@/lib/limits";
import { handleMcpRequest } from "./http";

const BOARD_KB = {
  name: "board",
  title: "Board",
  description: "Board papers",
  documents: { "layoffs-2027.md": "# Layoffs\n\nThe board's plan for 2027.\n" },
};
const MISSING = "0123456789abcdef01234567";

let kbs: Awaited<ReturnType<typeof openTestKbs>>;
let server: Awaited<ReturnType<typeof serveWeb>>;
let client: Client;
let secretId = "";

beforeAll(async () => {
  kbs = await openTestKbs("mcp-existence-", [HR_KB, BOARD_KB]);
  const { store, registry } = kbs;
  secretId = (await store.findDocument("board", { source: "layoffs-2027.md" }))!.id;
  const { secret } = await createAccessToken(store, registry, { name: "hr only", scope: "read-write", kb: "hr" });
  const auth = testAuthSettings();
  server = await serveWeb(async (request) => handleMcpRequest(request, { getStore: async () => store, registry, auth }));
  client = new Client({ name: "test", version: "0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", server.base), {
      requestInit: { headers: { Authorization: `Bearer ${secret}` } },
    }),
  );
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await kbs?.close();
});

/** What a call answers, with `id` written as <id>, so answers about two ids compare. */
async function answer(call: () => Promise<unknown>, id: string): Promise<string> {
  const r = await call().catch((err: unknown) => ({ thrown: err instanceof Error ? err.message : String(err) }));
  return JSON.stringify(r).replaceAll(id, "<id>");
}

describe("a document outside the token's knowledge bases", () => {
  const guessed = () => createHash("sha256").update("board\u0000layoffs-2027.md").digest("hex").slice(0, 24);
  const calls: [string, (id: string) => Promise<unknown>][] = [
    ["read_document by document_id", (id) => client.callTool({ name: "read_document", arguments: { document_id: id } })],
    ["read_document by chunk_id", (id) => client.callTool({ name: "read_document", arguments: { chunk_id: `${id}:0` } })],
    ["fetch", (id) => client.callTool({ name: "fetch", arguments: { id: `${id}:0` } })],
    ["delete_document", (id) => client.callTool({ name: "delete_document", arguments: { document_id: id } })],
    ["the document resource", (id) => client.readResource({ uri: documentUri("board", id) })],
  ];

  it.each(calls)("%s answers as for one that does not exist", async (_, call) => {
    const absent = await answer(() => call(MISSING), MISSING);
    expect(absent).toMatch(/"isError":true|Resource not found/);
    expect(absent).not.toContain("layoffs");
    expect(await answer(() => call(secretId), secretId)).toBe(absent);
    expect(await answer(() => call(guessed()), guessed())).toBe(absent);
    expect(await kbs.store.getDocument(secretId)).not.toBeNull();
  });

  it("a document of the token's knowledge base is read", async () => {
    const own = (await kbs.store.findDocument("hr", { source: "travel.md" }))!;
    const r = (await client.callTool({ name: "read_document", arguments: { document_id: own.id } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(JSON.stringify(r.content)).toContain("per diem");
  });
});
