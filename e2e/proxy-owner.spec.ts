/**
 * Behind a reverse proxy nobody is local. The app runs with its defaults (`npm start`: loopback, no settings)
 * inside a network namespace this spec creates, behind Debian's nginx on the same host with only
 * `location / { proxy_pass http://127.0.0.1:PORT; }` — no proxy_set_header, so every request reaches the app
 * from 127.0.0.1 with a loopback Host, exactly as a local browser's would. A client in a second namespace gets
 * 401/403 on every admin route; so does a bare loopback request. The owner signs in with the link the server
 * printed at start, which gives an HttpOnly owner session and goes on to the clean URL.
 *
 * Needs root (`ip netns`) and /usr/sbin/nginx (nginx-light): without them the spec fails, never skips. All
 * traffic stays inside the two namespaces.
 */
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type CurlOptions, curlIn, makeNetnsPair, type NetnsPair, startChild, stopAll, type Where } from "./helpers/netns";
import { expect, PORT_BASE, test, WORKER_DATA_DIR } from "./helpers/servers";

// Inside the namespaces; derived from the base all the same.
const ports = { app: PORT_BASE + 51, proxy: PORT_BASE + 52 };
const DATA = path.resolve(WORKER_DATA_DIR, `proxy-owner-${Date.now().toString(36)}`);
const children: ChildProcess[] = [];
let net: NetnsPair;
let appOutput = "";
let nginxOutput = "";
/** nginx's prefix folder, and where curl writes reply headers. */
let tmp = "";

const request = (where: Where, method: string, url: string, opts: CurlOptions = {}) => curlIn(net, where, method, url, opts);
const local = `http://127.0.0.1:${ports.app}`;
const viaProxy = () => `http://${net.addr.srv}:${ports.proxy}`;
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };

/** What the repro called admin: each must be refused to anyone without credentials. */
const ADMIN_ROUTES: { method: string; path: string; opts?: CurlOptions }[] = [
  { method: "GET", path: "/api/users" },
  { method: "POST", path: "/api/tokens", opts: { json: { name: "stolen", scope: "read-write" } } },
  { method: "POST", path: "/api/mcp", opts: { json: LIST } },
  { method: "POST", path: "/api/mcp/default", opts: { json: LIST } },
  { method: "POST", path: "/api/invites", opts: { json: { role: "admin" } } },
  { method: "GET", path: "/api/audit" },
  { method: "GET", path: "/api/tokens" },
  { method: "POST", path: "/api/kbs", opts: { json: { name: "taken-over" } } },
  { method: "GET", path: "/api/documents" },
  { method: "POST", path: "/api/chat", opts: { json: { messages: [] } } },
];

function nginxConfig(dir: string): string {
  for (const d of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(path.join(dir, d), { recursive: true });
  // nginx's workers run as nobody when the master is root: everything they touch must be theirs to write.
  chmodSync(dir, 0o755);
  for (const d of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) chmodSync(path.join(dir, d), 0o777);
  const conf = path.join(dir, "nginx.conf");
  writeFileSync(
    conf,
    `worker_processes 1;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen ${ports.proxy};
    location / { proxy_pass http://127.0.0.1:${ports.app}; }
  }
}
`,
  );
  return conf;
}

async function waitFor(where: Where, url: string, what: () => string) {
  for (let i = 0; i < 360; i++) {
    if (request(where, "GET", url).status === 200) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer:\n${what()}`);
}

test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

test.beforeAll(async () => {
  test.setTimeout(400_000);
  net = makeNetnsPair("kbp", 51);
  tmp = mkdtempSync(path.join(os.tmpdir(), "nginx-51-"));
  // The app's defaults: no LOCAL_OWNER (the test runner's environment sets it), no PUBLIC_URL, no proxies.
  startChild(
    children,
    [...net.inNs("srv"), "npm", "start"],
    { LOCAL_OWNER: "", PORT: String(ports.app), DATA_DIR: path.join(DATA, "app"), KNOWLEDGE_DIR: "knowledge", AUTH_FAILURE_LIMIT: "1000" },
    { onOutput: (s) => (appOutput += s) },
  );
  const conf = nginxConfig(tmp);
  startChild(
    children,
    [
      ...net.inNs("srv"),
      "/usr/sbin/nginx",
      "-p",
      `${tmp}/`,
      "-c",
      conf,
      "-g",
      `daemon off; pid ${tmp}/nginx.pid; error_log ${tmp}/error.log;`,
    ],
    {},
    { onOutput: (s) => (nginxOutput += s) },
  );
  await waitFor("srv", `${local}/api/health`, () => appOutput);
  await waitFor("cli", `${viaProxy()}/api/health`, () => nginxOutput);
});

test.afterAll(() => {
  stopAll(children, net);
  // nginx may still write its log as it stops: rmSync retries a folder that filled up meanwhile.
  if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
});

test("through nginx's bare proxy_pass, a remote client gets 401/403 on every admin route", () => {
  for (const r of ADMIN_ROUTES) {
    const reply = request("cli", r.method, `${viaProxy()}${r.path}`, r.opts);
    expect([401, 403], `${r.method} ${r.path} via nginx: ${reply.status} ${reply.body.slice(0, 200)}`).toContain(reply.status);
  }
});

test("a bare loopback request (the same as nginx's) is not the owner either", () => {
  for (const r of ADMIN_ROUTES) {
    const reply = request("srv", r.method, `${local}${r.path}`, r.opts);
    expect([401, 403], `${r.method} ${r.path} from loopback: ${reply.status}`).toContain(reply.status);
  }
});

test("the owner link printed at start gives an HttpOnly owner session and goes on to the clean URL", () => {
  const link = /(http:\/\/127\.0\.0\.1:\d+\/api\/session\/owner\?token=[\w-]+)/.exec(appOutput)?.[1];
  expect(link, appOutput).toBeTruthy();
  const wrong = request("srv", "GET", `${link!.replace(/token=[\w-]+/, "token=guessed")}`);
  expect(wrong.status).toBe(401);

  const headerFile = path.join(tmp, "owner-link-headers");
  // A return path that the URL parser turns into "//evil.example/x" (the tab is dropped) stays on the site.
  const opened = request("srv", "GET", `${link}&next=/%09/evil.example/x`, { headerFile });
  expect(opened.status).toBe(303);
  expect(opened.headers).toMatch(/^location: \/\r?$/im);
  const cookie = /^set-cookie: (kb_session=[^;]+);([^\r\n]*)/im.exec(opened.headers);
  expect(cookie, opened.headers).toBeTruthy();
  expect(cookie![2]).toMatch(/HttpOnly/i);
  expect(cookie![2]).toMatch(/SameSite=Lax/i);

  const users = request("srv", "GET", `${local}/api/users`, { headers: { cookie: cookie![1] } });
  expect(users.status, users.body).toBe(200);
  // The session is a cookie, not an address: the owner is the owner through the proxy too, and no one else is.
  expect(request("cli", "GET", `${viaProxy()}/api/users`, { headers: { cookie: cookie![1] } }).status).toBe(200);
  expect(request("cli", "GET", `${viaProxy()}/api/tokens`).status).toBe(401);
  const tokens = request("srv", "GET", `${local}/api/tokens`, { headers: { cookie: cookie![1] } });
  expect(tokens.status).toBe(200);
  expect(JSON.stringify(tokens.json())).not.toContain("stolen");
});
