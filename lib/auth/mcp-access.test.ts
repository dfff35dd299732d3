/**
 * The MCP endpoint's access step on a real store and registry in a temp dir: for each kind of request, the
 * principal and its knowledge-base scope, or the refusal (the 401 challenge that starts OAuth discovery among them).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessToken, createKnowledgeBase } from "@/lib/kb";
import { openRegistry, type Registry } from "@/lib/kb/registry";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { getAccountStore } from "./accounts/store";
import type { AuthSettings } from "./config";
import { internalMcpSecret } from "./internal";
import { authenticateMcp, type McpAccess, type McpPrincipal, type McpRefusal, type McpScope } from "./mcp-access";
import { getOAuthStore } from "./oauth/store";
import { resourceUrl } from "./oauth/urls";
import { PEER_HEADER, peerHeaderFor } from "./peer";
import { testAuthSettings } from "./test-settings";

let temp: TempStore;
let registry: Registry;
const secrets: Record<string, string> = {};
/** A remote caller must present a token; a local one (LOCAL_OWNER=1 in testAuthSettings) need not. */
const REMOTE = testAuthSettings({ localOwner: false });

beforeAll(async () => {
  temp = await openTempStore("mcp-access-");
  registry = await openRegistry(temp.store, { defaultKb: "default" });
  for (const name of ["hr", "eng"]) await createKnowledgeBase(temp.store, registry, { name, title: name, description: "" });
  const token = async (name: string, scope: "read" | "read-write", kb?: string) =>
    (await createAccessToken(temp.store, registry, { name, scope, ...(kb ? { kb } : {}) })).secret;
  secrets.all = await token("all", "read-write");
  secrets.hr = await token("hr only", "read", "hr");
  secrets.reader = await token("a reader's", "read-write");
  secrets.gone = await token("a removed person's", "read");

  const accounts = await getAccountStore(temp.store);
  const person = (id: string, email: string) => ({
    id,
    email,
    name: email,
    role: "reader" as const,
    kbs: ["eng"],
    passwordHash: null,
    origin: "local",
    createdAt: new Date().toISOString(),
  });
  await accounts.addUser(person("usr_00000000000000aa", "reader@example.com"));
  await accounts.addUser(person("usr_00000000000000bb", "gone@example.com"));
  const ids = new Map((await registry.listTokens()).map((t) => [t.name, t.id]));
  await accounts.setOwner("token", ids.get("a reader's")!, "usr_00000000000000aa");
  await accounts.setOwner("token", ids.get("a removed person's")!, "usr_00000000000000bb");
  await accounts.deleteUser("usr_00000000000000bb");

  const oauth = await getOAuthStore(temp.store);
  const grant = (id: string, kb: string | undefined, kbs: string[]) => ({
    id,
    clientId: "client",
    clientName: "Claude",
    resource: resourceUrl(kb),
    kbs,
    scope: "read" as const,
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
    revoked: false,
  });
  await oauth.addGrant(grant("oag_00000000000000a1", "hr", ["hr"]));
  await oauth.addGrant(grant("oag_00000000000000a2", undefined, ["eng"]));
  const expiresAt = new Date(Date.now() + 3600_000).toISOString();
  secrets.oauthHr = "kboa_for-hr-endpoint-only";
  secrets.oauthAll = "kboa_for-the-whole-library";
  await oauth.addSecret({ kind: "access", grantId: "oag_00000000000000a1", expiresAt, data: null }, secrets.oauthHr);
  await oauth.addSecret({ kind: "access", grantId: "oag_00000000000000a2", expiresAt, data: null }, secrets.oauthAll);
}, 60_000);

afterAll(async () => {
  await temp?.close();
});

function request(headers: Record<string, string> = {}, peer = "10.1.2.3", host = "kb.example:3000") {
  return new Request(`http://${host}/api/mcp`, { method: "POST", headers: { host, [PEER_HEADER]: peerHeaderFor(peer), ...headers } });
}
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

function access(req: Request, kb?: string, auth: AuthSettings = REMOTE): Promise<McpAccess> {
  return authenticateMcp(req, { kb, auth, getStore: async () => temp.store, registry });
}
async function allowed(req: Request, kb?: string, auth?: AuthSettings): Promise<{ principal: McpPrincipal; scope: McpScope }> {
  const a = await access(req, kb, auth);
  if ("refused" in a) throw new Error(`refused: ${a.refused.status} ${a.refused.message}`);
  return a;
}
async function refused(req: Request, kb?: string, auth?: AuthSettings): Promise<McpRefusal> {
  const a = await access(req, kb, auth);
  if (!("refused" in a)) throw new Error(`allowed as ${a.principal.via}`);
  return a.refused;
}

