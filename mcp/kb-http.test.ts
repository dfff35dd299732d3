/**
 * The MCP endpoint over real HTTP (the route's handler behind a Node HTTP server) with the SDK client, on a
 * real LanceDB store and registry in a temp dir: per-knowledge-base tools, resources, the prompt, write tools
 * and access control. The built Next server is covered by e2e/kbs-api.spec.ts.
 */

import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apacheMissing, startApacheDav } from "@/e2e/helpers/apache-dav";
import { startConfluenceContract } from "@/e2e/helpers/confluence-contract";
import { startFeishuContract } from "@/e2e/helpers/feishu-contract";
import { startGoogleDriveContract } from "@/e2e/helpers/google-drive-contract";
import { postRaw } from "@/e2e/helpers/mcp";
import { block, startNotionContract } from "@/e2e/helpers/notion-contract";
import { serveTestSite } from "@/e2e/helpers/test-site";
import { serveWeb } from "@/e2e/helpers/web-server";
import { deleteKnowledgeBase } from "@/lib/admin/knowledge-bases";
import { getAuditLog } from "@/lib/audit/log";
import type { AuthSettings } from "@/lib/auth/config";
import { internalMcpSecret } from "@/lib/auth/internal";
import { testAuthSettings } from "@/lib/auth/test-settings";
import { HR_KB, openTestKbs } from "@/lib/ingest/test-kbs";
import { createAccessToken, createKnowledgeBase, listKnowledgeBases } from "@/lib/kb";
import { searchToolBase } from "@/lib/kb/names";
import type { Registry } from "@/lib/kb/registry";
import { runningPromise } from "@/lib/sources/engine";
import type { Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import packageJson from "@/package.json";
import { handleMcpRequest, KB_FILTER_HEADER } from "./http";

let kbs: Awaited<ReturnType<typeof openTestKbs>>;
let store: Store;
let registry: Registry;
let server: Awaited<ReturnType<typeof serveWeb>>;
let base: string;
const OPEN: AuthSettings = testAuthSettings();
let auth: AuthSettings = OPEN;
const secrets: Record<string, string> = {};

const DEPLOY = "# Deployment guide\n\n## Rollback\n\nRoll back a failed deploy with the quasar rollback command within 10 minutes.\n";
const ENG_KB = {
  name: "eng-docs",
  title: "Engineering",
  description: "How the platform is built and run",
  documents: { "deploy.md": DEPLOY },
};

beforeAll(async () => {
  kbs = await openTestKbs("mcp-kb-http-", [HR_KB, ENG_KB]);
  ({ store, registry } = kbs);
  secrets.rw = (await createAccessToken(store, registry, { name: "rw", scope: "read-write" })).secret;
  secrets.read = (await createAccessToken(store, registry, { name: "read", scope: "read" })).secret;
  secrets.hr = (await createAccessToken(store, registry, { name: "hr only", scope: "read-write", kb: "hr" })).secret;

  server = await serveWeb(async (request, url) => {
    const m = /^\/api\/mcp(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return new Response(null, { status: 404 });
    const kb = m[1] ? decodeURIComponent(m[1]) : undefined;
    return handleMcpRequest(request, { kb, getStore: async () => store, registry, auth });
  });
  base = server.base;
});

afterAll(async () => {
  await server?.close();
  await kbs?.close();
});

async function connect(pathname = "/api/mcp", headers: Record<string, string> = {}) {
  const client = new Client({ name: "test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(pathname, base), { requestInit: { headers } }));
  return client;
}
const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

function text(r: unknown): string {
  return ((r as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("\n");
}
function results(r: unknown) {
  return ((r as CallToolResult).structuredContent as { results: { kb: string; text: string; document: { title: string } }[] }).results;
}

function post(pathname: string, body: unknown, headers: Record<string, string> = {}) {
  return postRaw(new URL(pathname, base).href, JSON.stringify(body), headers);
}
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };

describe("tools per knowledge base", () => {
  it("reports the server name and version at initialize", async () => {
    const client = await connect();
    expect(client.getServerVersion()).toEqual({ name: "knowledge-base", version: packageJson.version });
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    expect(client.getServerCapabilities()?.prompts).toBeDefined();
    await client.close();
  });

  it("lists search_<slug> per knowledge base, described by its description and titles, and a kb enum", async () => {
    const client = await connect("/api/mcp", bearer(secrets.rw));
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([
      "add_document",
      "add_faq",
      "add_source",
      "delete_document",
      "delete_faq",
      "fetch",
      "list_documents",
      "list_sources",
      "read_document",
      "search",
      "search_default",
      "search_eng_docs",
      "search_faq",
      "search_hr",
      "search_knowledge",
    ]);
    const hr = tools.find((t) => t.name === "search_hr")!;
    expect(hr.description).toMatch(
      /^Search the Human Resources knowledge base: Leave, travel and pay policies\. Documents: Travel policy\./,
    );
    expect(hr.inputSchema.required).toEqual(["query"]);
    expect(hr.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === "search_eng_docs")!.description).toContain("Deployment guide");
    const generic = tools.find((t) => t.name === "search_knowledge")!;
    expect((generic.inputSchema.properties as Record<string, { enum?: string[] }>).kb.enum).toEqual(["default", "eng-docs", "hr"]);
    expect(tools.find((t) => t.name === "add_document")!.annotations).toMatchObject({ readOnlyHint: false });
    expect(tools.find((t) => t.name === "delete_document")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });

    const r = await client.callTool({ name: "search_hr", arguments: { query: "per diem overnight" } });
    expect(results(r)[0].text).toContain("80 euros");
    expect(results(r).every((x) => x.kb === "hr")).toBe(true);
    const bad = await client.callTool({ name: "search_knowledge", arguments: { query: "x", kb: "nope" } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('kb must be one of "default", "eng-docs", "hr"');
    await client.close();
  });

  it("serves only one knowledge base at /api/mcp/<kb>", async () => {
    const client = await connect("/api/mcp/hr");
    const { tools } = await client.listTools();
    expect(
      tools
        .map((t) => t.name)
        .filter((n) => n.startsWith("search_"))
        .sort(),
    ).toEqual(["search_faq", "search_hr", "search_knowledge"]);
    const r = await client.callTool({ name: "search_knowledge", arguments: { query: "quasar rollback deploy" } });
    expect(results(r).every((x) => x.kb === "hr")).toBe(true);
    expect(results(r).some((x) => x.text.includes("quasar"))).toBe(false);
    const other = await client.callTool({ name: "search_eng_docs", arguments: { query: "rollback" } }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(McpError);
    const docs = await client.callTool({ name: "list_documents", arguments: {} });
    expect((docs.structuredContent as { documents: { title: string }[] }).documents.map((d) => d.title)).toEqual(["Travel policy"]);
    await client.close();
    expect((await post("/api/mcp/nope", LIST)).status).toBe(404);
  });

  it("reflects a new knowledge base in the next tools/list", async () => {
    const client = await connect();
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("search_legal");
    await createKnowledgeBase(store, registry, { name: "legal", title: "Legal", description: "Contracts" });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("search_legal");
    await deleteKnowledgeBase(store, registry, "legal");
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("search_legal");
    await client.close();
  });

  it("gives each knowledge base the tool name /api/mcp serves for it, also when two names clash", async () => {
    await createKnowledgeBase(store, registry, { name: "ops-team", title: "Ops" });
    await createKnowledgeBase(store, registry, { name: "ops_team", title: "Ops too" });
    try {
      const kbs = await listKnowledgeBases(store, registry);
      const client = await connect();
      const served = new Map(
        (await client.listTools()).tools.flatMap((t) =>
          t._meta?.["knowledge-base/kb"] ? [[String(t._meta["knowledge-base/kb"]), t.name] as const] : [],
        ),
      );
      await client.close();
      expect(served.size).toBe(kbs.length);
      for (const kb of kbs) expect(kb.toolName).toBe(served.get(kb.name));
      // The clash: both names make search_ops_team, so the second one carries a hash (the UI once showed the base).
      const clashing = kbs.find((k) => k.name === "ops_team")!;
      expect(clashing.toolName).toMatch(/^search_ops_team_[0-9a-f]{6}$/);
      expect(clashing.toolName).not.toBe(searchToolBase("ops_team"));
    } finally {
      await deleteKnowledgeBase(store, registry, "ops-team");
      await deleteKnowledgeBase(store, registry, "ops_team");
    }
  });

  it("narrows to the knowledge bases named in X-KB-Filter", async () => {
    const client = await connect("/api/mcp", { [KB_FILTER_HEADER]: "eng-docs" });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("search_eng_docs");
    expect(names).not.toContain("search_hr");
    const r = await client.callTool({ name: "search_knowledge", arguments: { query: "per diem overnight travel" } });
    expect(results(r).every((x) => x.kb === "eng-docs")).toBe(true);
    await client.close();
  });
});

describe("resources and prompts", () => {
  it("lists documents as kb:// resources and reads them", async () => {
    const client = await connect();
    const { resources } = await client.listResources();
    const travel = resources.find((r) => r.title === "Travel policy")!;
    expect(travel.uri).toMatch(/^kb:\/\/hr\/[0-9a-f]+$/);
    expect(travel.mimeType).toBe("text/markdown");
    const read = await client.readResource({ uri: travel.uri });
    expect((read.contents[0] as { text: string }).text).toContain("80 euros per day");
    const missing = await client.readResource({ uri: "kb://hr/no-such-doc" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(McpError);
    await client.close();

    const scoped = await connect("/api/mcp/eng-docs");
    const docs = (await scoped.listResources()).resources.filter((r) => r.uri.startsWith("kb://"));
    expect(docs.map((r) => r.title)).toEqual(["Deployment guide"]);
    expect(await scoped.readResource({ uri: travel.uri }).catch((e: unknown) => e)).toBeInstanceOf(McpError);
    await scoped.close();
  });

  it("offers answer_with_citations naming the right search tool", async () => {
    const client = await connect();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["answer_with_citations"]);
    expect(prompts[0].arguments?.map((a) => a.name)).toEqual(["question", "kb"]);
    const p = await client.getPrompt({ name: "answer_with_citations", arguments: { question: "What is the per diem?", kb: "hr" } });
    const body = (p.messages[0].content as { text: string }).text;
    expect(body).toContain("search_hr");
    expect(body).toContain("Question: What is the per diem?");
    expect(body).toMatch(/\[1\]/);
    const generic = await client.getPrompt({ name: "answer_with_citations", arguments: { question: "Anything?" } });
    expect((generic.messages[0].content as { text: string }).text).toContain("search_knowledge");
    expect(
      await client.getPrompt({ name: "answer_with_citations", arguments: { question: "x", kb: "nope" } }).catch((e) => e),
    ).toBeInstanceOf(McpError);
    await client.close();
  });
});

describe("ChatGPT connector tools: search and fetch", () => {
  it("search returns {results:[{id,title,url}]} as one text item and as structured content, within the endpoint's kbs", async () => {
    process.env.PUBLIC_URL = "https://kb.example.com/";
    const client = await connect("/api/mcp/hr");
    try {
      const r = (await client.callTool({ name: "search", arguments: { query: "per diem overnight travel" } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(r.content).toHaveLength(1);
      expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
      const { results } = r.structuredContent as { results: Record<string, string>[] };
      expect(results.length).toBeGreaterThan(0);
      for (const hit of results) expect(Object.keys(hit).sort()).toEqual(["id", "title", "url"]);
      const [first] = results;
      const chunk = await store.getChunk(first.id);
      expect(chunk).toMatchObject({ kb: "hr" });
      expect(first.title).toBe("Travel policy › Per diem");
      expect(first.url).toBe(`https://kb.example.com/documents/${chunk!.documentId}?chunk=${encodeURIComponent(first.id)}`);
      // Nothing of another knowledge base at this endpoint.
      const other = (await client.callTool({ name: "search", arguments: { query: "quasar rollback deploy" } })) as CallToolResult;
      const ids = (other.structuredContent as { results: { id: string }[] }).results.map((x) => x.id);
      for (const id of ids) expect((await store.getChunk(id))?.kb).toBe("hr");
    } finally {
      delete process.env.PUBLIC_URL;
      await client.close();
    }
  });

  it("fetch returns {id,title,text,url,metadata} for a passage in scope, and an error for one outside", async () => {
    const client = await connect("/api/mcp");
    try {
      const found = (await client.callTool({ name: "search", arguments: { query: "quasar rollback" } })) as CallToolResult;
      const { id, url } = (found.structuredContent as { results: { id: string; url: string }[] }).results[0];
      const r = (await client.callTool({ name: "fetch", arguments: { id } })) as CallToolResult;
      expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
      const out = r.structuredContent as Record<string, unknown>;
      expect(Object.keys(out).sort()).toEqual(["id", "metadata", "text", "title", "url"]);
      expect(out).toMatchObject({
        id,
        url,
        title: "Deployment guide › Rollback",
        metadata: { kb: "eng-docs", document_title: "Deployment guide", source: "deploy.md", heading: expect.stringContaining("Rollback") },
      });
      expect(out.text).toContain("quasar rollback command within 10 minutes");
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/documents\/|^http:\/\/127\.0\.0\.1:3000\/documents\//);

      const scoped = await connect("/api/mcp/hr");
      const outside = (await scoped.callTool({ name: "fetch", arguments: { id } })) as CallToolResult;
      expect(outside.isError).toBe(true);
      expect((outside.content[0] as { text: string }).text).toContain(`No passage with id "${id}"`);
      await scoped.close();
    } finally {
      await client.close();
    }
  });
});

describe("write tools", () => {
  const doc = {
    title: "Parking rules",
    content: "# Parking rules\n\nVisitors park on level minus two, bay 47, near the xylograph mural.\n",
  };

  it("neither lists nor runs the write tools without a read-write token", async () => {
    for (const headers of [{}, bearer(secrets.read), { Authorization: `Bearer ${internalMcpSecret()}` }]) {
      const client = await connect("/api/mcp", headers);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("search_knowledge");
      for (const write of ["add_document", "delete_document", "add_faq", "delete_faq", "add_source", "list_sources"])
        expect(names).not.toContain(write);
      for (const [name, args] of [
        ["add_document", doc],
        ["add_source", { kind: "web", url: "http://127.0.0.1:1/" }],
        ["list_sources", {}],
        ["delete_document", { document_id: "x" }],
        ["add_faq", { question: "Q?", answer: "A." }],
        ["delete_faq", { id: "x" }],
      ] as const) {
        const err = await client.callTool({ name, arguments: args }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(McpError);
        expect((err as McpError).code).toBe(-32602);
        expect((err as McpError).message).toContain(`${name} requires a read-write access token`);
      }
      await client.close();
    }
    expect(await store.getDocument("x")).toBeNull();
  });

  it("adds a document that search then finds, refuses overwriting it, and deletes it", async () => {
    const client = await connect("/api/mcp", bearer(secrets.rw));
    const added = await client.callTool({ name: "add_document", arguments: { ...doc, kb: "hr", tags: ["facilities"] } });
    expect(added.isError).toBeFalsy();
    const out = added.structuredContent as { status: string; document: { id: string; kb: string; chunk_count: number }; uri: string };
    expect(out).toMatchObject({ status: "added", document: { kb: "hr" } });
    expect(await store.getDocument(out.document.id)).toMatchObject({ origin: "mcp", tags: ["facilities"], title: "Parking rules" });

    const found = await client.callTool({ name: "search_knowledge", arguments: { query: "xylograph mural parking" } });
    expect(results(found)[0].document.title).toBe("Parking rules");
    const read = await client.readResource({ uri: out.uri });
    expect((read.contents[0] as { text: string }).text).toContain("bay 47");

    const again = await client.callTool({ name: "add_document", arguments: { ...doc, kb: "hr" } });
    expect((again.structuredContent as { status: string }).status).toBe("unchanged");
    const clash = await client.callTool({ name: "add_document", arguments: { ...doc, kb: "hr", content: "Other text." } });
    expect(clash.isError).toBe(true);
    expect(text(clash)).toContain("already exists");

    const del = await client.callTool({ name: "delete_document", arguments: { document_id: out.document.id } });
    expect(del.isError).toBeFalsy();
    expect(await store.getDocument(out.document.id)).toBeNull();
    const gone = await client.callTool({ name: "search_knowledge", arguments: { query: "xylograph mural parking" } });
    expect(results(gone).some((x) => x.document.title === "Parking rules")).toBe(false);
    await client.close();
  });

  it("validates add_document arguments", async () => {
    const client = await connect("/api/mcp", bearer(secrets.rw));
    const r = await client.callTool({ name: "add_document", arguments: { title: "", content: "x" } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("title must not be empty");
    await client.close();
  });
});

describe("access control", () => {
  it("answers a wrong or malformed token with 401 and WWW-Authenticate, even when tokens are optional", async () => {
    for (const authorization of ["Bearer kbt_wrong", "Basic abc"]) {
      const res = await post("/api/mcp", LIST, { Authorization: authorization });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="mcp", error="invalid_token"/);
      expect(res.json?.error?.message).toBeTruthy();
    }
    const err = await connect("/api/mcp", bearer("kbt_wrong")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
  });

  it("requires a token when REQUIRE_TOKEN is on", async () => {
    auth = { ...OPEN, requireToken: true };
    try {
      const res = await post("/api/mcp", LIST);
      expect(res.status).toBe(401);
      // No error code without credentials (RFC 6750 §3); where the OAuth discovery starts (RFC 9728 §5.1).
      expect(res.headers.get("www-authenticate")).toMatch(
        /^Bearer realm="mcp", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/api\/mcp", scope="kb:read kb:write"$/,
      );
      const client = await connect("/api/mcp", bearer(secrets.read));
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      // A revoked token stops working at once.
      const { token, secret } = await createAccessToken(store, registry, { name: "short-lived", scope: "read" });
      expect((await post("/api/mcp", LIST, bearer(secret))).status).toBe(200);
      await registry.revokeToken(token.id);
      expect((await post("/api/mcp", LIST, bearer(secret))).status).toBe(401);
    } finally {
      auth = OPEN;
    }
  });

  it("keeps a token limited to one knowledge base inside it", async () => {
    expect((await post("/api/mcp/eng-docs", LIST, bearer(secrets.hr))).status).toBe(403);
    const client = await connect("/api/mcp", bearer(secrets.hr));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("search_hr");
    expect(names).not.toContain("search_eng_docs");
    const r = await client.callTool({ name: "search_knowledge", arguments: { query: "quasar rollback", kb: "eng-docs" } });
    expect(r.isError).toBe(true);
    const all = await client.callTool({ name: "search_knowledge", arguments: { query: "quasar rollback deploy" } });
    expect(results(all).every((x) => x.kb === "hr")).toBe(true);
    const engDoc = (await store.listDocuments({ kb: "eng-docs" }))[0];
    expect((await client.callTool({ name: "read_document", arguments: { document_id: engDoc.id } })).isError).toBe(true);
    expect((await client.callTool({ name: "delete_document", arguments: { document_id: engDoc.id } })).isError).toBe(true);
    expect(await store.getDocument(engDoc.id)).not.toBeNull();
    await client.close();
    // Its own knowledge base's endpoint works.
    const own = await connect("/api/mcp/hr", bearer(secrets.hr));
    expect((await own.listTools()).tools.map((t) => t.name)).toContain("search_hr");
    await own.close();
  });

  it("refuses a foreign Origin and accepts listed ones", async () => {
    const res = await post("/api/mcp", LIST, { Origin: "http://evil.example" });
    expect(res.status).toBe(403);
    expect(res.json?.error?.message).toMatch(/origin/i);
    expect((await post("/api/mcp", LIST, { Origin: base })).status).toBe(200);
    auth = { ...OPEN, allowedOrigins: ["https://tools.example.com"] };
    try {
      expect((await post("/api/mcp", LIST, { Origin: "https://tools.example.com" })).status).toBe(200);
    } finally {
      auth = OPEN;
    }
  });

  it("answers 429 with Retry-After past the rate limit, per token", async () => {
    auth = { ...OPEN, requireToken: true, rateLimitPerMinute: 3 };
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await post("/api/mcp", LIST, bearer(secrets.read))).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await post("/api/mcp", LIST, bearer(secrets.read));
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Another token has its own budget.
      expect((await post("/api/mcp", LIST, bearer(secrets.rw))).status).toBe(200);
    } finally {
      auth = OPEN;
    }
  });

  it("does not rate-limit a local single-user run", async () => {
    auth = { ...OPEN, rateLimitPerMinute: 2 };
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await post("/api/mcp", LIST)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
    } finally {
      auth = OPEN;
    }
  });

  it("asks a client on another machine for a token, and limits it by its real address, not X-Forwarded-For", async () => {
    auth = { ...OPEN, rateLimitPerMinute: 2 };
    try {
      const remote = { "x-test-peer": "10.213.9.2" };
      expect((await post("/api/mcp", LIST, remote)).status).toBe(401);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await post("/api/mcp", LIST, { ...remote, ...bearer(secrets.read) })).status);
      expect(statuses).toEqual([200, 200, 429]);
      // A loopback peer that was proxied is remote too (no TRUSTED_PROXIES).
      expect((await post("/api/mcp", LIST, { "x-forwarded-for": "127.0.0.1" })).status).toBe(401);
    } finally {
      auth = OPEN;
    }
  });

  it("rate-limits failed authentications per client address and per token, never a valid token", async () => {
    auth = { ...OPEN, authFailuresPerMinute: 3 };
    try {
      const from = { "x-test-peer": "10.213.9.66", ...bearer("kbt_guess") };
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await post("/api/mcp", LIST, from)).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      // Another guess from that address is refused too; a valid token from behind the same address (a shared NAT) is not.
      expect((await post("/api/mcp", LIST, { "x-test-peer": "10.213.9.66", ...bearer("kbt_other_guess") })).status).toBe(429);
      expect((await post("/api/mcp", LIST, { "x-test-peer": "10.213.9.66", ...bearer(secrets.read) })).status).toBe(200);
      expect((await post("/api/mcp", LIST, { "x-test-peer": "10.213.9.67", ...bearer(secrets.read) })).status).toBe(200);
      // Each refused attempt is in the audit log, with where it came from: the wrong tokens (401) and the 429s.
      const refused = (await (await getAuditLog(store)).list({ action: "access_denied" })).filter((e) => e.address === "10.213.9.66");
      expect(refused.map((e) => [e.outcome, e.detail?.slice(0, 4)])).toEqual([
        ["denied", "429:"],
        ["denied", "429:"],
        ["denied", "401:"],
        ["denied", "401:"],
        ["denied", "401:"],
      ]);
    } finally {
      auth = OPEN;
    }
  });

  it("answers malformed params with -32602 and a readable message", async () => {
    const res = await post("/api/mcp", { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: 5 } });
    expect(res.json?.error?.code).toBe(-32602);
    expect(res.json?.error?.message).toMatch(/^Invalid params for tools\/call: name: /);
    expect(res.json?.error?.message).not.toContain("[");
    expect(res.json?.id).toBe(9);
    const longUri = `kb://default/${"a".repeat(1024 * 1024)}`;
    const read = await post("/api/mcp", { jsonrpc: "2.0", id: 10, method: "resources/read", params: { uri: longUri } });
    expect(read.json?.error?.code).toBe(-32602);
    expect(read.json?.error?.message).toMatch(/^Invalid params for resources\/read: uri: longer than/);
  });

  it("answers a NUL in a document id as invalid input", async () => {
    const client = await connect("/api/mcp");
    const r = await client.callTool({ name: "read_document", arguments: { document_id: "ab\u0000cd" } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/must not contain control characters/);
    await client.close();
  });
});

const tempDir = tempDirs("kb-http-dav-");

describe("source tools", () => {
  it("add_source crawls a site for a read-write token, list_sources reports it, and fetch's url is the original page", async () => {
    const site = await serveTestSite();
    process.env.SOURCE_ALLOW_HOSTS = "127.0.0.1";
    process.env.SOURCE_WEB_DELAY_MS = "0";
    try {
      const client = await connect("/api/mcp", bearer(secrets.rw));
      const bad = await client.callTool({ name: "add_source", arguments: { kind: "web", url: "ftp://example.com/", kb: "eng-docs" } });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain("http(s) URL");
      const added = await client.callTool({
        name: "add_source",
        arguments: { kind: "web", url: `${site.base}/docs/alpha.html`, mode: "page", kb: "eng-docs", scheduleMinutes: 0 },
      });
      expect(added.isError).toBeFalsy();
      const id = (added.structuredContent as { source: { id: string } }).source.id;
      await runningPromise(id);
      const listed = await client.callTool({ name: "list_sources", arguments: { kb: "eng-docs" } });
      expect(text(listed)).toMatch(/1 documents; last sync .*: 1 added/);
      const found = await client.callTool({ name: "search", arguments: { query: "zebra migration spring" } });
      const hit = (found.structuredContent as { results: { id: string; title: string }[] }).results[0];
      expect(hit.title).toContain("Alpha guide");
      const fetched = await client.callTool({ name: "fetch", arguments: { id: hit.id } });
      expect((fetched.structuredContent as { url: string }).url).toBe(`${site.base}/docs/alpha.html`);
      await client.close();
    } finally {
      await site.close();
      delete process.env.SOURCE_ALLOW_HOSTS;
    }
  });

  it.skipIf(apacheMissing())("add_source adds a WebDAV folder; its password is in no answer, and fetch's url is the file", async () => {
    const dav = await startApacheDav(await tempDir());
    process.env.SOURCE_ALLOW_HOSTS = "127.0.0.1";
    process.env.SOURCE_SECRET_KEY = "test-source-secret-key-0123456789";
    try {
      await dav.setPassword("mcp", "dav-PASSWORD-42");
      await mkdir(path.join(dav.files, "wiki"));
      await writeFile(path.join(dav.files, "wiki", "quokka.md"), "# Quokka care\n\nQuokkas are fed saltbush at dusk.");
      const client = await connect("/api/mcp", bearer(secrets.rw));
      const added = await client.callTool({
        name: "add_source",
        arguments: {
          kind: "webdav",
          url: `${dav.origin}/wiki/`,
          username: "mcp",
          password: "dav-PASSWORD-42",
          kb: "eng-docs",
          scheduleMinutes: 0,
        },
      });
      expect(added.isError).toBeFalsy();
      expect(JSON.stringify(added)).not.toContain("dav-PASSWORD-42");
      await runningPromise((added.structuredContent as { source: { id: string } }).source.id);
      const listed = await client.callTool({ name: "list_sources", arguments: { kb: "eng-docs" } });
      expect(text(listed)).toMatch(/\[webdav, kb eng-docs, id [^\]]+\]: 1 documents; last sync [^\n]*: 1 added/);
      expect(JSON.stringify(listed)).not.toContain("dav-PASSWORD-42");
      const found = await client.callTool({ name: "search", arguments: { query: "quokka saltbush" } });
      const hit = (found.structuredContent as { results: { id: string; title: string }[] }).results[0];
      expect(hit.title).toBe("Quokka care");
      const fetched = await client.callTool({ name: "fetch", arguments: { id: hit.id } });
      expect((fetched.structuredContent as { url: string }).url).toBe(`${dav.origin}/wiki/quokka.md`);
      await client.close();
    } finally {
      await dav.close();
      delete process.env.SOURCE_ALLOW_HOSTS;
      delete process.env.SOURCE_SECRET_KEY;
    }
  });

  it("add_source adds a Notion workspace through the contract server; its token is in no answer, and fetch's url is the page in Notion", async () => {
    const notion = await startNotionContract();
    process.env.SOURCE_ALLOW_HOSTS = "127.0.0.1";
    process.env.SOURCE_SECRET_KEY = "test-source-secret-key-0123456789";
    try {
      notion.put({
        id: "33333333-3333-4333-8333-000000000001",
        title: "Capybara care",
        blocks: [block.p("Capybaras bathe in the warm pond at dawn.")],
      });
      const client = await connect("/api/mcp", bearer(secrets.rw));
      const added = await client.callTool({
        name: "add_source",
        arguments: { kind: "notion", apiUrl: notion.origin, token: notion.token, kb: "eng-docs", scheduleMinutes: 0 },
      });
      expect(added.isError).toBeFalsy();
      expect(JSON.stringify(added)).not.toContain(notion.token);
      const run = await runningPromise((added.structuredContent as { source: { id: string } }).source.id);
      expect(run).toMatchObject({ added: 1, error: null });
      const found = await client.callTool({ name: "search", arguments: { query: "capybaras warm pond" } });
      const hit = (found.structuredContent as { results: { id: string; title: string }[] }).results[0];
      expect(hit.title).toBe("Capybara care");
      const fetched = await client.callTool({ name: "fetch", arguments: { id: hit.id } });
      expect((fetched.structuredContent as { url: string }).url).toBe(
        "https://www.notion.so/Capybara-care-33333333333343338333000000000001",
      );
      await client.close();
    } finally {
      await notion.close();
    }
  });

  it("add_source adds Confluence Data Center spaces (deployment data-center, a personal access token, no username); the token is in no answer", async () => {
    const wiki = await startConfluenceContract({ deployment: "data-center" });
    process.env.SOURCE_ALLOW_HOSTS = "127.0.0.1";
    process.env.SOURCE_SECRET_KEY = "test-source-secret-key-0123456789";
    try {
      wiki.spaces.set("OPS", { id: "98001", key: "OPS", name: "Operations" });
      wiki.put({ id: "1001", type: "page", space: "OPS", title: "Kiln rota", html: "<p>The kiln is fired on Thursdays.</p>" });
      const client = await connect("/api/mcp", bearer(secrets.rw));
      const args = { kind: "confluence", deployment: "data-center", url: wiki.site, spaces: ["OPS"], token: wiki.token };
      const added = await client.callTool({ name: "add_source", arguments: { ...args, kb: "eng-docs", scheduleMinutes: 0 } });
      expect(added.isError).toBeFalsy();
      expect(JSON.stringify(added)).not.toContain(wiki.token);
      const run = await runningPromise((added.structuredContent as { source: { id: string } }).source.id);
      expect(run).toMatchObject({ added: 1, error: null });
      expect(wiki.requests.every((r) => r.auth === `Bearer ${wiki.token}`)).toBe(true);
      await client.close();
    } finally {
      await wiki.close();
    }
  });

  it("add_source adds Google Drive folders; the service account key is in no answer, and fetch's url is the file's webViewLink", async () => {
    const drive = await startGoogleDriveContract();
    process.env.SOURCE_ALLOW_HOSTS = "127.0.0.1";
    process.env.SOURCE_SECRET_KEY = "test-source-secret-key-0123456789";
    try {
      const key = drive.serviceAccount();
      const secret = (JSON.parse(key) as { private_key: string }).private_key.split("\n")[1];
      const folder = drive.folder("Wombats");
      const file = drive.file("wombat.md", folder, "# Wombat care\n\nWombats dig burrows at night.", { mimeType: "text/markdown" });
      const client = await connect("/api/mcp", bearer(secrets.rw));
      const added = await client.callTool({
        name: "add_source",
        arguments: {
          kind: "google-drive",
          folders: [folder],
          serviceAccount: key,
          apiUrl: drive.apiUrl,
          kb: "eng-docs",
          scheduleMinutes: 0,
        },
      });
      expect(added.isError).toBeFalsy();
      expect(JSON.stringify(added)).not.toContain(secret);
      await runningPromise((added.structuredContent as { source: { id: string } }).source.id);
      const listed = await client.callTool({ name: "list_sources", arguments: { kb: "eng-docs" } });
      expect(text(listed)).toMatch(/\[google-drive, kb eng-docs, id [^\]]+\]: 1 documents; last sync [^\n]*: 1 added/);
      expect(JSON.stringify(listed)).not.toContain(secret);
      const found = await client.callTool({ name: "search", arguments: { query: "wombats dig burrows" } });
      const hit = (found.structuredContent as { results: { id: string; title: string }[] }).results[0];
      expect(hit.title).toBe("Wombat care");
      const fetched = await client.callTool({ name: "fetch", arguments: { id: hit.id } });
      expect((fetched.structuredContent as { url: string }).url).toBe(`https://drive.google.com/file/d/${file}/view?usp=drivesdk`);
      await client.close();
    } finally {
      await drive.close();
    }
  });

  it("add_source adds a Feishu wiki space (no url: its app id, app secret and space id); the secret is in no answer", async () => {
    const feishu = await startFeishuContract();
    process.env.SOURCE_ALLOW_HOSTS = "127.0.0.1";
    process.env.SOURCE_SECRET_KEY = "test-source-secret-key-0123456789";
    try {
      feishu.wikiDoc("spcMcp", "dxMcp", "Narwhal feeding", [{ p: "The narwhals are fed arctic cod at noon." }]);
      const client = await connect("/api/mcp", bearer(secrets.rw));
      const args = { kind: "feishu", apiUrl: feishu.origin, appId: feishu.appId, password: feishu.appSecret, spaces: ["spcMcp"] };
      const added = await client.callTool({ name: "add_source", arguments: { ...args, kb: "eng-docs", scheduleMinutes: 0 } });
      expect(added.isError).toBeFalsy();
      expect(JSON.stringify(added)).not.toContain(feishu.appSecret);
      await runningPromise((added.structuredContent as { source: { id: string } }).source.id);
      const listed = await client.callTool({ name: "list_sources", arguments: { kb: "eng-docs" } });
      expect(text(listed)).toMatch(/\[feishu, kb eng-docs, id [^\]]+\]: 1 documents; last sync [^\n]*: 1 added/);
      expect(JSON.stringify(listed)).not.toContain(feishu.appSecret);
      await client.close();
    } finally {
      await feishu.close();
      delete process.env.SOURCE_ALLOW_HOSTS;
      delete process.env.SOURCE_SECRET_KEY;
    }
  });
});
