/**
 * Knowledge bases, access tokens and the shareable MCP URL against the built Next servers: /api/kbs,
 * /api/tokens, /api/mcp and /api/mcp/<kb> with the SDK client, the AI SDK's MCP client and the MCP
 * Inspector's CLI, on the offline app (tokens optional) and the secured app (REQUIRE_TOKEN=1).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createMCPClient } from "@ai-sdk/mcp";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { connectMcp, mcpUrl, postRaw, resultText, search } from "./helpers/mcp";
import { expect, PORTS, SECURE, test } from "./helpers/servers";

const OPEN = `http://127.0.0.1:${PORTS.offline}`;
const SECURED = `http://127.0.0.1:${PORTS.secure}`;
const RUN = Math.random().toString(36).slice(2, 8);
const KB = `e2e-kb-${RUN}`;
const RENAMED = `e2e-kbr-${RUN}`;
const OTHER = `e2e-other-${RUN}`;
const CODEWORD = `brambleton${RUN}`;
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
const toolOf = (kb: string) => `search_${kb.replace(/-/g, "_")}`;
const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

async function api(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  return { status: res.status, headers: res.headers, json };
}

async function upload(base: string, kb: string, name: string, text: string) {
  const form = new FormData();
  form.append("files", new Blob([text], { type: "text/markdown" }), name);
  form.append("kb", kb);
  const res = await fetch(`${base}/api/documents`, { method: "POST", body: form });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function createToken(base: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await api(base, "POST", "/api/tokens", body, headers);
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.secret;
}

test.describe.configure({ mode: "serial" });

test.afterAll(async () => {
  for (const name of [KB, RENAMED, OTHER]) await api(OPEN, "DELETE", `/api/kbs/${name}`);
});

test("lists the default knowledge base with its documents", async () => {
  const res = await api(OPEN, "GET", "/api/kbs");
  expect(res.status).toBe(200);
  expect(res.json.kbs[0]).toMatchObject({ name: "default", isDefault: true });
  expect(res.json.kbs[0].documentCount).toBeGreaterThanOrEqual(4);
});

test("creates knowledge bases and validates input with typed errors", async () => {
  const created = await api(OPEN, "POST", "/api/kbs", {
    name: KB,
    title: "Garden Club",
    description: "Allotment rules, plots and tool sheds",
  });
  expect(created.status).toBe(201);
  expect(created.json.kb).toMatchObject({ name: KB, title: "Garden Club", documentCount: 0 });
  expect((await api(OPEN, "POST", "/api/kbs", { name: OTHER, title: "Other" })).status).toBe(201);

  const dup = await api(OPEN, "POST", "/api/kbs", { name: KB });
  expect(dup.status).toBe(409);
  expect(dup.json.error.code).toBe("conflict");
  for (const body of [{ name: "Bad Name" }, { name: "" }, {}, { name: "ok-name", extra: 1 }, { name: "x".repeat(41) }]) {
    const bad = await api(OPEN, "POST", "/api/kbs", body);
    expect(bad.status, JSON.stringify(body)).toBe(400);
    expect(bad.json.error).toMatchObject({ code: "bad_request", message: expect.any(String) });
  }
  const notJson = await fetch(`${OPEN}/api/kbs`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
  expect(notJson.status).toBe(400);
  expect((await api(OPEN, "PATCH", "/api/kbs/no-such-kb", { title: "x" })).status).toBe(404);
  expect((await api(OPEN, "DELETE", "/api/kbs/default")).status).toBe(400);
});

test("each knowledge base gets its own described search tool; /api/mcp/<kb> serves only it", async () => {
  await upload(
    OPEN,
    KB,
    `plots-${RUN}.md`,
    `# Allotment plots\n\n## Watering\n\nThe ${CODEWORD} water butts are refilled every Tuesday.\n`,
  );
  const client = await connectMcp(mcpUrl(PORTS.offline));
  try {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === toolOf(KB))!;
    expect(tool, tools.map((t) => t.name).join(", ")).toBeDefined();
    expect(tool.description).toMatch(
      /^Search the Garden Club knowledge base: Allotment rules, plots and tool sheds\. Documents: Allotment plots\./,
    );
    const kbEnum = (tools.find((t) => t.name === "search_knowledge")!.inputSchema.properties as Record<string, { enum: string[] }>).kb.enum;
    expect(kbEnum).toEqual(expect.arrayContaining(["default", KB, OTHER]));
    const r = await client.callTool({ name: toolOf(KB), arguments: { query: `${CODEWORD} water butts` } });
    expect(resultText(r)).toContain(`The ${CODEWORD} water butts are refilled every Tuesday`);
  } finally {
    await client.close();
  }

  const scoped = await connectMcp(mcpUrl(PORTS.offline, `/api/mcp/${KB}`));
  try {
    const names = (await scoped.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith("search_")).sort()).toEqual([toolOf(KB), "search_faq", "search_knowledge"].sort());
    const leave = await search(scoped, { query: "How many days of annual leave do employees get?" });
    expect(leave.results.every((x) => x.kb === KB)).toBe(true);
    const err = await scoped.callTool({ name: "search_default", arguments: { query: "leave" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
  } finally {
    await scoped.close();
  }
  expect((await postRaw(mcpUrl(PORTS.offline, "/api/mcp/no-such-kb-here"), LIST)).status).toBe(404);
  // A segment that is not valid percent-encoding is refused before any route, as every malformed address is.
  const malformed = await postRaw(mcpUrl(PORTS.offline, "/api/mcp/%ZZ"), LIST);
  expect(malformed.status).toBe(400);
  expect(malformed.json?.error?.code).toBe("bad_request");
  // Methods the endpoint does not serve stay Next.js's: a preflight gets 204 and the methods allowed.
  const preflight = await fetch(mcpUrl(PORTS.offline, "/api/mcp"), { method: "OPTIONS" });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get("allow")).toContain("POST");
});

test("documents are resources and the prompt tells how to cite", async () => {
  const client = await connectMcp(mcpUrl(PORTS.offline, `/api/mcp/${KB}`));
  try {
    // Its documents, besides the MCP Apps citation view (e2e/citation-view.spec.ts).
    const resources = (await client.listResources()).resources.filter((r) => !r.uri.startsWith("ui://"));
    expect(resources.map((r) => r.title)).toEqual(["Allotment plots"]);
    expect(resources[0].uri).toMatch(new RegExp(`^kb://${KB}/`));
    const read = await client.readResource({ uri: resources[0].uri });
    expect((read.contents[0] as { text: string }).text).toContain(`${CODEWORD} water butts`);
    const prompt = await client.getPrompt({
      name: "answer_with_citations",
      arguments: { question: "When are the butts refilled?", kb: KB },
    });
    const text = (prompt.messages[0].content as { text: string }).text;
    expect(text).toContain(toolOf(KB));
    expect(text).toContain("Question: When are the butts refilled?");
  } finally {
    await client.close();
  }
});

test("renaming a knowledge base renames its tool and endpoint and keeps its documents", async () => {
  const res = await api(OPEN, "PATCH", `/api/kbs/${KB}`, { name: RENAMED, description: "Allotments, renamed" });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  expect(res.json.kb).toMatchObject({ name: RENAMED, title: "Garden Club", description: "Allotments, renamed", documentCount: 1 });
  const client = await connectMcp(mcpUrl(PORTS.offline, `/api/mcp/${RENAMED}`));
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain(toolOf(RENAMED));
    expect(names).not.toContain(toolOf(KB));
    const r = await client.callTool({ name: toolOf(RENAMED), arguments: { query: `${CODEWORD} water butts` } });
    expect(resultText(r)).toContain(CODEWORD);
  } finally {
    await client.close();
  }
  expect((await postRaw(mcpUrl(PORTS.offline, `/api/mcp/${KB}`), LIST)).status).toBe(404);
});

test("tokens: shown once, listed without secrets, limited to a knowledge base, revocable", async () => {
  const created = await api(OPEN, "POST", "/api/tokens", { name: `e2e ${RUN}`, scope: "read", kb: RENAMED });
  expect(created.status).toBe(201);
  const secret = created.json.secret as string;
  expect(secret).toMatch(/^kbt_/);
  const listed = await api(OPEN, "GET", "/api/tokens");
  expect(JSON.stringify(listed.json)).not.toContain(secret);
  expect(listed.json.tokens.find((t: { id: string }) => t.id === created.json.token.id)).toMatchObject({
    scope: "read",
    kb: RENAMED,
    revoked: false,
  });
  expect((await api(OPEN, "POST", "/api/tokens", { name: "x", scope: "admin" })).status).toBe(400);
  expect((await api(OPEN, "POST", "/api/tokens", { name: "x", scope: "read", kb: "no-such-kb" })).status).toBe(404);

  // Limited to RENAMED: another knowledge base's endpoint is forbidden, /api/mcp only shows RENAMED.
  expect((await postRaw(mcpUrl(PORTS.offline, `/api/mcp/${OTHER}`), LIST, bearer(secret))).status).toBe(403);
  const client = await connectMcp(mcpUrl(PORTS.offline), bearer(secret));
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain(toolOf(RENAMED));
    expect(names).not.toContain("search_default");
    const other = await search(client, { query: "annual leave", kb: "default" });
    expect(other.result.isError).toBe(true);
    const mine = await search(client, { query: "annual leave" });
    expect(mine.results.every((x) => x.kb === RENAMED)).toBe(true);
  } finally {
    await client.close();
  }

  expect((await api(OPEN, "DELETE", `/api/tokens/${created.json.token.id}`)).status).toBe(200);
  const revoked = await postRaw(mcpUrl(PORTS.offline), LIST, bearer(secret));
  expect(revoked.status).toBe(401);
});

test("add_document needs a read-write token; what it adds is found by search_knowledge", async () => {
  const doc = { title: `Shed keys ${RUN}`, content: `# Shed keys\n\nThe ${CODEWORD} shed key hangs behind the compost bins.\n`, kb: OTHER };
  const anonymous = await connectMcp(mcpUrl(PORTS.offline));
  const reader = await connectMcp(mcpUrl(PORTS.offline), bearer(await createToken(OPEN, { name: "reader", scope: "read" })));
  const writer = await connectMcp(mcpUrl(PORTS.offline), bearer(await createToken(OPEN, { name: "writer", scope: "read-write" })));
  try {
    for (const c of [anonymous, reader]) {
      expect((await c.listTools()).tools.map((t) => t.name)).not.toContain("add_document");
      await expect(c.callTool({ name: "add_document", arguments: doc })).rejects.toThrow(/add_document requires a read-write access token/);
    }
    expect((await writer.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["add_document", "delete_document"]));
    const added = await writer.callTool({ name: "add_document", arguments: doc });
    expect(added.isError, resultText(added)).toBeFalsy();
    const found = await search(anonymous, { query: `${CODEWORD} shed key compost` });
    expect(found.results[0].document.title).toBe(doc.title);
    expect(found.results[0].kb).toBe(OTHER);

    const id = (added.structuredContent as { document: { id: string } }).document.id;
    await expect(reader.callTool({ name: "delete_document", arguments: { document_id: id } })).rejects.toThrow(/read-write/);
    const del = await writer.callTool({ name: "delete_document", arguments: { document_id: id } });
    expect(del.isError).toBeFalsy();
    expect((await search(anonymous, { query: `${CODEWORD} shed key compost`, kb: OTHER })).results).toEqual([]);
  } finally {
    await Promise.all([anonymous.close(), reader.close(), writer.close()]);
  }
});

test("a wrong token gets 401 and a foreign Origin 403", async () => {
  const wrong = await postRaw(mcpUrl(PORTS.offline), LIST, bearer("kbt_not-a-real-token"));
  expect(wrong.status).toBe(401);
  expect(wrong.json?.error?.message).toBeTruthy();
  const res = await fetch(mcpUrl(PORTS.offline), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", Authorization: "Bearer kbt_x" },
    body: LIST,
  });
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="mcp", error="invalid_token"/);
  const foreign = await postRaw(mcpUrl(PORTS.offline), LIST, { Origin: "http://evil.example" });
  expect(foreign.status).toBe(403);
  expect(foreign.json?.error?.code).toBe(-32000);
  expect((await api(OPEN, "POST", "/api/kbs", { name: "evil" }, { Origin: "http://evil.example" })).status).toBe(403);
});

test("deleting a knowledge base removes its documents and its tool", async () => {
  const res = await api(OPEN, "DELETE", `/api/kbs/${RENAMED}`);
  expect(res.status).toBe(200);
  expect(res.json.documents).toBe(1);
  const client = await connectMcp(mcpUrl(PORTS.offline));
  try {
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(toolOf(RENAMED));
    const r = await search(client, { query: `${CODEWORD} water butts` });
    expect(r.results.some((x) => x.text.includes(CODEWORD))).toBe(false);
  } finally {
    await client.close();
  }
});

test.describe("with REQUIRE_TOKEN on", () => {
  const admin = bearer(SECURE.adminToken);

  test("MCP without a token is 401 with WWW-Authenticate; management needs the admin token", async () => {
    const res = await postRaw(mcpUrl(PORTS.secure), LIST);
    expect(res.status).toBe(401);
    const raw = await fetch(mcpUrl(PORTS.secure), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: LIST,
    });
    expect(raw.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="mcp", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/api\/mcp", scope="kb:read kb:write"$/,
    );
    expect((await api(SECURED, "GET", "/api/tokens")).status).toBe(401);
    expect((await api(SECURED, "POST", "/api/kbs", { name: "nope" })).status).toBe(401);
    expect((await api(SECURED, "GET", "/api/tokens", undefined, admin)).status).toBe(200);

    const client = await connectMcp(mcpUrl(PORTS.secure), bearer(await createToken(SECURED, { name: "ok", scope: "read" }, admin)));
    try {
      const r = await search(client, { query: "How many days of annual leave do employees get?" });
      expect(r.results[0].text).toContain("20 days");
    } finally {
      await client.close();
    }
  });

  test("the rate limit answers 429 with Retry-After", async () => {
    const secret = await createToken(SECURED, { name: "burst", scope: "read" }, admin);
    const statuses: number[] = [];
    // Until the first 429 (bounded): a busy machine's slow requests may let the budget refill by one or two.
    while (statuses.length < SECURE.rateLimit * 2 && statuses.at(-1) !== 429) {
      statuses.push((await postRaw(mcpUrl(PORTS.secure), LIST, bearer(secret))).status);
    }
    expect(statuses.slice(0, SECURE.rateLimit).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    const res = await fetch(mcpUrl(PORTS.secure), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(secret) },
      body: LIST,
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  test("the AI SDK's MCP client lists and calls the tools with a token", async () => {
    const secret = await createToken(SECURED, { name: "ai-sdk", scope: "read" }, admin);
    const client = await createMCPClient({ transport: { type: "http", url: mcpUrl(PORTS.secure), headers: bearer(secret) } });
    try {
      const tools = await client.tools();
      expect(Object.keys(tools)).toEqual(expect.arrayContaining(["search_knowledge", "search_default", "read_document"]));
      const out = (await tools.search_default.execute!({ query: "How many days of annual leave do employees get?", top_k: 3 })) as {
        content: { type: string; text: string }[];
      };
      expect(out.content.map((c) => c.text).join("\n")).toContain("20 days");
    } finally {
      await client.close();
    }
  });

  test("the MCP Inspector CLI lists and calls the tools with a token", async () => {
    test.setTimeout(120_000);
    const secret = await createToken(SECURED, { name: "inspector", scope: "read" }, admin);
    const run = promisify(execFile);
    const common = [mcpUrl(PORTS.secure), "--transport", "http", "--header", `Authorization: Bearer ${secret}`];
    const bin = "node_modules/.bin/mcp-inspector";
    const list = await run(bin, ["--cli", ...common, "--method", "tools/list"], { timeout: 60_000 });
    const tools = (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["search_knowledge", "search_default"]));
    const call = await run(
      bin,
      [
        "--cli",
        ...common,
        "--method",
        "tools/call",
        "--tool-name",
        "search_default",
        "--tool-arg",
        "query=How many days of annual leave do employees get?",
      ],
      { timeout: 60_000 },
    );
    expect(call.stdout).toContain("20 days");
  });
});
