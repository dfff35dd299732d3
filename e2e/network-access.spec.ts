/**
 * Secure by default, whatever starts the server: `npm start` bound to all interfaces inside a network
 * namespace this spec creates (veth pair 10.213.9.1/30 ↔ 10.213.9.2/30; all traffic stays in the two
 * namespaces, which are deleted afterwards). From the client namespace every management, document, chat and
 * MCP route answers 401 without credentials and works with the first-run admin secret / an access token;
 * from loopback the local flow needs no login. Behind real same-host reverse proxies of both usual styles
 * (e2e/fixtures/xff-proxy.mjs: one appends X-Forwarded-For, one sets X-Real-IP; both pass the client's other
 * headers through, as nginx does) a forwarded request is never local, trusted proxy or not: spoofed
 * Forwarded / X-Forwarded-For / X-Real-IP headers get 401 on every admin route, and the failed-authentication
 * limit counts the real client, not an address it named.
 *
 * Needs root (`ip netns`): where no namespace can be made the spec fails; it never sends traffic to this
 * host's own network address.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type CurlOptions, type CurlReply, curlIn, makeNetnsPair, type NetnsPair, startChild, type Where } from "./helpers/netns";
import { expect, test, WORKER_DATA_DIR } from "./helpers/servers";

const DATA = path.resolve(WORKER_DATA_DIR, `netns-${Date.now().toString(36)}`);
const ADMIN_TOKEN = "netns-admin-token-for-the-trusted-app";

const ports = { app: 3000, trusted: 3001, realIp: 3002, proxy: 8080, trustedProxy: 8081, realIpProxy: 8082 };
/** The failed-authentication budget of the apps behind trusted proxies. */
const FAILURES = 5;
const children: ChildProcess[] = [];
let appOutput = "";
let net: NetnsPair;
/** Prefix for running a command where the server (srv) or the remote client (cli) lives. */
const inNs = (where: Where) => net.inNs(where);

const start = (cmd: string[], env: Record<string, string>, onOutput?: (s: string) => void) => startChild(children, cmd, env, { onOutput });

/** One HTTP request with curl, run in the server's or the client's namespace. */
const request = (where: Where, method: string, url: string, opts: CurlOptions = {}) => curlIn(net, where, method, url, opts);

const local = (port: number) => `http://127.0.0.1:${port}`;
const remote = (port: number) => `http://${net.addr.srv}:${port}`;
const bearer = (s: string) => ({ authorization: `Bearer ${s}` });
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };

async function waitHealthy(port: number) {
  for (let i = 0; i < 240; i++) {
    if (request("srv", "GET", `${local(port)}/api/health`).status === 200) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`app on ${port} did not become healthy:\n${appOutput}`);
}

/**
 * The admin secret the app printed at its first start. Read from its output as it arrives: the requests above are
 * synchronous (curl), so output printed just before the app answered may not have been read yet.
 */
async function printedAdminSecret(): Promise<string> {
  const secret = () => /\[auth\]\s+(kba_[A-Za-z0-9_-]+)/.exec(appOutput)?.[1];
  for (let i = 0; i < 300 && !secret(); i++) await new Promise((r) => setTimeout(r, 100));
  return secret() ?? "";
}

test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

let adminSecret = "";
let docId = "";
let docFile = "";
let tmp = "";

test.beforeAll(async () => {
  test.setTimeout(400_000);
  net = makeNetnsPair("kb9", 9);
  tmp = mkdtempSync(path.join(os.tmpdir(), "netns-doc-"));
  docFile = path.join(tmp, "remote.md");
  writeFileSync(docFile, "# Remote upload\n\nThe netns test uploaded this file with a token.\n");
  // A high failed-authentication budget: the 401 sweep below must not lock the client out of the next test.
  const common = { BIND_HOST: "0.0.0.0", KNOWLEDGE_DIR: "knowledge", AUTH_FAILURE_LIMIT: "1000" };
  start(
    [...inNs("srv"), "npm", "start"],
    { ...common, PORT: String(ports.app), DATA_DIR: path.join(DATA, "app") },
    (s) => (appOutput += s),
  );
  const behindProxy = { ...common, TRUSTED_PROXIES: "127.0.0.1, ::1", ADMIN_TOKEN, AUTH_FAILURE_LIMIT: String(FAILURES) };
  start([...inNs("srv"), "npm", "start"], { ...behindProxy, PORT: String(ports.trusted), DATA_DIR: path.join(DATA, "trusted") });
  start([...inNs("srv"), "npm", "start"], {
    ...behindProxy,
    PORT: String(ports.realIp),
    DATA_DIR: path.join(DATA, "real-ip"),
    TRUSTED_PROXY_HEADER: "X-Real-IP",
  });
  const proxy = (listen: number, target: number, style: string) =>
    start([...inNs("srv"), process.execPath, "e2e/fixtures/xff-proxy.mjs", String(listen), String(target), style], {});
  proxy(ports.proxy, ports.app, "append-xff");
  proxy(ports.trustedProxy, ports.trusted, "append-xff");
  proxy(ports.realIpProxy, ports.realIp, "real-ip");
  await waitHealthy(ports.app);
  await waitHealthy(ports.trusted);
  await waitHealthy(ports.realIp);
  adminSecret = await printedAdminSecret();
  // A document to address by id, uploaded from loopback without any login.
  const up = request("srv", "POST", `${local(ports.app)}/api/documents`, { file: docFile });
  expect(up.status, up.body).toBe(200);
  docId = up.json().results[0].documentId;
});

