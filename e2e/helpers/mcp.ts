/** Shared helpers for tests that talk to the app's MCP endpoint as a real MCP client over HTTP. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { SearchResult as SearchResultData } from "../../lib/tools/search-result";

export function mcpUrl(port: number, path = "/api/mcp"): string {
  return `http://127.0.0.1:${port}${path}`;
}

/** An initialized SDK client connected to `url` (Streamable HTTP). Close it when done. */
export async function connectMcp(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** The text content of a tool result, joined. */
export function resultText(result: unknown): string {
  return ((result as CallToolResult).content ?? [])
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

export async function search(client: Client, args: { query: string; top_k?: number; kb?: string }) {
  const result = await client.callTool({ name: "search_knowledge", arguments: args });
  const results = ((result.structuredContent ?? { results: [] }) as { results: SearchResultData[] }).results;
  return { result, results, text: resultText(result) };
}

interface JsonRpcReply {
  jsonrpc?: string;
  id?: string | number | null;
  result?: Record<string, unknown> & Partial<CallToolResult>;
  error?: { code: number; message: string; data?: unknown };
}

/** POSTs a raw body to an MCP endpoint with the headers Streamable HTTP requires; returns status and parsed JSON. */
export async function postRaw(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body,
  });
  const text = await res.text();
  let json: JsonRpcReply | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // left undefined: the caller asserts on it
  }
  return { status: res.status, headers: res.headers, contentType: res.headers.get("content-type") ?? "", text, json };
}
