/**
 * A remote MCP host signs in with OAuth, as claude.ai or ChatGPT would: the app runs in a network namespace
 * this spec makes, the MCP SDK's own OAuth client (e2e/fixtures/oauth-client.mjs) runs in another one (a remote
 * address), and a real browser (Debian Chromium, started inside the server's namespace) does the consent.
 * No token → 401 with resource_metadata → discovery → client registration (by a client ID metadata document
 * served over HTTPS on loopback, allowed by the test flag; or by dynamic registration) → the browser signs in
 * with the admin secret and allows knowledge base `hr`, read-only → token → tools/list shows only hr's read
 * tools → a search returns hr's passage → a write tool is refused → refresh works → "Connected apps" on /kbs
 * revokes the grant → 401.
 */
import { type ChildProcess, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Browser } from "@playwright/test";
import { launchChromiumIn, makeNetnsPair, type NetnsPair, startChild, stopAll } from "./helpers/netns";
import { expect, test, WORKER_DATA_DIR } from "./helpers/servers";

const DATA = path.resolve(WORKER_DATA_DIR, `oauth-remote-${Date.now().toString(36)}`);
const ADMIN = "oauth-remote-admin-secret";
const APP_PORT = 3000; // inside the server's namespace
const CIMD_PORT = 8443;
const REDIRECT = "http://127.0.0.1:3999/callback"; // never loaded: the browser hands the code to the client
const CIMD_URL = `https://127.0.0.1:${CIMD_PORT}/oauth/client.json`;

let net: NetnsPair;
let browser: Browser;
const children: ChildProcess[] = [];
let appOutput = "";
const app = () => `http://${net.addr.srv}:${APP_PORT}`;

/** The app's output goes to appOutput; the host's stdout is its JSON lines (see host). */
const start = (cmd: string[], env: Record<string, string> = {}, interactive = false) =>
  startChild(children, cmd, env, { onOutput: (s) => (appOutput += s), interactive });

/** curl inside the server's namespace, on its loopback, as the admin (with PUBLIC_URL set, loopback is nobody's). */
function local(method: string, pathname: string, extra: string[] = []) {
  const r = spawnSync(
    "ip",
    [
      "netns",
      "exec",
      net.ns.srv,
      "curl",
      "-sS",
      "-m",
      "60",
      "-X",
      method,
      "-H",
      `authorization: Bearer ${ADMIN}`,
      ...extra,
      "-w",
      "\n%{http_code}",
      `http://127.0.0.1:${APP_PORT}${pathname}`,
    ],
    { encoding: "utf8" },
  );
  const out = r.stdout ?? "";
  return { status: Number(out.slice(out.lastIndexOf("\n") + 1)), body: out.slice(0, out.lastIndexOf("\n")) };
}

test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

test.beforeAll(async () => {
  test.setTimeout(400_000);
  net = makeNetnsPair("kbo", 10);
  mkdirSync(DATA, { recursive: true });
  // A certificate for the client metadata document's HTTPS server, trusted by the app through NODE_EXTRA_CA_CERTS.
  const cert = path.join(DATA, "cert.pem");
  const key = path.join(DATA, "key.pem");
  const made = spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
    ],
    { encoding: "utf8" },
  );
  expect(made.status, made.stderr).toBe(0);
  const doc = path.join(DATA, "client.json");
  writeFileSync(
    doc,
    JSON.stringify({
      client_id: CIMD_URL,
      client_name: "E2E Remote Host (metadata document)",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  );
  start([...net.inNs("srv"), process.execPath, "e2e/fixtures/client-metadata-server.mjs", String(CIMD_PORT), cert, key, doc]);
  start([...net.inNs("srv"), process.execPath, "server.mjs", "-p", String(APP_PORT), "-H", "0.0.0.0"], {
    DATA_DIR: path.join(DATA, "app"),
    KNOWLEDGE_DIR: "knowledge",
    ADMIN_TOKEN: ADMIN,
    PUBLIC_URL: `http://${net.addr.srv}:${APP_PORT}`,
    OAUTH_ALLOW_PRIVATE_CLIENT_URLS: "1",
    NODE_EXTRA_CA_CERTS: cert,
  });
  for (let i = 0; ; i++) {
    if (local("GET", "/api/health").status === 200) break;
    if (i > 240) throw new Error(`the app did not become healthy:\n${appOutput}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const json = ["-H", "content-type: application/json", "--data-binary"];
  expect(local("POST", "/api/kbs", [...json, '{"name":"hr","title":"Human Resources"}']).status).toBe(201);
  expect(local("POST", "/api/kbs", [...json, '{"name":"finance","title":"Finance"}']).status).toBe(201);
  const travel = path.join(DATA, "travel.md");
  writeFileSync(travel, "# Travel policy\n\n## Per diem\n\nThe per diem for overnight travel is 80 euros per day.\n");
  expect(local("POST", "/api/documents", ["-F", `files=@${travel}`, "-F", "kb=hr"]).status).toBe(200);

  // The browser lives in the server's namespace too (Playwright talks to it over a pipe), so it reaches the app
  // at its address there, as a remote peer.
  browser = await launchChromiumIn(net, "srv", DATA);
});

test.afterAll(async () => {
  await browser?.close();
  stopAll(children, net);
});

/** The host, in the client namespace: its JSON lines in order, and a way to answer it. */
function host(clientMetadataUrl?: string) {
  const child = start(
    [
      ...net.inNs("cli"),
      process.execPath,
      "e2e/fixtures/oauth-client.mjs",
      `${app()}/api/mcp`,
      REDIRECT,
      ...(clientMetadataUrl ? [clientMetadataUrl] : []),
    ],
    {},
    true,
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    async next(): Promise<Record<string, unknown>> {
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer from the host:\n${appOutput}`)), 60_000),
      );
      const line = await Promise.race([lines.next(), timeout]);
      if (line.done) throw new Error(`the host exited:\n${appOutput}`);
      const event = JSON.parse(line.value) as Record<string, unknown>;
      if (event.event === "error") throw new Error(String(event.message));
      return event;
    },
    send(value: unknown) {
      child.stdin!.write(`${JSON.stringify(value)}\n`);
    },
  };
}