test.afterAll(() => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  }
  net?.teardown();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Every route of the web API and MCP, as [method, path, body]. */
const routes = (id: string): [string, string, unknown?][] => [
  ["GET", "/api/kbs"],
  ["POST", "/api/kbs", { name: "from-remote" }],
  ["GET", "/api/kbs/default"],
  ["PATCH", "/api/kbs/default", { title: "Renamed" }],
  ["DELETE", "/api/kbs/from-remote"],
  ["GET", "/api/tokens"],
  ["POST", "/api/tokens", { name: "remote", scope: "read-write" }],
  ["DELETE", "/api/tokens/tok_0123456789abcdef"],
  ["GET", "/api/documents"],
  ["POST", "/api/documents"],
  ["GET", `/api/documents/${id}`],
  ["DELETE", `/api/documents/${id}`],
  ["POST", `/api/documents/${id}/reindex`],
  ["POST", "/api/chat", { messages: [{ role: "user", parts: [{ type: "text", text: "annual leave?" }] }] }],
  ["GET", "/api/chat/examples"],
  ["POST", "/api/mcp", LIST],
  ["POST", "/api/mcp/default", LIST],
];

test("the first start printed an admin secret once", () => {
  expect(adminSecret).toMatch(/^kba_/);
  expect(appOutput.split(adminSecret).length - 1).toBe(1);
});

test("from another machine every route answers 401 without credentials, and with a wrong secret", () => {
  for (const [method, p, json] of routes(docId)) {
    const opts = p === "/api/documents" && method === "POST" ? { file: docFile } : { json };
    const anonymous = request("cli", method, `${remote(ports.app)}${p}`, opts);
    expect([401, 403], `${method} ${p}: ${anonymous.body}`).toContain(anonymous.status);
    const wrong = request("cli", method, `${remote(ports.app)}${p}`, { ...opts, headers: bearer("kba_wrong") });
    expect([401, 403, 429], `${method} ${p} (wrong secret)`).toContain(wrong.status);
  }
  // The document is still there.
  expect(request("srv", "GET", `${local(ports.app)}/api/documents/${docId}`).status).toBe(200);
});