describe("the MCP access step: a principal and its scope, or the refusal", () => {
  it("no token from elsewhere: 401 with the challenge of the endpoint's metadata, without an error code", async () => {
    const r = await refused(request(), "hr");
    expect(r.status).toBe(401);
    expect(r.headers?.["WWW-Authenticate"]).toMatch(
      /^Bearer realm="mcp", resource_metadata=".*\/\.well-known\/oauth-protected-resource\/api\/mcp\/hr"/,
    );
    expect(r.headers?.["WWW-Authenticate"]).not.toMatch(/error=/);
  });

  it("a malformed Authorization header or a wrong token: 401 invalid_token, naming what is wrong", async () => {
    const malformed = await refused(request({ authorization: "Basic abc" }));
    expect(malformed.status).toBe(401);
    expect(malformed.headers?.["WWW-Authenticate"]).toMatch(/error="invalid_token", error_description="Send the access token as/);
    const wrong = await refused(request(bearer("kbt_not-a-token")));
    expect(wrong.status).toBe(401);
    expect(wrong.message).toMatch(/invalid or has been revoked/);
  });

  it("wrong tokens again and again: 429 once the address's budget is spent", async () => {
    const settings = { ...REMOTE, authFailuresPerMinute: 2 };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await refused(request(bearer(`kbt_guess-${i}`), "10.9.9.9"), undefined, settings)).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
  });

  it("a foreign Origin: 403 before any credential is looked at", async () => {
    const r = await refused(request({ origin: "http://evil.example", ...bearer(secrets.all) }));
    expect(r.status).toBe(403);
    expect(r.message).toMatch(/origin/);
  });

  it("this machine in a local run without a token: the local principal, every knowledge base", async () => {
    const { principal, scope } = await allowed(request({}, "127.0.0.1", "127.0.0.1:3000"), undefined, testAuthSettings());
    expect(principal).toMatchObject({ via: "local", token: null, actor: "local" });
    expect(scope.kbs).toBeUndefined();
    expect(scope.catalog.map((e) => e.kb.name).sort()).toEqual(["default", "eng", "hr"]);
  });

  it("the app's own chat: the internal principal", async () => {
    const { principal, scope } = await allowed(request(bearer(internalMcpSecret())));
    expect(principal).toMatchObject({ via: "internal", token: null, actor: "app chat" });
    expect(scope.kbs).toBeUndefined();
  });

  it("an access token: its principal; at /api/mcp/<kb> that knowledge base, and 404 for one that does not exist", async () => {
    const { principal, scope } = await allowed(request(bearer(secrets.all)), "eng");
    expect(principal).toMatchObject({ via: "token", actor: 'token "all"' });
    expect(principal.token?.scope).toBe("read-write");
    expect(scope.kb).toBe("eng");
    const missing = await refused(request(bearer(secrets.all)), "nope");
    expect(missing).toMatchObject({ status: 404, message: 'There is no knowledge base named "nope".' });
  });

  it("a token limited to one knowledge base: scoped to it, 403 at another's endpoint", async () => {
    expect((await allowed(request(bearer(secrets.hr)))).scope.kbs).toEqual(["hr"]);
    const r = await refused(request(bearer(secrets.hr)), "eng");
    expect(r).toMatchObject({ status: 403, message: 'Forbidden: this access token is limited to the knowledge base "hr".' });
  });

  it("a person's token reaches only that person's grants, read-only for a reader; a removed person's is refused", async () => {
    const { principal, scope } = await allowed(request(bearer(secrets.reader)));
    expect(principal).toMatchObject({ via: "token", ownerId: "usr_00000000000000aa", actor: 'reader@example.com, token "a reader\'s"' });
    expect(principal.token?.scope).toBe("read");
    expect(scope.kbs).toEqual(["eng"]);
    expect((await refused(request(bearer(secrets.reader)), "hr")).status).toBe(403);
    const gone = await refused(request(bearer(secrets.gone)));
    expect(gone).toMatchObject({ status: 401, message: "The account this access token belongs to has been removed." });
  });

  it("an OAuth token: only at the endpoint it was issued for, with the knowledge bases chosen at consent", async () => {
    const atHr = await allowed(request(bearer(secrets.oauthHr)), "hr");
    expect(atHr.principal).toMatchObject({ via: "oauth", actor: 'token "Claude"' });
    expect(atHr.scope.kbs).toEqual(["hr"]);
    const elsewhere = await refused(request(bearer(secrets.oauthHr)), "eng");
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers?.["WWW-Authenticate"]).toMatch(/error="invalid_token".*oauth-protected-resource\/api\/mcp\/eng"/);
    expect((await allowed(request(bearer(secrets.oauthAll)))).scope.kbs).toEqual(["eng"]);
    expect((await refused(request(bearer("kboa_never-issued")))).status).toBe(401);
  });

  it("X-KB-Filter narrows the scope; a filter that leaves nothing is 403", async () => {
    const { scope } = await allowed(request({ ...bearer(secrets.all), "x-kb-filter": "hr,nope" }));
    expect(scope.kbs).toEqual(["hr"]);
    expect((await refused(request({ ...bearer(secrets.hr), "x-kb-filter": "eng" }))).status).toBe(403);
  });

  it("too many requests with one token: 429 with Retry-After", async () => {
    const settings = { ...REMOTE, rateLimitPerMinute: 2 };
    const hr = bearer(secrets.hr);
    await allowed(request(hr), undefined, settings);
    await allowed(request(hr), undefined, settings);
    const r = await refused(request(hr), undefined, settings);
    expect(r.status).toBe(429);
    expect(Number(r.headers?.["Retry-After"])).toBeGreaterThan(0);
  });
});
