/**
 * OAuth 2.1 for the MCP endpoints, end to end over real HTTP with the SDK's own client auth functions, on a
 * real LanceDB store in a temp dir: discovery from the 401, client ID metadata documents and dynamic client
 * registration, the consent form posted as the page would, PKCE, the resource binding, refresh rotation,
 * revocation, and a negative test for each check.
 */
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  refreshAuthorization,
  registerClient,
  auth as sdkAuth,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { serveWeb } from "@/e2e/helpers/web-server";
import { deleteKnowledgeBase, updateKnowledgeBase } from "@/lib/admin/knowledge-bases";
import type { AuthSettings } from "@/lib/auth/config";
import { authenticateOAuthToken } from "@/lib/auth/oauth/access";
import { beginAuthorization, decideConsent } from "@/lib/auth/oauth/authorize";
import { authorizationServerMetadataResponse, protectedResourceMetadataResponse } from "@/lib/auth/oauth/metadata";
import { getOAuthStore } from "@/lib/auth/oauth/store";
import { handleRegister, handleRevoke, handleToken } from "@/lib/auth/oauth/token";
import { testAuthSettings } from "@/lib/auth/test-settings";
import { HR_KB, openTestKbs } from "@/lib/ingest/test-kbs";
import { createKnowledgeBase } from "@/lib/kb";
import type { Registry } from "@/lib/kb/registry";
import { isPrivateAddress } from "@/lib/net/public-address";
import type { Store } from "@/lib/store";
import { restoreEnv } from "@/lib/test-helpers/env";
import { handleMcpRequest } from "@/mcp/http";

const ADMIN = "s3cret-admin";
const REMOTE = "10.213.9.2";
let kbs: Awaited<ReturnType<typeof openTestKbs>>;
let store: Store;
let registry: Registry;
let server: Awaited<ReturnType<typeof serveWeb>>;
let base: string;
const auth: AuthSettings = testAuthSettings({ adminToken: ADMIN, authFailuresPerMinute: 100_000 });
const saved = { PUBLIC_URL: process.env.PUBLIC_URL, FLAG: process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS };
const REDIRECT = "http://127.0.0.1:9/callback";
const OTHER_REDIRECT = "http://127.0.0.1:9/other";

/** The authorization request of a flow's client, as the SDK's client starts it; `over` changes its parameters. */
const startAuth = (flow: Flow, over: Partial<Parameters<typeof startAuthorization>[1]> = {}) =>
  startAuthorization(base, {
    metadata: flow.metadata,
    clientInformation: flow.client,
    redirectUrl: REDIRECT,
    resource: flow.resource,
    ...over,
  });

/** The token request of a flow's client for `code`, as the SDK's client sends it. */
const exchange = (flow: Flow, code: string, codeVerifier: string) =>
  exchangeAuthorization(base, {
    metadata: flow.metadata,
    clientInformation: flow.client,
    authorizationCode: code,
    codeVerifier,
    redirectUri: REDIRECT,
    resource: flow.resource,
  });

const BUDGET = "# Budget rules\n\nInvoices above 5000 euros need the treasurer's approval.\n";
const FINANCE_KB = { name: "finance", title: "Finance", description: "Budgets and invoices", documents: { "budget.md": BUDGET } };

beforeAll(async () => {
  kbs = await openTestKbs("oauth-", [HR_KB, FINANCE_KB]);
  ({ store, registry } = kbs);

  const deps = { getStore: async () => store, auth };
  server = await serveWeb(async (request, url) => {
    const p = url.pathname;
    let response: Response;
    const mcp = /^\/api\/mcp(?:\/([^/]+))?$/.exec(p);
    const prm = /^\/\.well-known\/oauth-protected-resource\/api\/mcp(?:\/([^/]+))?$/.exec(p);
    if (mcp) response = await handleMcpRequest(request, { kb: mcp[1], getStore: async () => store, registry, auth });
    else if (prm) response = protectedResourceMetadataResponse(prm[1]);
    else if (p === "/.well-known/oauth-authorization-server") response = authorizationServerMetadataResponse();
    else if (p === "/oauth/register") response = await handleRegister(request, deps);
    else if (p === "/oauth/token") response = await handleToken(request, deps);
    else if (p === "/oauth/revoke") response = await handleRevoke(request, deps);
    else if (p === "/oauth/consent") response = await decideConsent(request, deps);
    else if (p === "/oauth/authorize") {
      // Stands in for the consent page (app/oauth/authorize/page.tsx), which renders what this returns.
      const result = await beginAuthorization(url.searchParams, deps);
      response =
        result.kind === "redirect" ? new Response(null, { status: 307, headers: { Location: result.location } }) : Response.json(result);
    } else if (p === "/client.json") {
      response = Response.json({
        client_id: `${base}/client.json`,
        client_name: "Metadata Doc Client",
        logo_uri: "http://insecure.example/logo.png",
        redirect_uris: [REDIRECT, OTHER_REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      });
    } else response = new Response("not found", { status: 404 });
    return response;
  });
  base = server.base;
  process.env.PUBLIC_URL = base;
  process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS = "1";
});

afterAll(async () => {
  await server?.close();
  await kbs?.close();
  restoreEnv({ PUBLIC_URL: saved.PUBLIC_URL, OAUTH_ALLOW_PRIVATE_CLIENT_URLS: saved.FLAG });
});

const remote = { "x-test-peer": REMOTE };
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };

