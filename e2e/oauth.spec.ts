/**
 * OAuth for the MCP endpoints on the real, built server (server.mjs), with a real browser on the consent
 * page: an MCP client registers (DCR), the browser opens the authorization URL, signs in with the admin
 * secret, allows knowledge base `hr` read-only, and the token then lists only hr's read tools. The
 * "Connected apps" list on /kbs shows the grant and revokes it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { connectMcp, postRaw, resultText } from "./helpers/mcp";
import { type OwnServer, startOwnServer } from "./helpers/own-server";
import { expect, PORTS, test } from "./helpers/servers";

const ADMIN = "oauth-e2e-admin";
const PORT = PORTS.offline + 60;
const REDIRECT = `http://127.0.0.1:${PORTS.offline + 61}/callback`;
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
let server: OwnServer;
let dataDir: string;
const listeners: Server[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dataDir = mkdtempSync(path.join(os.tmpdir(), "oauth-e2e-"));
  server = await startOwnServer(PORT, {
    DATA_DIR: dataDir,
    KNOWLEDGE_DIR: "knowledge",
    ADMIN_TOKEN: ADMIN,
    REQUIRE_TOKEN: "1",
    PUBLIC_URL: `http://127.0.0.1:${PORT}`,
  });
  const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
  expect(
    (await fetch(`${server.base}/api/kbs`, { method: "POST", headers: admin, body: JSON.stringify({ name: "hr", title: "HR" }) })).status,
  ).toBe(201);
  const token = await fetch(`${server.base}/api/tokens`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ name: "setup", scope: "read-write" }),
  }).then((r) => r.json() as Promise<{ secret: string }>);
  const setup = await connectMcp(`${server.base}/api/mcp`, { Authorization: `Bearer ${token.secret}` });
  const added = await setup.callTool({
    name: "add_document",
    arguments: { kb: "hr", title: "Travel policy", content: "# Travel\n\nThe per diem for overnight travel is 80 euros per day." },
  });
  expect(added.isError).toBeFalsy();
  await setup.close();
});

test.afterAll(async () => {
  for (const l of listeners) await new Promise((resolve) => l.close(resolve));
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("a browser signs in on the consent page and allows kb hr read-only", async ({ page }) => {
  const mcpUrl = `${server.base}/api/mcp`;
  const first = await fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: LIST,
  });
  expect(first.status).toBe(401);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(first);
  const prm = await discoverOAuthProtectedResourceMetadata(mcpUrl, { resourceMetadataUrl });
  const metadata = await discoverAuthorizationServerMetadata(prm.authorization_servers?.[0] ?? "");
  if (!metadata) throw new Error("no authorization server metadata");
  const client = await registerClient(server.base, {
    metadata,
    clientMetadata: { client_name: "E2E Connector", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" },
  });
  const { authorizationUrl, codeVerifier } = await startAuthorization(server.base, {
    metadata,
    clientInformation: client,
    redirectUrl: REDIRECT,
    scope: "kb:read kb:write",
    state: "e2e-state",
    resource: new URL(prm.resource),
  });

  // The client's redirect listener, as a real connector runs it on loopback: it records where the browser came back.
  let callback: URL | null = null;
  const listener = createServer((req, res) => {
    callback = new URL(req.url ?? "/", REDIRECT);
    res.end("done");
  });
  await new Promise<void>((resolve) => listener.listen(PORTS.offline + 61, "127.0.0.1", resolve));
  listeners.push(listener);
  await page.goto(authorizationUrl.href);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Allow access");
  await expect(page.getByText("E2E Connector")).toBeVisible();
  await expect(page.getByTestId("consent-redirect-uri")).toContainText(REDIRECT);

  // A wrong secret: back on the page with the reason, nothing granted.
  await page.getByTestId("consent-secret").fill("wrong");
  await page.getByTestId("consent-kb-hr").check();
  await page.getByTestId("consent-allow").click();
  // Next's route announcer is an alert too once the page is hydrated: the one with the reason.
  await expect(page.getByRole("alert").filter({ hasText: "not the admin secret" })).toBeVisible();
  expect(callback).toBeNull();

  await page.getByTestId("consent-secret").fill(ADMIN);
  await page.getByTestId("consent-kb-hr").check();
  await page.getByTestId("consent-read").check();
  await page.getByTestId("consent-allow").click();
  await expect.poll(() => callback?.href ?? "").toContain("code=");
  const back = callback as unknown as URL;
  expect(back.searchParams.get("state")).toBe("e2e-state");
  expect(back.searchParams.get("iss")).toBe(server.base);

  const tokens = await exchangeAuthorization(server.base, {
    metadata,
    clientInformation: client,
    authorizationCode: back.searchParams.get("code") ?? "",
    codeVerifier,
    redirectUri: REDIRECT,
    resource: new URL(prm.resource),
  });
  expect(tokens.scope).toBe("kb:read");
  const mcp = await connectMcp(mcpUrl, { Authorization: `Bearer ${tokens.access_token}` });
  const names = (await mcp.listTools()).tools.map((t) => t.name);
  expect(names).toContain("search_hr");
  expect(names).not.toContain("search_default");
  expect(names).not.toContain("add_document");
  expect(resultText(await mcp.callTool({ name: "search_knowledge", arguments: { query: "per diem overnight" } }))).toContain("80 euros");
  await mcp.close();

  // Connected apps on /kbs (with the admin token in this browser): listed, then revoked.
  // The admin secret, exchanged for a session cookie of this browser (it never keeps the secret). Signed out,
  // /kbs sends the browser to sign in, so the session is made there and /kbs opened after it.
  await page.goto(`${server.base}/signin`);
  const signedIn = await page.evaluate(async (secret) => {
    const headers = { "content-type": "application/json" };
    return (await fetch("/api/session", { method: "POST", headers, body: JSON.stringify({ secret }) })).status;
  }, ADMIN);
  expect(signedIn).toBe(200);
  await page.goto(`${server.base}/kbs`);
  const row = page.getByTestId("app-row").filter({ hasText: "E2E Connector" });
  await expect(row).toContainText("hr");
  await row.getByTestId("app-revoke").click();
  await row.getByTestId("app-revoke-confirm").click();
  await expect(row).toContainText(/revoked/);
  expect((await postRaw(mcpUrl, LIST, { Authorization: `Bearer ${tokens.access_token}` })).status).toBe(401);
});