test("from another machine every route works with the admin secret, and MCP with an access token", () => {
  const admin = bearer(adminSecret);
  const at = (p: string) => `${remote(ports.app)}${p}`;
  const ok = (r: CurlReply, what: string) => expect(r.status, `${what}: ${r.body}`).toBeLessThan(300);
  ok(request("cli", "GET", at("/api/kbs"), { headers: admin }), "GET /api/kbs");
  ok(request("cli", "POST", at("/api/kbs"), { headers: admin, json: { name: "from-remote" } }), "POST /api/kbs");
  ok(request("cli", "GET", at("/api/kbs/default"), { headers: admin }), "GET /api/kbs/default");
  ok(request("cli", "PATCH", at("/api/kbs/from-remote"), { headers: admin, json: { title: "Remote" } }), "PATCH /api/kbs/x");
  const created = request("cli", "POST", at("/api/tokens"), { headers: admin, json: { name: "remote", scope: "read-write" } });
  ok(created, "POST /api/tokens");
  const { token, secret } = created.json();
  ok(request("cli", "GET", at("/api/tokens"), { headers: admin }), "GET /api/tokens");
  const up = request("cli", "POST", at("/api/documents"), { headers: admin, file: docFile, fields: { kb: "from-remote" } });
  ok(up, "POST /api/documents");
  const id = up.json().results[0].documentId;
  ok(request("cli", "GET", at("/api/documents"), { headers: admin }), "GET /api/documents");
  ok(request("cli", "GET", at(`/api/documents/${id}`), { headers: admin }), "GET /api/documents/id");
  ok(request("cli", "POST", at(`/api/documents/${id}/reindex`), { headers: admin }), "POST reindex");
  const chat = request("cli", "POST", at("/api/chat"), {
    headers: admin,
    json: { messages: [{ role: "user", parts: [{ type: "text", text: "What did the netns test upload?" }] }] },
  });
  ok(chat, "POST /api/chat");
  ok(request("cli", "GET", at("/api/chat/examples"), { headers: admin }), "GET /api/chat/examples");
  for (const p of ["/api/mcp", "/api/mcp/from-remote"]) {
    const mcp = request("cli", "POST", at(p), { headers: bearer(secret), json: LIST });
    ok(mcp, `POST ${p}`);
    expect(mcp.json().result.tools.map((t: { name: string }) => t.name)).toContain("search_knowledge");
  }
  ok(request("cli", "DELETE", at(`/api/documents/${id}`), { headers: admin }), "DELETE /api/documents/id");
  ok(request("cli", "DELETE", at(`/api/tokens/${token.id}`), { headers: admin }), "DELETE /api/tokens/id");
  ok(request("cli", "DELETE", at("/api/kbs/from-remote"), { headers: admin }), "DELETE /api/kbs/x");
  // A revoked token no longer opens MCP.
  expect(request("cli", "POST", at("/api/mcp"), { headers: bearer(secret), json: LIST }).status).toBe(401);
});

test("from loopback the local flow needs no login", () => {
  const at = (p: string) => `${local(ports.app)}${p}`;
  expect(request("srv", "GET", at("/")).status).toBe(200);
  expect(request("srv", "GET", at("/api/kbs")).status).toBe(200);
  expect(request("srv", "POST", at("/api/kbs"), { json: { name: "local-kb" } }).status).toBe(201);
  expect(request("srv", "GET", at("/api/tokens")).status).toBe(200);
  expect(request("srv", "POST", at("/api/mcp"), { json: LIST }).status).toBe(200);
  const chat = request("srv", "POST", at("/api/chat"), {
    json: { messages: [{ role: "user", parts: [{ type: "text", text: "annual leave?" }] }] },
  });
  expect(chat.status, chat.body).toBe(200);
  // A spoofed peer header from the client changes nothing: the server entry overwrites it.
  const spoof = request("cli", "GET", `${remote(ports.app)}/api/kbs`, {
    headers: { "x-kb-peer": "anything.eyJhIjoiMTI3LjAuMC4xIiwicCI6ZmFsc2V9", host: "127.0.0.1" },
  });
  expect(spoof.status).toBe(401);
});

test("behind a same-host reverse proxy a request is remote unless TRUSTED_PROXIES names the proxy", () => {
  // Untrusted proxy: even a request that started on loopback is remote once proxied.
  expect(request("srv", "GET", `${local(ports.proxy)}/api/kbs`).status).toBe(401);
  expect(request("srv", "POST", `${local(ports.proxy)}/api/mcp`, { json: LIST }).status).toBe(401);
  expect(request("cli", "GET", `${remote(ports.proxy)}/api/kbs`).status).toBe(401);
  expect(request("cli", "GET", `${remote(ports.proxy)}/api/kbs`, { headers: bearer(adminSecret) }).status).toBe(200);
  // A client that sends its own X-Forwarded-For to the app directly is not believed either.
  expect(request("cli", "GET", `${remote(ports.app)}/api/kbs`, { headers: { "x-forwarded-for": "127.0.0.1" } }).status).toBe(401);
  // Trusted proxy: a forwarded request is remote, even one that started on loopback.
  expect(request("srv", "GET", `${local(ports.trustedProxy)}/api/kbs`).status).toBe(401);
  expect(request("cli", "GET", `${remote(ports.trustedProxy)}/api/kbs`).status).toBe(401);
  expect(request("cli", "GET", `${remote(ports.trustedProxy)}/api/kbs`, { headers: { "x-forwarded-for": "127.0.0.1" } }).status).toBe(401);
  expect(request("cli", "GET", `${remote(ports.trustedProxy)}/api/kbs`, { headers: bearer(ADMIN_TOKEN) }).status).toBe(200);
});

