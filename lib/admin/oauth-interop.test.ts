/**
 * The OAuth server against what real clients send and what an attacker tries, over real HTTP on a real
 * LanceDB store: Cursor's private-use redirect scheme, a port-less loopback redirect in a client ID metadata
 * document, private_key_jwt, refresh and PKCE edge cases, the registration cap and expiry, the pending
 * requests and failure budgets, and the SSRF rules of the metadata fetcher.
 */
import { exchangeAuthorization, refreshAuthorization, registerClient, startAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import type { AuthorizationServerMetadata, OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWeb } from "@/e2e/helpers/web-server";
import type { AuthSettings } from "@/lib/auth/config";
import { beginAuthorization, type OAuthDeps } from "@/lib/auth/oauth/authorize";
import { registerClient as registerHere } from "@/lib/auth/oauth/clients";
import { getOAuthStore, newGrantId } from "@/lib/auth/oauth/store";
import { oauthRoute } from "@/lib/auth/oauth/test-routes";
import { testAuthSettings } from "@/lib/auth/test-settings";
import { HR_KB, openTestKbs } from "@/lib/ingest/test-kbs";
import { isPrivateAddress } from "@/lib/net/public-address";
import type { Store } from "@/lib/store";
import { restoreEnv } from "@/lib/test-helpers/env";

const ADMIN = "s3cret-admin";
const NATIVE_REDIRECTS = [
  "com.example.kbclient://oauth/callback",
  "https://app.example/agents/mcp/oauth/callback",
  "http://localhost:8787/callback",
];
let kbs: Awaited<ReturnType<typeof openTestKbs>>;
let store: Store;
let server: Awaited<ReturnType<typeof serveWeb>>;
let base: string;
let metadata: AuthorizationServerMetadata;
/** The settings the server uses; a test may swap them. */
let auth: AuthSettings = testAuthSettings({ adminToken: ADMIN, authFailuresPerMinute: 100_000 });
const deps: OAuthDeps = {
  getStore: async () => store,
  get auth() {
    return auth;
  },
};
const saved = { PUBLIC_URL: process.env.PUBLIC_URL, FLAG: process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS };
/** Documents the test server serves at /doc/<name>. */
const docs = new Map<string, () => Response>();
let signingKey: CryptoKey;
let publicJwk: JWK;
let strangerKey: CryptoKey;

beforeAll(async () => {
  kbs = await openTestKbs("oauth-interop-", [HR_KB]);
  store = kbs.store;
  server = await serveWeb(async (request, url) => {
    const oauth = await oauthRoute(request, url, deps);
    if (oauth) return oauth;
    const doc = docs.get(url.pathname.replace(/^\/doc\//, ""));
    return doc ? doc() : new Response("not found", { status: 404 });
  });
  base = server.base;
  process.env.PUBLIC_URL = base;
  process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS = "1";
  metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as AuthorizationServerMetadata;
  const pair = await generateKeyPair("ES256");
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" };
  strangerKey = (await generateKeyPair("ES256")).privateKey;
  docs.set("jwks.json", () => Response.json({ keys: [publicJwk] }));
});

afterAll(async () => {
  await server?.close();
  await kbs?.close();
  restoreEnv({ PUBLIC_URL: saved.PUBLIC_URL, OAUTH_ALLOW_PRIVATE_CLIENT_URLS: saved.FLAG });
});

const resource = () => new URL(`${base}/api/mcp/hr`);

/** A client ID metadata document served at /doc/<name>; returns its client_id. */
function serveDoc(name: string, body: Record<string, unknown>): string {
  const clientId = `${base}/doc/${name}`;
  docs.set(name, () => Response.json({ client_id: clientId, client_name: name, ...body }));
  return clientId;
}

/** The authorization request in the browser, from `peer`: the consent view, or the redirect / error. */
async function openAuthorization(url: URL, peer = "10.40.0.1") {
  const res = await fetch(url, { redirect: "manual", headers: { "x-test-peer": peer } });
  if (res.status === 307) return { location: new URL(res.headers.get("location") ?? "") };
  return (await res.json()) as { kind: string; message?: string; view?: { requestId: string; csrf: string; redirectUri: string } };
}

/** Consent (hr, read) as the page posts it; the Location it answers. */
async function allow(view: { requestId: string; csrf: string }): Promise<URL> {
  const res = await fetch(`${base}/oauth/consent`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-test-peer": "10.40.0.1" },
    body: new URLSearchParams({ request_id: view.requestId, csrf: view.csrf, admin_secret: ADMIN, action: "allow", access: "read" }),
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location") ?? "");
}

/** A full authorization for `client` through consent with `redirectUrl`: the code, its verifier and the redirect it came to. */
async function authorize(client: OAuthClientInformationMixed, redirectUrl: string) {
  const { authorizationUrl, codeVerifier } = await startAuthorization(base, {
    metadata,
    clientInformation: client,
    redirectUrl,
    resource: resource(),
    state: "st",
  });
  const opened = await openAuthorization(authorizationUrl);
  if (!("view" in opened) || !opened.view) throw new Error(`no consent: ${JSON.stringify(opened)}`);
  const back = await allow(opened.view);
  return { code: back.searchParams.get("code") ?? "", codeVerifier, back, view: opened.view };
}

const tokenRequest = (form: Record<string, string>, peer = "10.40.0.2") =>
  fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-test-peer": peer },
    body: new URLSearchParams(form),
  });

describe("native and loopback redirects", () => {
  it("registers Cursor's exact redirect list, its cursor:// callback among them", async () => {
    const cursor = [
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "https://www.cursor.com/agents/mcp/oauth/callback",
      "http://localhost:8787/callback",
    ];
    const client = await registerClient(base, {
      metadata,
      clientMetadata: { client_name: "Cursor", redirect_uris: cursor, token_endpoint_auth_method: "none" },
    });
    expect(client.redirect_uris).toEqual(cursor);
  });

  it("registers a native app's redirect list and returns the code to its reverse-DNS scheme", async () => {
    const client = await registerClient(base, {
      metadata,
      clientMetadata: { client_name: "Native", redirect_uris: NATIVE_REDIRECTS, token_endpoint_auth_method: "none" },
    });
    expect(client.redirect_uris).toEqual(NATIVE_REDIRECTS);
    const { code, codeVerifier, back, view } = await authorize(client, NATIVE_REDIRECTS[0]);
    expect(view.redirectUri).toBe(NATIVE_REDIRECTS[0]);
    expect(`${back.protocol}//${back.host}${back.pathname}`).toBe(NATIVE_REDIRECTS[0]);
    const tokens = await exchangeAuthorization(base, {
      metadata,
      clientInformation: client,
      authorizationCode: code,
      codeVerifier,
      redirectUri: NATIVE_REDIRECTS[0],
      resource: resource(),
    });
    expect(tokens.access_token).toMatch(/^kboa_/);

    // A private-use scheme matches exactly; schemes that are no app's callback are refused at registration.
    const { authorizationUrl } = await startAuthorization(base, {
      metadata,
      clientInformation: client,
      redirectUrl: "com.example.kbclient://oauth/callback/other",
      resource: resource(),
    });
    expect(await openAuthorization(authorizationUrl)).toMatchObject({ kind: "error", message: expect.stringMatching(/redirect URI/) });
    for (const uri of ["javascript://x/%0aalert(1)", "file:///etc/passwd", "data:text/html,x", "http://evil.example/cb"]) {
      const res = await fetch(`${base}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-test-peer": "10.40.9.1" },
        body: JSON.stringify({ client_name: "bad", redirect_uris: [uri] }),
      });
      expect(res.status, uri).toBe(400);
    }
  });

  it("a metadata document's port-less loopback redirect works on any port (127.0.0.1 and localhost)", async () => {
    for (const listed of ["http://127.0.0.1/callback", "http://localhost/callback"]) {
      const clientId = serveDoc(`loopback-${listed.includes("localhost") ? "name" : "ip"}.json`, {
        redirect_uris: [listed],
        token_endpoint_auth_method: "none",
      });
      const client = { client_id: clientId };
      const redirectUrl = "http://127.0.0.1:47123/callback";
      const { code, codeVerifier, back } = await authorize(client, redirectUrl);
      expect(`${back.origin}${back.pathname}`).toBe(redirectUrl);
      const tokens = await exchangeAuthorization(base, {
        metadata,
        clientInformation: client,
        authorizationCode: code,
        codeVerifier,
        redirectUri: redirectUrl,
        resource: resource(),
      });
      expect(tokens.access_token).toMatch(/^kboa_/);
      // Only the port is free: another path, or a host that is not loopback, is not the registered URI.
      for (const other of ["http://127.0.0.1:47123/elsewhere", "http://10.0.0.1:47123/callback"]) {
        const { authorizationUrl } = await startAuthorization(base, {
          metadata,
          clientInformation: client,
          redirectUrl: other,
          resource: resource(),
        });
        expect(await openAuthorization(authorizationUrl), other).toMatchObject({ kind: "error" });
      }
    }
  });
});

describe("token endpoint edge cases", () => {
  it("a refresh with the wrong resource (invalid_target) leaves the refresh token usable", async () => {
    const client = await registerClient(base, { metadata, clientMetadata: { client_name: "r", redirect_uris: ["http://127.0.0.1/cb"] } });
    const { code, codeVerifier } = await authorize(client, "http://127.0.0.1:5000/cb");
    const tokens = await exchangeAuthorization(base, {
      metadata,
      clientInformation: client,
      authorizationCode: code,
      codeVerifier,
      redirectUri: "http://127.0.0.1:5000/cb",
      resource: resource(),
    });
    const wrong = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token ?? "",
      client_id: client.client_id,
      resource: `${base}/api/mcp`,
    });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe("invalid_target");
    const again = await refreshAuthorization(base, {
      metadata,
      clientInformation: client,
      refreshToken: tokens.refresh_token ?? "",
      resource: resource(),
    });
    expect(again.access_token).toMatch(/^kboa_/);
  });

  it("refuses a code_challenge without code_challenge_method", async () => {
    const client = await registerClient(base, { metadata, clientMetadata: { client_name: "p", redirect_uris: ["http://127.0.0.1/cb"] } });
    const { authorizationUrl } = await startAuthorization(base, {
      metadata,
      clientInformation: client,
      redirectUrl: "http://127.0.0.1/cb",
      resource: resource(),
    });
    authorizationUrl.searchParams.delete("code_challenge_method");
    // A fresh client's redirect URI is unproven: an error page, not a redirect.
    expect(await openAuthorization(authorizationUrl)).toMatchObject({
      kind: "error",
      message: expect.stringMatching(/code_challenge_method/),
    });
  });
});

describe("private_key_jwt", () => {
  const assertion = (clientId: string, key = signingKey, jti = crypto.randomUUID()) =>
    new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(`${base}/oauth/token`)
      .setJti(jti)
      .setIssuedAt()
      .setExpirationTime("2m")
      .sign(key);

  /** A code for `clientId`, and the token request's fields without client authentication. */
  async function codeFor(clientId: string) {
    const { code, codeVerifier } = await authorize({ client_id: clientId }, "http://127.0.0.1:6000/cb");
    return {
      grant_type: "authorization_code",
      code,
      code_verifier: codeVerifier,
      redirect_uri: "http://127.0.0.1:6000/cb",
      client_id: clientId,
    };
  }
  const TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

  it("a registered client is authenticated by its signed assertion, checked against its jwks_uri", async () => {
    const res = await fetch(`${base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-test-peer": "10.40.9.2" },
      body: JSON.stringify({
        client_name: "signed",
        redirect_uris: ["http://127.0.0.1/cb"],
        token_endpoint_auth_method: "private_key_jwt",
        jwks_uri: `${base}/doc/jwks.json`,
      }),
    });
    expect(res.status).toBe(201);
    const { client_id: clientId, client_secret } = (await res.json()) as { client_id: string; client_secret?: string };
    expect(client_secret).toBeUndefined();

    const fields = await codeFor(clientId);
    // Without an assertion, with one signed by another key, or with a foreign issuer: refused, the code kept.
    const attempts: Record<string, string>[] = [
      {},
      { client_assertion_type: TYPE, client_assertion: await assertion(clientId, strangerKey) },
      { client_assertion_type: TYPE, client_assertion: await assertion("someone-else") },
    ];
    for (const extra of attempts) {
      const r = await tokenRequest({ ...fields, ...extra });
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: string }).error).toBe("invalid_client");
    }
    const jti = crypto.randomUUID();
    const ok = await tokenRequest({ ...fields, client_assertion_type: TYPE, client_assertion: await assertion(clientId, signingKey, jti) });
    expect(ok.status).toBe(200);
    // The same assertion again is a replay.
    const second = await codeFor(clientId);
    const replay = await tokenRequest({
      ...second,
      client_assertion_type: TYPE,
      client_assertion: await assertion(clientId, signingKey, jti),
    });
    expect(replay.status).toBe(401);
  });

  it("a metadata document declaring private_key_jwt is never taken for a public client", async () => {
    const clientId = serveDoc("signed.json", {
      redirect_uris: ["http://127.0.0.1/cb"],
      token_endpoint_auth_method: "private_key_jwt",
      jwks_uri: `${base}/doc/jwks.json`,
    });
    const fields = await codeFor(clientId);
    expect((await tokenRequest(fields)).status).toBe(401);
    expect((await tokenRequest({ ...fields, client_assertion_type: TYPE, client_assertion: await assertion(clientId) })).status).toBe(200);
    // A document cannot hold a shared secret.
    const secretDoc = serveDoc("secret.json", { redirect_uris: ["http://127.0.0.1/cb"], token_endpoint_auth_method: "client_secret_post" });
    const { authorizationUrl } = await startAuthorization(base, {
      metadata,
      clientInformation: { client_id: secretDoc },
      redirectUrl: "http://127.0.0.1/cb",
      resource: resource(),
    });
    expect(await openAuthorization(authorizationUrl)).toMatchObject({
      kind: "error",
      message: expect.stringMatching(/client_secret_post/),
    });
  });
});

