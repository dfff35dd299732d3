/**
 * The chat limited to some knowledge bases, through the real MCP handler over HTTP with REQUIRE_TOKEN on
 * (the chat gets in with the app's internal secret), on a real store with two knowledge bases.
 */

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWeb, type WebServer } from "@/e2e/helpers/web-server";
import type { AuthSettings } from "@/lib/auth/config";
import type { AppConfig } from "@/lib/config";
import { createOfflineEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openRegistry, type Registry } from "@/lib/kb/registry";
import { openStore, type Store } from "@/lib/store";
import { handleMcpRequest } from "@/mcp/http";
import { OFFLINE_CHAT } from "@/scripts/eval-chat/harness";
import { mcpHeaders, readOnlyTools, runChat } from "./chat";
import type { Citation } from "./citations";

const enc = new TextEncoder();
let dir: string;
let store: Store;
let registry: Registry;
let server: WebServer;
let mcpUrl: string;
const seen: { authorization?: string; filter?: string; tools: string[] }[] = [];
const AUTH: AuthSettings = { requireToken: true, loopbackOnly: true, localOwner: true, rateLimitPerMinute: 1000, allowedOrigins: [] };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "chat-kbs-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(256) });
  registry = await openRegistry(store, { defaultKb: "default" });
  const leave = (days: number) => `# Leave\n\n## Annual leave\n\nFull-time employees get ${days} days of annual leave per year.\n`;
  await ingestDocument(store, { filename: "leave.md", kb: "default", data: enc.encode(leave(20)) });
  await ingestDocument(store, { filename: "leave.md", kb: "contractors", data: enc.encode(leave(12)) });

  server = await serveWeb(async (request) => {
    try {
      const msg = JSON.parse(await request.clone().text()) as { method?: string; params?: { name?: string } };
      seen.push({
        authorization: request.headers.get("authorization") ?? undefined,
        filter: request.headers.get("x-kb-filter") ?? undefined,
        tools: msg.method === "tools/call" ? [String(msg.params?.name)] : [],
      });
    } catch {
      /* not JSON */
    }
    return handleMcpRequest(request, { getStore: async () => store, registry, auth: AUTH });
  });
  mcpUrl = `${server.base}/api/mcp`;
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const config: AppConfig["chat"] = { ...OFFLINE_CHAT, model: "test", maxSteps: 4 };

async function citationsOf(res: Response): Promise<{ citations: Citation[]; text: string; errors: string[] }> {
  const chunks = (await res.text())
    .split("\n\n")
    .map((e) => e.replace(/^data: /, "").trim())
    .filter((d) => d && d !== "[DONE]")
    .map((d) => JSON.parse(d) as { type: string; delta?: string; errorText?: string; data?: { citations: Citation[] } });
  return {
    citations: chunks.filter((c) => c.type === "data-citations").at(-1)?.data?.citations ?? [],
    text: chunks
      .filter((c) => c.type === "text-delta")
      .map((c) => c.delta)
      .join(""),
    errors: chunks.filter((c) => c.type === "error").map((c) => c.errorText ?? ""),
  };
}

describe("chat limited to knowledge bases", () => {
  const question = [{ role: "user" as const, content: "How many days of annual leave do full-time employees get?" }];

  it("searches every knowledge base by default, through a server that requires tokens", async () => {
    seen.length = 0;
    const { citations, errors } = await citationsOf(await runChat({ config, mcpUrl, messages: question }));
    expect(errors).toEqual([]);
    expect(new Set(citations.map((c) => c.kb))).toEqual(new Set(["default", "contractors"]));
    expect(seen.every((s) => s.authorization?.startsWith("Bearer kbi_"))).toBe(true);
  });

  it("only searches the chosen knowledge bases", async () => {
    seen.length = 0;
    const { citations, text } = await citationsOf(await runChat({ config, mcpUrl, messages: question, kbs: ["contractors"] }));
    expect(citations.length).toBeGreaterThan(0);
    expect(citations.every((c) => c.kb === "contractors")).toBe(true);
    expect(text).toContain("12 days");
    expect(text).not.toContain("20 days");
    expect(seen.every((s) => s.filter === "contractors")).toBe(true);
  });

  it("never offers the write tools nor the connectors' search/fetch to the model, and keeps the secret from a foreign MCP_URL", () => {
    const noop = { execute: async () => null } as never;
    const offered = { search_knowledge: noop, add_document: noop, delete_document: noop, search: noop, fetch: noop, search_hr: noop };
    expect(Object.keys(readOnlyTools(offered))).toEqual(["search_knowledge", "search_hr"]);
    expect(mcpHeaders({ mcpUrl: undefined }).Authorization).toMatch(/^Bearer kbi_/);
    expect(mcpHeaders({ mcpUrl: "https://other.example/api/mcp" }).Authorization).toBeUndefined();
    expect(mcpHeaders({ mcpUrl: undefined }, ["a b", "c"])["x-kb-filter"]).toBe("a%20b,c");
  });
});