/** The admin routes a spoofed "I am loopback" would open, as [method, path, body]. */
const ADMIN_ROUTES: [string, string, unknown?][] = [
  ["GET", "/api/tokens"],
  ["POST", "/api/tokens", { name: "spoof", scope: "read-write" }],
  ["GET", "/api/users"],
  ["POST", "/api/users", { email: "spoof@example.com", role: "admin" }],
  ["POST", "/api/invites", { role: "admin" }],
  ["GET", "/api/audit"],
  ["GET", "/api/metrics"],
  ["GET", "/api/kbs"],
  ["POST", "/api/kbs", { name: "spoofed" }],
  ["PATCH", "/api/kbs/default", { title: "Spoofed" }],
  ["DELETE", "/api/documents/0123456789abcdef"],
  ["POST", "/api/mcp", LIST],
];

/** What a client sends to pass for this machine: every forwarding header naming loopback, and a loopback Host. */
const SPOOFS: Record<string, string>[] = [
  { forwarded: "for=127.0.0.1" },
  { forwarded: 'for="[::1]"' },
  { "x-forwarded-for": "127.0.0.1" },
  { "x-real-ip": "127.0.0.1" },
  { forwarded: "for=127.0.0.1", "x-forwarded-for": "127.0.0.1", "x-real-ip": "::1", host: "127.0.0.1" },
];

/** The two proxies in front of apps that trust them, by style. */
const STYLES = [
  { style: "appends X-Forwarded-For", port: () => ports.trustedProxy },
  { style: "sets X-Real-IP", port: () => ports.realIpProxy },
];

for (const { style, port } of STYLES) {
  test(`behind a trusted proxy that ${style}, spoofed forwarding headers get 401 on every admin route`, () => {
    for (const headers of SPOOFS) {
      for (const [method, p, json] of ADMIN_ROUTES) {
        const r = request("cli", method, `${remote(port())}${p}`, { headers, json });
        expect(r.status, `${method} ${p} with ${JSON.stringify(headers)}: ${r.body}`).toBe(401);
      }
    }
    // Even a request that started on loopback is remote once forwarded, and the admin secret still works.
    expect(request("srv", "GET", `${local(port())}/api/tokens`).status).toBe(401);
    expect(request("srv", "GET", `${local(port())}/api/tokens`, { headers: bearer(ADMIN_TOKEN) }).status).toBe(200);
    expect(request("cli", "GET", `${remote(port())}/api/tokens`, { headers: { ...SPOOFS[4], ...bearer(ADMIN_TOKEN) } }).status).toBe(200);
  });
}

for (const { style, port } of STYLES) {
  test(`behind a trusted proxy that ${style}, the failed-authentication limit counts the real client`, () => {
    // Wrong secrets from the client namespace, each naming another address: one budget, the client's.
    const statuses: number[] = [];
    // Until the first 429 (bounded): a busy machine's slow requests may let the budget refill by one.
    for (let i = 0; i <= FAILURES * 3 && statuses.at(-1) !== 429; i++) {
      const named = i % 2 ? "127.0.0.1" : `10.9.9.${i}`;
      const spoof = { forwarded: `for=${named}`, "x-forwarded-for": named, "x-real-ip": named };
      statuses.push(request("cli", "GET", `${remote(port())}/api/tokens`, { headers: { ...spoof, ...bearer(`kba_wrong${i}`) } }).status);
    }
    expect(statuses.slice(0, FAILURES)).toEqual(Array(FAILURES).fill(401));
    expect(statuses.at(-1)).toBe(429);
    // The client is locked out whatever address it names; only the right secret, too long to guess, still gets in…
    expect(
      request("cli", "GET", `${remote(port())}/api/tokens`, { headers: { "x-real-ip": "10.1.1.1", ...bearer("kba_wrong-again") } }).status,
    ).toBe(429);
    expect(
      request("cli", "GET", `${remote(port())}/api/tokens`, { headers: { "x-real-ip": "10.1.1.1", ...bearer(ADMIN_TOKEN) } }).status,
    ).toBe(200);
    // …but the loopback address it named is not: a client on loopback through the same proxy gets in.
    expect(request("srv", "GET", `${local(port())}/api/tokens`, { headers: bearer(ADMIN_TOKEN) }).status).toBe(200);
  });
}
