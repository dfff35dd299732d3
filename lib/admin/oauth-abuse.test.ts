/**
 * OAuth registration and authorization as an attacker would use them, over real HTTP with the SDK's own
 * client auth functions, on a real LanceDB store: registrations bounded per address (an IPv6 /64 as one) over
 * time, the registry's cap exact under concurrent registrations, only reverse-DNS private-use schemes and no
 * fragment in redirect URIs, the full redirect URI on the consent page, a code not used up by a request with a
 * wrong verifier or resource, and error redirects only to a redirect URI the client has proven.
 */
import { exchangeAuthorization, registerClient, startAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import type { AuthorizationServerMetadata, OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { serveWeb } from "@/e2e/helpers/web-server";
import type { OAuthDeps } from "@/lib/auth/oauth/authorize";
import { registerClient as registerHere } from "@/lib/auth/oauth/clients";
import { getOAuthStore } from "@/lib/auth/oauth/store";
import { oauthRoute } from "@/lib/auth/oauth/test-routes";
import { testAuthSettings } from "@/lib/auth/test-settings";
import { HR_KB, openTestKbs } from "@/lib/ingest/test-kbs";
import type { Store } from "@/lib/store";

const ADMIN = "s3cret-admin";
const REDIRECT = "http://127.0.0.1:9/callback";
let kbs: Awaited<ReturnType<typeof openTestKbs>>;
let store: Store;
let server: Awaited<ReturnType<typeof serveWeb>>;
let base: string;
let metadata: AuthorizationServerMetadata;
const deps: OAuthDeps = { getStore: async () => store, auth: testAuthSettings({ adminToken: ADMIN, authFailuresPerMinute: 100_000 }) };
const saved = { PUBLIC_URL: process.env.PUBLIC_URL };

beforeAll(async () => {
  kbs = await openTestKbs("oauth-abuse-", [HR_KB]);
  store = kbs.store;
  server = await serveWeb(async (request, url) => (await oauthRoute(request, url, deps)) ?? new Response("not found", { status: 404 }));
  base = server.base;
  process.env.PUBLIC_URL = base;
  metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as AuthorizationServerMetadata;
});

afterAll(async () => {
  await server?.close();
  await kbs?.close();
  if (saved.PUBLIC_URL === undefined) delete process.env.PUBLIC_URL;
  else process.env.PUBLIC_URL = saved.PUBLIC_URL;
});

afterEach(() => {
  vi.useRealTimers();
});

const resource = (kb = "hr") => new URL(`${base}/api/mcp/${kb}`);

const register = (body: unknown, peer: string) =>
  fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-test-peer": peer },
    body: JSON.stringify(body),
  });

/** The authorization request in the browser: the consent view, or the redirect it answers, or its error page. */
async function open(url: URL) {
  const res = await fetch(url, { redirect: "manual", headers: { "x-test-peer": "10.51.0.1" } });
  if (res.status === 307) return { location: new URL(res.headers.get("location") ?? "") };
  return (await res.json()) as { kind: string; message?: string; view?: { requestId: string; csrf: string; redirectUri: string } };
}

/** A client registered with the SDK, through consent (hr, read) to a code. */
async function codeFor(client: OAuthClientInformationMixed, redirectUrl = REDIRECT) {
  const { authorizationUrl, codeVerifier } = await startAuthorization(base, {
    metadata,
    clientInformation: client,
    redirectUrl,
    resource: resource(),
  });
  const opened = await open(authorizationUrl);
  if (!("view" in opened) || !opened.view) throw new Error(`no consent: ${JSON.stringify(opened)}`);
  const res = await fetch(`${base}/oauth/consent`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-test-peer": "10.51.0.1" },
    body: new URLSearchParams({
      request_id: opened.view.requestId,
      csrf: opened.view.csrf,
      admin_secret: ADMIN,
      action: "allow",
      access: "read",
    }),
  });
  const back = new URL(res.headers.get("location") ?? "");
  return { code: back.searchParams.get("code") ?? "", codeVerifier, view: opened.view };
}

const newClient = (redirect_uris = [REDIRECT]) =>
  registerClient(base, { metadata, clientMetadata: { client_name: "Client", redirect_uris, token_endpoint_auth_method: "none" } });