function mcpPost(pathname: string, token?: string, peer = REMOTE) {
  return fetch(new URL(pathname, base), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-test-peer": peer,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(LIST),
  });
}

async function connect(pathname: string, token: string) {
  const client = new Client({ name: "oauth-test", version: "0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(pathname, base), {
      requestInit: { headers: { ...remote, authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

function text(r: unknown): string {
  return ((r as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

/** The authorization request as the browser makes it; the consent page's fields (request id, CSRF token). */
async function openConsent(authorizationUrl: URL) {
  const res = await fetch(authorizationUrl, { redirect: "manual", headers: remote });
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    kind: string;
    view: { requestId: string; csrf: string; clientName: string; logoUri: string | null; redirectUri: string };
  };
  expect(body.kind).toBe("consent");
  return body.view;
}

/** Posts the consent form as the page does; returns the status and the Location. */
async function postConsent(fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
  const res = await fetch(`${base}/oauth/consent`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...remote, ...headers },
    body: form,
  });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
}

interface Flow {
  metadata: AuthorizationServerMetadata;
  client: OAuthClientInformationMixed;
  resource: URL;
}

/** Discovery as a client does it: the 401's resource_metadata, the resource metadata, the server metadata. */
async function discover(pathname: string): Promise<{ metadata: AuthorizationServerMetadata; resource: URL }> {
  const res = await mcpPost(pathname);
  expect(res.status).toBe(401);
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
  expect(resourceMetadataUrl?.href).toBe(`${base}/.well-known/oauth-protected-resource${pathname}`);
  expect(scope).toBe("kb:read kb:write");
  const prm = await discoverOAuthProtectedResourceMetadata(new URL(pathname, base), { resourceMetadataUrl });
  expect(prm.resource).toBe(`${base}${pathname}`);
  expect(prm.authorization_servers).toEqual([base]);
  expect(prm.bearer_methods_supported).toEqual(["header"]);
  const metadata = await discoverAuthorizationServerMetadata(prm.authorization_servers?.[0] ?? "");
  if (!metadata) throw new Error("no authorization server metadata");
  expect(metadata.issuer).toBe(base);
  expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
  expect((metadata as Record<string, unknown>).client_id_metadata_document_supported).toBe(true);
  expect((metadata as Record<string, unknown>).authorization_response_iss_parameter_supported).toBe(true);
  return { metadata, resource: new URL(prm.resource) };
}

/** Authorization through consent; returns the code and its verifier. */
async function authorize(
  flow: Flow,
  consent: { kb?: string[]; access: "read" | "read-write" },
  redirectUrl = REDIRECT,
): Promise<{ code: string; codeVerifier: string }> {
  const { authorizationUrl, codeVerifier } = await startAuth(flow, { redirectUrl, scope: "kb:read kb:write", state: "st4te" });
  const view = await openConsent(authorizationUrl);
  const decision = await postConsent({
    request_id: view.requestId,
    csrf: view.csrf,
    admin_secret: ADMIN,
    action: "allow",
    access: consent.access,
    ...(consent.kb ? { kb: consent.kb } : {}),
  });
  expect(decision.status).toBe(303);
  const back = new URL(decision.location ?? "");
  expect(`${back.origin}${back.pathname}`).toBe(redirectUrl);
  expect(back.searchParams.get("state")).toBe("st4te");
  expect(back.searchParams.get("iss")).toBe(base);
  return { code: back.searchParams.get("code") ?? "", codeVerifier };
}

async function cimdFlow(pathname: string): Promise<Flow> {
  const { metadata, resource } = await discover(pathname);
  return { metadata, resource, client: { client_id: `${base}/client.json` } };
}

describe("OAuth with a client ID metadata document", () => {
  it("discovers, consents (hr, read-only), lists only hr's read tools, searches, refuses writes, refreshes with rotation", async () => {
    const flow = await cimdFlow("/api/mcp");
    const { authorizationUrl } = await startAuth(flow);
    const view = await openConsent(authorizationUrl);
    expect(view.clientName).toBe("Metadata Doc Client");
    expect(view.logoUri).toBeNull(); // a web logo: not shown (lib/auth/oauth/logo.ts)
    expect(view.redirectUri).toBe(REDIRECT);

    const { code, codeVerifier } = await authorize(flow, { kb: ["hr"], access: "read" });
    expect(code).toMatch(/^kboc_/);
    const tokens = await exchange(flow, code, codeVerifier);
    expect(tokens.access_token).toMatch(/^kboa_/);
    expect(tokens.refresh_token).toMatch(/^kbor_/);
    expect(tokens.scope).toBe("kb:read");
    expect(tokens.expires_in).toBe(3600);

    const client = await connect("/api/mcp", tokens.access_token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("search_hr");
    expect(names).not.toContain("search_finance");
    expect(names).not.toContain("add_document");
    expect(names).not.toContain("delete_document");
    const found = await client.callTool({ name: "search_knowledge", arguments: { query: "per diem overnight travel" } });
    expect(text(found)).toContain("80 euros");
    const other = await client.callTool({ name: "search_knowledge", arguments: { query: "invoices treasurer approval" } });
    expect(text(other)).not.toContain("5000 euros");
    const write = await client.callTool({ name: "add_document", arguments: { title: "x", content: "y", kb: "hr" } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(String(write)).toMatch(/read-write/);
    await client.close();

    const grants = await (await getOAuthStore(store)).listGrants();
    expect(grants.at(-1)).toMatchObject({ clientName: "Metadata Doc Client", kbs: ["hr"], scope: "read", resource: `${base}/api/mcp` });

    // Refresh: new tokens; the rotated refresh token then fails and revokes the grant.
    const refreshed = await refreshAuthorization(base, {
      metadata: flow.metadata,
      clientInformation: flow.client,
      refreshToken: tokens.refresh_token ?? "",
      resource: flow.resource,
    });
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await mcpPost("/api/mcp", refreshed.access_token)).status).toBe(200);
    await expect(
      refreshAuthorization(base, { metadata: flow.metadata, clientInformation: flow.client, refreshToken: tokens.refresh_token ?? "" }),
    ).rejects.toThrow(/already used/);
    expect((await mcpPost("/api/mcp", refreshed.access_token)).status).toBe(401);
  });

  it("refuses a token for /api/mcp/hr at /api/mcp/finance and at /api/mcp, and an expired token", async () => {
    const flow = await cimdFlow("/api/mcp/hr");
    expect(flow.resource.href).toBe(`${base}/api/mcp/hr`);
    const { code, codeVerifier } = await authorize(flow, { access: "read" });
    const tokens = await exchange(flow, code, codeVerifier);
    expect((await mcpPost("/api/mcp/hr", tokens.access_token)).status).toBe(200);
    const elsewhere = await mcpPost("/api/mcp/finance", tokens.access_token);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get("www-authenticate")).toMatch(/error="invalid_token".*resource_metadata="[^"]+\/api\/mcp\/finance"/);
    expect((await mcpPost("/api/mcp", tokens.access_token)).status).toBe(401);

    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 3601_000);
      // Another address: the failure it records is dated an hour ahead, which would block REMOTE for an hour.
      expect((await mcpPost("/api/mcp/hr", tokens.access_token, "10.213.9.99")).status).toBe(401);
      // Expired is not a guess: it does not count against the address's failed-authentication budget.
      expect(await authenticateOAuthToken(store, tokens.access_token, "hr")).toMatchObject({ guess: false });
      expect(await authenticateOAuthToken(store, "kboa_never-issued", "hr")).toMatchObject({ guess: true });
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses a client metadata URL at a private address without the test flag", async () => {
    delete process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS;
    try {
      const port = new URL(base).port;
      const deps = { getStore: async () => store, auth };
      const q = (clientId: string) =>
        new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: "code", code_challenge: "x".repeat(43) });
      // http is refused outright; an https literal private address, and a name that resolves to loopback.
      for (const [clientId, reason] of [
        [`${base}/client.json`, /https/],
        [`https://127.0.0.1:${port}/client.json`, /not a public address/],
        [`https://10.1.2.3/client.json`, /not a public address/],
        [`https://localhost:${port}/client.json`, /non-public address/],
      ] as const) {
        const result = await beginAuthorization(q(clientId), deps);
        expect(result.kind).toBe("error");
        expect(result.kind === "error" && result.message).toMatch(reason);
      }
    } finally {
      process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS = "1";
    }
    expect(
      [
        "127.0.0.1",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "::1",
        "fe80::1",
        "fd00::1",
        "::ffff:127.0.0.1",
        "0.0.0.0",
      ].every(isPrivateAddress),
    ).toBe(true);
    expect(["8.8.8.8", "2606:4700::1111", "::ffff:1.1.1.1"].some(isPrivateAddress)).toBe(false);
  });
});

describe("OAuth with dynamic client registration", () => {
  async function dcrFlow(pathname: string): Promise<Flow> {
    const { metadata, resource } = await discover(pathname);
    const client = await registerClient(base, {
      metadata,
      clientMetadata: { client_name: "Registered Client", redirect_uris: [REDIRECT, OTHER_REDIRECT], token_endpoint_auth_method: "none" },
    });
    expect(client.client_id).toMatch(/^kbc_/);
    return { metadata, resource, client };
  }

  it("registers, consents (read-write on /api/mcp/hr), writes, and revoking stops the token", async () => {
    const flow = await dcrFlow("/api/mcp/hr");
    const { code, codeVerifier } = await authorize(flow, { access: "read-write" });
    const tokens = await exchange(flow, code, codeVerifier);
    expect(tokens.scope).toBe("kb:read kb:write");
    const client = await connect("/api/mcp/hr", tokens.access_token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("add_document");
    expect(names).toContain("search_hr");
    expect(names).not.toContain("search_finance");
    const found = await client.callTool({ name: "search_knowledge", arguments: { query: "per diem" } });
    expect(text(found)).toContain("80 euros");
    await client.close();

    const revoke = await fetch(`${base}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.access_token, client_id: flow.client.client_id }),
    });
    expect(revoke.status).toBe(200);
    expect((await mcpPost("/api/mcp/hr", tokens.access_token)).status).toBe(401);
    await expect(
      refreshAuthorization(base, { metadata: flow.metadata, clientInformation: flow.client, refreshToken: tokens.refresh_token ?? "" }),
    ).rejects.toThrow(/revoked/);
  });

  it("a confidential client (client_secret_post) must present its secret", async () => {
    const { metadata, resource } = await discover("/api/mcp");
    const client = await registerClient(base, {
      metadata,
      clientMetadata: { client_name: "Confidential", redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_post" },
    });
    expect(client.client_secret).toMatch(/^kbcs_/);
    const flow: Flow = { metadata, resource, client };
    const first = await authorize(flow, { kb: ["hr"], access: "read" });
    await expect(
      exchangeAuthorization(base, {
        metadata,
        clientInformation: { ...client, client_secret: "wrong" },
        authorizationCode: first.code,
        codeVerifier: first.codeVerifier,
        redirectUri: REDIRECT,
        resource,
      }),
    ).rejects.toThrow(/client authentication failed/);
    const second = await authorize(flow, { kb: ["hr"], access: "read" });
    const tokens = await exchangeAuthorization(base, {
      metadata,
      clientInformation: client,
      authorizationCode: second.code,
      codeVerifier: second.codeVerifier,
      redirectUri: REDIRECT,
      resource,
    });
    expect((await mcpPost("/api/mcp", tokens.access_token)).status).toBe(200);
  });

  it("grants follow a knowledge base's rename; deleting all of a grant's knowledge bases revokes it", async () => {
    await createKnowledgeBase(store, registry, { name: "tmp-a", title: "A" });
    await createKnowledgeBase(store, registry, { name: "tmp-b", title: "B" });
    const flow = await dcrFlow("/api/mcp");
    const { code, codeVerifier } = await authorize(flow, { kb: ["tmp-a", "tmp-b"], access: "read" });
    const tokens = await exchange(flow, code, codeVerifier);
    const toolNames = async () => {
      const res = await mcpPost("/api/mcp", tokens.access_token);
      if (res.status !== 200) return res.status;
      return ((await res.json()) as { result: { tools: { name: string }[] } }).result.tools
        .map((t) => t.name)
        .filter((n) => n.startsWith("search_tmp"));
    };
    expect(await toolNames()).toEqual(["search_tmp_a", "search_tmp_b"]);
    await updateKnowledgeBase(store, registry, "tmp-a", { name: "tmp-c" });
    expect(await toolNames()).toEqual(["search_tmp_b", "search_tmp_c"]);
    await deleteKnowledgeBase(store, registry, "tmp-b");
    expect(await toolNames()).toEqual(["search_tmp_c"]);
    await deleteKnowledgeBase(store, registry, "tmp-c");
    expect(await toolNames()).toBe(401);
    // A new knowledge base under an old name is not reachable with the old grant.
    await createKnowledgeBase(store, registry, { name: "tmp-b", title: "B again" });
    expect(await toolNames()).toBe(401);
    await deleteKnowledgeBase(store, registry, "tmp-b");
  });

  it("refuses a missing or wrong PKCE verifier", async () => {
    const flow = await dcrFlow("/api/mcp");
    for (const verifier of ["", "w".repeat(64)]) {
      const { code } = await authorize(flow, { kb: ["hr"], access: "read" });
      const form = new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: flow.client.client_id,
      });
      if (verifier) form.set("code_verifier", verifier);
      const res = await fetch(`${base}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string; error_description: string }).error_description).toMatch(/code_verifier/);
    }
  });

  it("refuses a redirect URI that was not registered, and one that differs from the authorization request's", async () => {
    const flow = await dcrFlow("/api/mcp");
    const { authorizationUrl } = await startAuth(flow, { redirectUrl: "http://127.0.0.1:9/evil" });
    const res = await fetch(authorizationUrl, { redirect: "manual" });
    expect(res.status).toBe(200); // an error page, never a redirect to an unregistered URI
    expect(await res.json()).toMatchObject({ kind: "error", message: expect.stringMatching(/redirect URI/) });

    const { code, codeVerifier } = await authorize(flow, { kb: ["hr"], access: "read" });
    await expect(
      exchangeAuthorization(base, {
        metadata: flow.metadata,
        clientInformation: flow.client,
        authorizationCode: code,
        codeVerifier,
        redirectUri: OTHER_REDIRECT,
        resource: flow.resource,
      }),
    ).rejects.toThrow(/redirect_uri/);
  });

  it("refuses a reused code and revokes the tokens it issued", async () => {
    const flow = await dcrFlow("/api/mcp");
    const { code, codeVerifier } = await authorize(flow, { kb: ["hr"], access: "read" });
    const redeem = () => exchange(flow, code, codeVerifier);
    const tokens = await redeem();
    expect((await mcpPost("/api/mcp", tokens.access_token)).status).toBe(200);
    await expect(redeem()).rejects.toThrow(/already used/);
    expect((await mcpPost("/api/mcp", tokens.access_token)).status).toBe(401);
  });

  it("validates registrations with the SDK's schema and limits them per client address", async () => {
    const register = (body: unknown, peer = "10.213.9.50") =>
      fetch(`${base}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-test-peer": peer },
        body: JSON.stringify(body),
      });
    const bad = await register({ client_name: "x", redirect_uris: ["not a url"] }, "10.213.9.51");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe("invalid_client_metadata");
    expect((await register({ redirect_uris: ["http://evil.example/cb"] }, "10.213.9.51")).status).toBe(400);
    const ok = { client_name: "many", redirect_uris: [REDIRECT] };
    // The clock stands still, so the budget does not refill while a busy machine sends the 20.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      for (let i = 0; i < 20; i++) expect((await register(ok)).status).toBe(201);
      const limited = await register(ok);
      expect(limited.status).toBe(429);
      expect(((await limited.json()) as { error: string }).error).toBe("too_many_requests");
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses a resource that is not one of the MCP endpoints (an error page: the fresh client's redirect is unproven)", async () => {
    const flow = await dcrFlow("/api/mcp");
    const { authorizationUrl } = await startAuth(flow, { state: "s", resource: new URL("https://elsewhere.example/api/mcp") });
    const res = await fetch(authorizationUrl, { redirect: "manual" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ kind: "error", message: expect.stringMatching(/invalid_target/) });
  });
});

describe("the SDK's auth() driver", () => {
  it("goes from the 401 through discovery, registration and consent to an MCP client with an authProvider", async () => {
    const saved: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string; url?: URL } = {};
    const provider: OAuthClientProvider = {
      redirectUrl: REDIRECT,
      clientMetadata: { client_name: "Driver Client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" },
      clientInformation: () => saved.client,
      saveClientInformation: (c) => {
        saved.client = c;
      },
      tokens: () => saved.tokens,
      saveTokens: (t) => {
        saved.tokens = t;
      },
      redirectToAuthorization: (url) => {
        saved.url = url;
      },
      saveCodeVerifier: (v) => {
        saved.verifier = v;
      },
      codeVerifier: () => saved.verifier ?? "",
    };
    const serverUrl = `${base}/api/mcp/hr`;
    const fetchFn = (url: string | URL, init?: RequestInit) =>
      fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...remote } });
    expect(await sdkAuth(provider, { serverUrl, fetchFn })).toBe("REDIRECT");
    expect(saved.client?.client_id).toMatch(/^kbc_/);
    expect(saved.url?.searchParams.get("resource")).toBe(serverUrl);
    const view = await openConsent(saved.url as URL);
    const decision = await postConsent({
      request_id: view.requestId,
      csrf: view.csrf,
      admin_secret: ADMIN,
      action: "allow",
      access: "read",
    });
    const code = new URL(decision.location ?? "").searchParams.get("code") ?? "";
    expect(await sdkAuth(provider, { serverUrl, authorizationCode: code, fetchFn })).toBe("AUTHORIZED");

    const client = new Client({ name: "driver", version: "0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, requestInit: { headers: remote } }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("search_hr");
    expect(names).not.toContain("add_document");
    await client.close();
  });
});

describe("the consent form", () => {
  async function pending() {
    const { metadata, resource } = await discover("/api/mcp");
    const flow: Flow = { metadata, resource, client: { client_id: `${base}/client.json` } };
    const { authorizationUrl } = await startAuth(flow, { metadata, state: "abc", resource });
    return openConsent(authorizationUrl);
  }

  it("grants nothing without the admin secret, or with a wrong one (which counts as a failed sign-in)", async () => {
    const view = await pending();
    const before = (await (await getOAuthStore(store)).listGrants()).length;
    for (const secret of [undefined, "wrong"]) {
      const r = await postConsent({
        request_id: view.requestId,
        csrf: view.csrf,
        action: "allow",
        kb: "hr",
        access: "read",
        ...(secret ? { admin_secret: secret } : {}),
      });
      expect(r.status).toBe(303);
      expect(r.location).toBe(`/oauth/authorize?request_id=${view.requestId}&failed=secret`);
    }
    expect((await (await getOAuthStore(store)).listGrants()).length).toBe(before);
  });

  it("refuses a POST without or with a wrong CSRF token, and from another origin", async () => {
    const view = await pending();
    const fields = { request_id: view.requestId, admin_secret: ADMIN, action: "allow", kb: "hr", access: "read" };
    expect((await postConsent(fields)).status).toBe(403);
    expect((await postConsent({ ...fields, csrf: `${view.csrf}x` })).status).toBe(403);
    expect((await postConsent({ ...fields, csrf: view.csrf }, { origin: "https://evil.example" })).status).toBe(403);
    // The right token still works afterwards.
    const ok = await postConsent({ ...fields, csrf: view.csrf });
    expect(ok.status).toBe(303);
    expect(new URL(ok.location ?? "").searchParams.get("code")).toMatch(/^kboc_/);
  });

  it("deny goes back with error=access_denied, the state and iss", async () => {
    const view = await pending();
    const r = await postConsent({ request_id: view.requestId, csrf: view.csrf, action: "deny" });
    expect(r.status).toBe(303);
    const back = new URL(r.location ?? "");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("abc");
    expect(back.searchParams.get("iss")).toBe(base);
    // The request is gone.
    expect((await postConsent({ request_id: view.requestId, csrf: view.csrf, action: "deny" })).status).toBe(400);
  });

  it("local requests without a token stay open; kbt_ tokens are unchanged", async () => {
    const res = await fetch(`${base}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(LIST),
    });
    expect(res.status).toBe(200);
  });
});