for (const variant of ["client ID metadata document", "dynamic client registration"] as const) {
  test(`a remote host connects with OAuth (${variant}), reads only hr, refreshes, and is revoked from Connected apps`, async () => {
    const byDocument = variant === "client ID metadata document";
    const client = host(byDocument ? CIMD_URL : undefined);
    const challenge = await client.next();
    expect(challenge).toMatchObject({ event: "challenge", status: 401 });
    expect(challenge.wwwAuthenticate).toContain(`resource_metadata="${app()}/.well-known/oauth-protected-resource/api/mcp"`);

    const { url } = await client.next();
    const authorize = new URL(String(url));
    expect(authorize.origin).toBe(app());
    if (byDocument) expect(authorize.searchParams.get("client_id")).toBe(CIMD_URL);
    else expect(authorize.searchParams.get("client_id")).not.toBe(CIMD_URL);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("resource")).toBe(`${app()}/api/mcp`);

    const page = await browser.newPage();
    let callback: URL | null = null;
    await page.route(`${REDIRECT}**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: "text/plain", body: "done" });
    });
    await page.goto(authorize.href);
    await expect(page.getByText(byDocument ? "E2E Remote Host (metadata document)" : "E2E Remote Host (registered)").first()).toBeVisible();
    await page.getByTestId("consent-secret").fill(ADMIN);
    await page.getByTestId("consent-kb-hr").check();
    await page.getByTestId("consent-read").check();
    await page.getByTestId("consent-allow").click();
    await expect.poll(() => (callback as URL | null)?.searchParams.get("code") ?? "").not.toBe("");
    const back = callback as unknown as URL;
    expect(back.searchParams.get("state")).toBe("remote-state");
    expect(back.searchParams.get("iss")).toBe(app());
    client.send({ code: back.searchParams.get("code") });

    const granted = await client.next();
    expect(granted.event).toBe("granted");
    const tools = granted.tools as string[];
    expect(tools).toContain("search_hr");
    expect(tools).not.toContain("search_finance");
    expect(tools).not.toContain("search_default");
    for (const write of ["add_document", "delete_document", "add_faq", "delete_faq"]) expect(tools).not.toContain(write);
    expect(granted.search).toContain("80 euros");
    expect(granted.write).toContain("requires a read-write access token");
    expect(granted.refreshedNew).toBe(true);
    expect(granted.afterRefresh).toBe(200);
    if (byDocument) expect(granted.clientId).toBe(CIMD_URL);

    // Connected apps on /kbs, from the same remote browser with the admin secret.
    // The admin secret, exchanged for a session cookie of this browser (it never keeps the secret).
    await page.goto(`${app()}/signin`);
    const signedIn = await page.evaluate(async (secret) => {
      const headers = { "content-type": "application/json" };
      return (await fetch("/api/session", { method: "POST", headers, body: JSON.stringify({ secret }) })).status;
    }, ADMIN);
    expect(signedIn).toBe(200);
    await page.goto(`${app()}/kbs`);
    const row = page.getByTestId("app-row").filter({ hasText: byDocument ? "metadata document" : "registered" });
    await expect(row).toContainText("hr");
    await row.getByTestId("app-revoke").click();
    await row.getByTestId("app-revoke-confirm").click();
    await expect(row).toContainText(/revoked/i);
    client.send({ revoked: true });
    expect(await client.next()).toMatchObject({ event: "after-revoke", status: 401 });
    await page.close();
  });
}