describe("dynamic client registration", () => {
  it("bounds registrations per address over time, an IPv6 /64 counting as one address", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const ok = { client_name: "filler", redirect_uris: [REDIRECT] };
    const peer = (i: number) => `2001:db8:51:1::${(i + 1).toString(16)}`;
    for (let i = 0; i < 20; i++) expect((await register(ok, peer(i))).status).toBe(201);
    // Every address of the /64 is the same address: the minute's budget is spent.
    expect((await register(ok, "2001:db8:51:1:ffff::9")).status).toBe(429);
    expect((await register(ok, "2001:db8:51:2::1")).status).toBe(201);
    vi.setSystemTime(Date.now() + 61_000);
    for (let i = 0; i < 10; i++) expect((await register(ok, peer(100 + i))).status).toBe(201);
    // 30 in the hour: refused, and still half a minute later, when the minute's budget has room again.
    expect((await register(ok, peer(200))).status).toBe(429);
    vi.setSystemTime(Date.now() + 30_000);
    const late = await register(ok, peer(201));
    expect(late.status).toBe(429);
    expect(((await late.json()) as { error_description: string }).error_description).toMatch(/hour/);
  }, 120_000);

  it("keeps the cap exact when registrations arrive at once", async () => {
    const oauth = await getOAuthStore(store);
    const cap = (await oauth.countClients()) + 5;
    const body = { client_name: "racer", redirect_uris: [REDIRECT] };
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => registerHere(oauth, body, new Date(), cap)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    expect(await oauth.countClients()).toBe(cap);
  }, 120_000);

  it("takes only reverse-DNS private-use schemes (and MCP hosts' own) and no fragment; the consent page names the whole redirect URI", async () => {
    const refused = [
      "microsoft-edge:https://evil.example/cb",
      "ms-msdt:/id PCWDiagnostic /skip force",
      "search-ms:query=invoice&crumb=location:\\\\evil.example\\share",
      "firefox:https://evil.example/cb",
      "https://app.example/cb#",
    ];
    for (const [i, uri] of refused.entries()) {
      const res = await register({ client_name: "bad", redirect_uris: [uri] }, `10.51.1.${i + 1}`);
      expect(res.status, uri).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_client_metadata");
    }
    const native = "com.example.kbclient://oauth/callback?x=1";
    const client = await newClient([native]);
    const { authorizationUrl } = await startAuthorization(base, {
      metadata,
      clientInformation: client,
      redirectUrl: native,
      resource: resource(),
    });
    const opened = await open(authorizationUrl);
    expect(opened).toMatchObject({ kind: "consent", view: { redirectUri: native } });
    // An empty fragment is refused at the authorization request too.
    const withHash = new URL(authorizationUrl);
    withHash.searchParams.set("redirect_uri", "http://127.0.0.1:9/callback#");
    const loopback = await newClient();
    withHash.searchParams.set("client_id", loopback.client_id);
    expect(await open(withHash)).toMatchObject({ kind: "error", message: expect.stringMatching(/redirect URI/) });
  }, 120_000);
});

describe("codes and error redirects", () => {
  it("a code presented with a wrong verifier or resource is not used up: the real client's retry works", async () => {
    const client = await newClient();
    const { code, codeVerifier } = await codeFor(client);
    const attempt = (verifier: string, target = resource()) =>
      exchangeAuthorization(base, {
        metadata,
        clientInformation: client,
        authorizationCode: code,
        codeVerifier: verifier,
        redirectUri: REDIRECT,
        resource: target,
      });
    await expect(attempt("x".repeat(43))).rejects.toThrow(/code_verifier/);
    await expect(attempt(codeVerifier, resource("finance"))).rejects.toThrow(/resource/);
    const tokens = await attempt(codeVerifier);
    expect(tokens.access_token).toMatch(/^kboa_/);
    // A replay that passes the checks is still taken for one: the grant is revoked.
    await expect(attempt(codeVerifier)).rejects.toThrow(/already used/);
  }, 120_000);

  it("errors at /authorize go to a redirect URI only once the client has proven it", async () => {
    const other = "http://127.0.0.1:9/other";
    const client = await newClient([REDIRECT, other]);
    const nope = async (redirectUrl: string) => {
      const { authorizationUrl } = await startAuthorization(base, {
        metadata,
        clientInformation: client,
        redirectUrl,
        resource: resource(),
      });
      authorizationUrl.searchParams.set("response_type", "nope");
      return open(authorizationUrl);
    };
    expect(await nope(REDIRECT)).toMatchObject({ kind: "error", message: expect.stringMatching(/response_type/) });

    const { code, codeVerifier } = await codeFor(client);
    await exchangeAuthorization(base, {
      metadata,
      clientInformation: client,
      authorizationCode: code,
      codeVerifier,
      redirectUri: REDIRECT,
      resource: resource(),
    });
    const proven = await nope(REDIRECT);
    if (!("location" in proven)) throw new Error(`no redirect: ${JSON.stringify(proven)}`);
    expect(`${proven.location.origin}${proven.location.pathname}`).toBe(REDIRECT);
    expect(proven.location.searchParams.get("error")).toBe("unsupported_response_type");
    // Another loopback port of the proven URI is the same native app; another path is not proven.
    expect(await nope("http://127.0.0.1:4711/callback")).toHaveProperty("location");
    expect(await nope(other)).toMatchObject({ kind: "error" });
  }, 120_000);
});
