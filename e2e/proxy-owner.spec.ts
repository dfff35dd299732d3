/**
 * Behind a reverse proxy nobody is local. The app runs with its defaults (`npm start`: loopback, no settings)
 * inside a network namespace this spec creates, behind Debian's nginx on the same host with only
 * `location / { proxy_pass http://127.0.0.1:PORT; }` — no proxy_set_header, so every request reaches the app
 * from 127.0.0.1 with a loopback Host, exactly as a local browser's would. A client in a second namespace gets
 * 401/403 on every admin route; so does a bare loopback request. The owner signs in with the link the server
 * printed at start, which gives an HttpOnly owner session and goes on to the clean URL, once; `npm run
 * owner-link` makes a new one. Wrong credentials sent through the proxy (all from 127.0.0.1 to the app) lock
 * out neither the owner link nor the admin secret on the machine.
 *
 * Needs root (`ip netns`) and /usr/sbin/nginx (nginx-light): without them the spec fails, never skips. All
 * traffic stays inside the two namespaces.
 */
import { type ChildProcess, spawnSync } from "node:child_process";
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
    { LOCAL_OWNER: "", PORT: String(ports.app), DATA_DIR: path.join(DATA, "app"), KNOWLEDGE_DIR: "knowledge", AUTH_FAILURE_LIMIT: "5" },
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

/** The link the server printed at start. */
const startupLink = () => /(http:\/\/127\.0\.0\.1:\d+\/api\/session\/owner\?token=[\w-]+)/.exec(appOutput)?.[1];

/** A new owner link from `npm run owner-link`, run on this machine with the server's settings. */
function requestedLink(): string {
  const run = spawnSync("npm", ["run", "--silent", "owner-link"], {
    env: { ...process.env, DATA_DIR: path.join(DATA, "app"), PORT: String(ports.app) },
    encoding: "utf8",
    timeout: 120_000,
  });
  const link = /(http:\/\/127\.0\.0\.1:\d+\/api\/session\/owner\?token=[\w-]+)/.exec(run.stdout)?.[1];
  expect(link, `${run.stdout}\n${run.stderr}`).toBeTruthy();
  return link!;
}

test("the owner link printed at start gives an HttpOnly owner session and goes on to the clean URL", () => {
  const link = startupLink();
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

test("the owner link works once; `npm run owner-link` makes a new one, which works once too", () => {
  // The start-up link was used by the test above.
  const used = request("srv", "GET", startupLink()!);
  expect(used.status, used.body).toBe(401);
  expect(used.body).toContain("npm run owner-link");

  const link = requestedLink();
  const headerFile = path.join(tmp, "requested-link-headers");
  const opened = request("srv", "GET", link, { headerFile });
  expect(opened.status, opened.body).toBe(303);
  const cookie = /^set-cookie: (kb_session=[^;]+)/im.exec(opened.headers)?.[1];
  expect(request("srv", "GET", `${local}/api/users`, { headers: { cookie: cookie! } }).status).toBe(200);
  expect(request("srv", "GET", link).status).toBe(401);
  // A newer request replaces an unused one.
  const first = requestedLink();
  const second = requestedLink();
  expect(request("srv", "GET", first).status).toBe(401);
  expect(request("srv", "GET", second).status).toBe(303);
});

test("wrong credentials through the proxy lock out neither the owner link nor the admin secret on this machine", () => {
  const secret = /\[auth\]\s+(kba_[\w-]+)/.exec(appOutput)?.[1];
  expect(secret, appOutput).toBeTruthy();
  const link = requestedLink();
  // From elsewhere through nginx every request reaches the app from 127.0.0.1: wrong bearer tokens on the web
  // API and MCP, wrong owner links. Past AUTH_FAILURE_LIMIT (5) they are refused with 429.
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) {
    statuses.push(request("cli", "GET", `${viaProxy()}/api/users`, { headers: { authorization: `Bearer wrong-${i}` } }).status);
    statuses.push(
      request("cli", "POST", `${viaProxy()}/api/mcp`, { json: LIST, headers: { authorization: `Bearer kbt_wrong${i}` } }).status,
    );
    statuses.push(request("cli", "GET", `${viaProxy()}/api/session/owner?token=guess-${i}`).status);
  }
  expect(statuses.slice(-3)).toEqual([429, 429, 429]);
  // The owner on the machine: the admin secret and the owner link still work.
  expect(request("srv", "GET", `${local}/api/users`, { headers: { authorization: `Bearer ${secret}` } }).status).toBe(200);
  const opened = request("srv", "GET", link);
  expect(opened.status, opened.body).toBe(303);
  // …and a wrong admin secret from the machine is still one more wrong guess.
  expect(request("srv", "GET", `${local}/api/users`, { headers: { authorization: "Bearer wrong-again" } }).status).toBe(429);
});
