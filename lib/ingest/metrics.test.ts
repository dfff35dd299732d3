import { useTestDataDir } from "@/lib/test-helpers/env";
/**
 * GET /api/metrics (the route module itself) on a real store, after real MCP tool calls through the MCP
 * HTTP handler: Prometheus text with per-tool latency and counts, errors by code, ingest and store gauges;
 * the management API's access rule; and the JSON log line of a tool call carrying the request's id.
 */

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET } from "@/app/api/metrics/route";
import type { AuthSettings } from "@/lib/auth/config";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import { ingestDocument } from "@/lib/ingest";
import { createLogger, getLogger } from "@/lib/log";
import { observeRequest } from "@/lib/metrics/index";
import { getStore, type Store } from "@/lib/store";
import { setLogger } from "@/lib/test-helpers/log";
import { handleMcpRequest } from "@/mcp/http";

const OPEN: AuthSettings = { requireToken: false, loopbackOnly: true, localOwner: true, rateLimitPerMinute: 100_000, allowedOrigins: [] };
const saved = { ...process.env };
/** What server.mjs sets for a request from this machine. */
const LOCAL = () => ({ Host: "127.0.0.1", [PEER_HEADER]: peerHeaderFor("127.0.0.1") });
let dir: string;
let store: Store;
const lines: string[] = [];

async function callTool(name: string, args: Record<string, unknown>, id = 1) {
  const req = new Request("http://127.0.0.1/api/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "X-Request-Id": "client-chosen",
      ...LOCAL(),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
  });
  const res = await handleMcpRequest(req, { getStore: async () => store, auth: OPEN });
  return { status: res.status, body: await res.json() };
}

const metrics = (headers: Record<string, string> = {}) =>
  GET(new Request("http://127.0.0.1/api/metrics", { headers: { ...LOCAL(), ...headers } }));

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "metrics-test-"));
  useTestDataDir(dir);
  store = await getStore();
  await ingestDocument(store, {
    filename: "otters.md",
    data: new TextEncoder().encode("# Otters\n\nSea otters hold hands while they sleep."),
  });
  setLogger(
    createLogger(
      new Writable({
        write(chunk, _enc, cb) {
          lines.push(...String(chunk).split("\n").filter(Boolean));
          cb();
        },
      }),
      "info",
    ),
  );
});

afterAll(async () => {
  await store.close();
  delete (globalThis as Record<symbol, unknown>)[Symbol.for("kb-mcp-chat.store")];
  setLogger(createLogger());
  process.env = saved;
  await rm(dir, { recursive: true, force: true });
});

describe("GET /api/metrics", () => {
  it("counts tool calls, errors, ingestion and the store in Prometheus text", async () => {
    const ok = await callTool("search_knowledge", { query: "otters sleep" });
    expect(ok.status).toBe(200);
    expect(ok.body.result.isError).toBeFalsy();
    const bad = await callTool("read_document", { document_id: "no-such-document" }, 2);
    expect(bad.body.result.isError).toBe(true);
    const unknown = await callTool("no_such_tool", {}, 3);
    expect(unknown.body.error.code).toBe(-32602);
    observeRequest("/api/documents", 200, 12, "GET");

    const res = await metrics();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toMatch(/kb_mcp_tool_calls_total\{tool="search_knowledge",outcome="ok"\} 1\b/);
    expect(text).toMatch(/kb_mcp_tool_duration_seconds_count\{tool="search_knowledge",outcome="ok"\} 1\b/);
    expect(text).toMatch(/kb_mcp_tool_calls_total\{tool="read_document",outcome="tool_error"\} 1\b/);
    expect(text).toMatch(/kb_errors_total\{code="unknown_tool"\} 1\b/);
    expect(text).toMatch(/kb_http_request_duration_seconds_count\{route="\/api\/documents",method="GET",status="200"\} 1\b/);
    expect(text).toMatch(/kb_ingest_documents_total\{status="added"\} 1\b/);
    expect(text).toMatch(/kb_ingest_chunks_total 1\b/);
    expect(text).toMatch(/kb_embedding_cache_total\{result="miss"\} 1\b/);
    expect(text).toMatch(/kb_store_rows\{table="chunks"\} 1\b/);
    expect(text).toMatch(/kb_store_rows\{table="documents"\} 1\b/);
    expect(text).toMatch(/kb_store_versions\{table="chunks"\} [1-9]/);
    const bytes = Number(/kb_data_dir_bytes (\d+)/.exec(text)?.[1]);
    expect(bytes).toBeGreaterThan(1000);
    expect(text).toContain("kb_ingest_queue_depth 0");
    await store.optimize();
    expect(await (await metrics()).text()).toMatch(/kb_maintenance_runs_total\{outcome="ok"\} [1-9]/);
  });

  it("logs each tool call as JSON with a request id the server generated", async () => {
    lines.length = 0;
    await callTool("search_knowledge", { query: "otters" }, 4);
    const entries = lines.map((l) => JSON.parse(l)).filter((e) => e.msg === "tool call");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ component: "mcp", tool: "search_knowledge", outcome: "ok", level: 30 });
    expect(entries[0].reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof entries[0].ms).toBe("number");
    await callTool("search_knowledge", { query: "otters" }, 5);
    const second = lines.map((l) => JSON.parse(l)).filter((e) => e.msg === "tool call");
    expect(second[1].reqId).not.toBe(entries[0].reqId);
    expect(getLogger()).toBeDefined();
  });

  it("follows the management API's access rule", async () => {
    process.env.REQUIRE_TOKEN = "1";
    process.env.ADMIN_TOKEN = "admin-secret-for-metrics";
    try {
      expect((await metrics()).status).toBe(401);
      expect((await metrics({ Authorization: "Bearer wrong" })).status).toBe(401);
      expect((await metrics({ Authorization: "Bearer admin-secret-for-metrics" })).status).toBe(200);
      expect((await metrics({ Origin: "http://evil.example", Authorization: "Bearer admin-secret-for-metrics" })).status).toBe(403);
    } finally {
      delete process.env.REQUIRE_TOKEN;
      delete process.env.ADMIN_TOKEN;
    }
  });
});