describe("registration storage", () => {
  it("caps the registered clients, and expires unused (an hour) and stale (60 days) ones", async () => {
    const oauth = await getOAuthStore(store);
    const body = { client_name: "filler", redirect_uris: ["http://127.0.0.1/cb"] };
    const now = new Date();
    const cap = (await oauth.countClients()) + 2;
    await registerHere(oauth, body, now, cap);
    const used = await registerHere(oauth, body, now, cap);
    await expect(registerHere(oauth, body, now, cap)).rejects.toThrow(/as many registered clients/);

    const grantId = newGrantId();
    await oauth.addGrant({
      id: grantId,
      clientId: used.client_id,
      clientName: "filler",
      resource: `${base}/api/mcp/hr`,
      kbs: ["hr"],
      scope: "read",
      createdAt: now.toISOString(),
      lastUsedAt: null,
      revoked: false,
    });
    // An hour later every client no consent came of is gone (making room), the one with a grant stays.
    const hourLater = new Date(now.getTime() + 61 * 60_000);
    const fresh = await registerHere(oauth, body, hourLater, cap);
    expect(await oauth.getClient(used.client_id)).not.toBeNull();
    expect(await oauth.getClient(fresh.client_id)).not.toBeNull();
    // 61 days without use: the client goes and its grant is revoked.
    await oauth.purgeClients(new Date(now.getTime() + 61 * 24 * 3600_000));
    expect(await oauth.getClient(used.client_id)).toBeNull();
    expect((await oauth.getGrant(grantId))?.revoked).toBe(true);
  });

  it("keeps registrations small and names the real body limit", async () => {
    const register = (body: string) =>
      fetch(`${base}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-test-peer": "10.40.9.3" },
        body,
      });
    const big = await register(JSON.stringify({ client_name: "x".repeat(5000), redirect_uris: ["http://127.0.0.1/cb"] }));
    expect(big.status).toBe(400);
    expect(((await big.json()) as { error_description: string }).error_description).toMatch(/larger than 4 KB/);
    const huge = await register(JSON.stringify({ client_name: "x".repeat(20_000), redirect_uris: ["http://127.0.0.1/cb"] }));
    expect(huge.status).toBe(400);
    expect(((await huge.json()) as { error_description: string }).error_description).toBe("The request body is larger than 8 KB.");
  });
});

describe("abuse of the anonymous endpoints", () => {
  it("an oversize metadata document (with a Content-Length) is refused with the size message", async () => {
    const errors: unknown[] = [];
    const onError = (err: unknown) => errors.push(err);
    process.on("uncaughtException", onError);
    try {
      const clientId = `${base}/doc/big.json`;
      const text = JSON.stringify({ client_id: clientId, redirect_uris: ["http://127.0.0.1/cb"], client_name: "y".repeat(6000) });
      docs.set(
        "big.json",
        () => new Response(text, { headers: { "content-type": "application/json", "content-length": String(text.length) } }),
      );
      const q = new URLSearchParams({ client_id: clientId, redirect_uri: "http://127.0.0.1/cb" });
      const result = await beginAuthorization(q, deps, null, { address: "10.40.1.1", local: false });
      expect(result).toMatchObject({ kind: "error", message: expect.stringMatching(/larger than 5120 bytes/) });
      await new Promise((r) => setTimeout(r, 200));
      expect(errors).toEqual([]);
    } finally {
      process.off("uncaughtException", onError);
    }
  });

  it("limits anonymous authorization requests per address; a flood cannot evict another's pending consent", async () => {
    const client = await registerClient(base, { metadata, clientMetadata: { client_name: "v", redirect_uris: ["http://127.0.0.1/cb"] } });
    const query = async () => {
      const { authorizationUrl } = await startAuthorization(base, {
        metadata,
        clientInformation: client,
        redirectUrl: "http://127.0.0.1/cb",
        resource: resource(),
      });
      return authorizationUrl.searchParams;
    };
    const victim = await beginAuthorization(await query(), deps, null, { address: "10.50.0.1", local: false });
    if (victim.kind !== "consent") throw new Error("no consent");
    const q = await query();
    for (let i = 0; i < 1000; i++) await beginAuthorization(q, deps, null, { address: "10.50.0.2", local: false });
    const back = await allow(victim.view);
    expect(back.searchParams.get("code")).toMatch(/^kboc_/);

    const saved = auth;
    auth = { ...auth, rateLimitPerMinute: 40 }; // 10 anonymous requests a minute
    try {
      const results = [];
      for (let i = 0; i < 11; i++) results.push((await beginAuthorization(q, deps, null, { address: "10.50.0.3", local: false })).kind);
      expect(results.slice(0, 10).every((k) => k === "consent")).toBe(true);
      expect(await beginAuthorization(q, deps, null, { address: "10.50.0.3", local: false })).toMatchObject({
        kind: "error",
        message: expect.stringMatching(/Too many authorization requests/),
      });
      expect((await beginAuthorization(q, deps, null, { address: "10.50.0.4", local: false })).kind).toBe("consent");
    } finally {
      auth = saved;
    }
  });

  it("throttles failed token requests per address like failed bearer tokens, never a real code", async () => {
    const client = await registerClient(base, { metadata, clientMetadata: { client_name: "t", redirect_uris: ["http://127.0.0.1/cb"] } });
    const { code, codeVerifier } = await authorize(client, "http://127.0.0.1/cb");
    const saved = auth;
    auth = { ...auth, authFailuresPerMinute: 3 };
    try {
      const guess = {
        grant_type: "authorization_code",
        client_id: client.client_id,
        redirect_uri: "http://127.0.0.1/cb",
        code_verifier: codeVerifier,
      };
      for (let i = 0; i < 3; i++) expect((await tokenRequest({ ...guess, code: `kboc_guess${i}` }, "10.60.0.1")).status).toBe(400);
      const blocked = await tokenRequest({ ...guess, code: "kboc_guess3" }, "10.60.0.1");
      expect(blocked.status).toBe(429);
      expect(((await blocked.json()) as { error: string }).error).toBe("too_many_requests");
      // A real code from the same (shared) address still works.
      expect((await tokenRequest({ ...guess, code }, "10.60.0.1")).status).toBe(200);
    } finally {
      auth = saved;
    }
  });

  it("refuses every IPv6 form of a private IPv4 address, and never echoes resolver or connection errors", async () => {
    for (const a of [
      "::7f00:1",
      "::127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:0:7f00:1",
      "::ffff:0:127.0.0.1",
      "2002:7f00:1::",
      "2002:a00:1::1",
      "64:ff9b::7f00:1",
      "64:ff9b::10.0.0.1",
      "64:ff9b:1::a00:1",
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
      "0:0:0:0:0:ffff:a9fe:a9fe",
      "fec0::1",
      "::",
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ["2606:4700::1111", "2002:808:808::1", "64:ff9b::808:808", "::ffff:8.8.8.8", "2a00:1450:4001::200e"]) {
      expect(isPrivateAddress(a), a).toBe(false);
    }

    const q = (clientId: string) => new URLSearchParams({ client_id: clientId, redirect_uri: "http://127.0.0.1/cb" });
    const refused = await beginAuthorization(q("http://127.0.0.1:1/client.json"), deps, null, { address: "10.40.2.1", local: false });
    expect(refused).toMatchObject({ kind: "error", message: expect.stringMatching(/could not be fetched/) });
    delete process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS;
    try {
      const unknown = await beginAuthorization(q("https://no-such-host.invalid/client.json"), deps, null, {
        address: "10.40.2.1",
        local: false,
      });
      expect(unknown).toMatchObject({ kind: "error", message: expect.stringMatching(/could not be fetched/) });
      for (const r of [refused, unknown]) expect(JSON.stringify(r)).not.toMatch(/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo|connect /);
      const mapped = await beginAuthorization(q("https://[::ffff:0:7f00:1]/client.json"), deps, null, {
        address: "10.40.2.1",
        local: false,
      });
      expect(mapped).toMatchObject({ kind: "error", message: expect.stringMatching(/not a public address/) });
    } finally {
      process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS = "1";
    }
  });
});
