import { describe, expect, it } from "vitest";
import { bearerSecret, canUseKb, canWrite, findToken, generateTokenSecret, hashTokenSecret, type AccessToken } from "./tokens";
import { createRateLimiter } from "./rate-limit";
import { isOriginAllowed } from "./origin";
import { isLoopbackHost, resolveAuthSettings, type AuthSettings } from "./config";
import { checkManagementAccess, checkReadAccess } from "./admin";

function token(secret: string, over: Partial<AccessToken> = {}): AccessToken {
  return { id: "t1", name: "n", hash: hashTokenSecret(secret), scope: "read", kb: null, createdAt: "", lastUsedAt: null, revoked: false, ...over };
}

describe("access tokens", () => {
  it("generates distinct prefixed secrets and finds them only by the exact secret", () => {
    const a = generateTokenSecret();
    const b = generateTokenSecret();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^kbt_[A-Za-z0-9_-]{32}$/);
    const tokens = [token(a, { id: "a" }), token(b, { id: "b" })];
    expect(findToken(tokens, b)?.id).toBe("b");
    expect(findToken(tokens, a + "x")).toBeNull();
    expect(tokens[0].hash).not.toContain(a);
  });

  it("parses bearer headers", () => {
    expect(bearerSecret("Bearer abc")).toBe("abc");
    expect(bearerSecret("bearer  abc ")).toBe("abc");
    expect(bearerSecret("Basic abc")).toBeNull();
    expect(bearerSecret(null)).toBeNull();
  });

  it("checks scope and knowledge-base limits", () => {
    expect(canWrite({ scope: "read" })).toBe(false);
    expect(canWrite({ scope: "read-write" })).toBe(true);
    expect(canWrite(null)).toBe(false);
    expect(canUseKb({ kb: "hr" }, "hr")).toBe(true);
    expect(canUseKb({ kb: "hr" }, "eng")).toBe(false);
    expect(canUseKb({ kb: null }, "eng")).toBe(true);
  });
});

describe("rate limiter", () => {
  it("allows a burst up to capacity, then answers with a retry delay, then refills", () => {
    const rl = createRateLimiter({ capacity: 3, refillPerSecond: 1 });
    const t0 = 1_000_000;
    expect([1, 2, 3].map(() => rl.take("k", t0).allowed)).toEqual([true, true, true]);
    const denied = rl.take("k", t0);
    expect(denied).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(rl.take("other", t0).allowed).toBe(true);
    expect(rl.take("k", t0 + 1000).allowed).toBe(true);
  });
});

describe("origin check", () => {
  const url = "http://127.0.0.1:3000/api/mcp";
  it("accepts no origin, the same origin, loopback origins on a loopback server, and listed origins", () => {
    expect(isOriginAllowed(null, url, [])).toBe(true);
    expect(isOriginAllowed("http://127.0.0.1:3000", url, [])).toBe(true);
    expect(isOriginAllowed("http://localhost:6274", url, [])).toBe(true);
    expect(isOriginAllowed("https://tools.example.com", url, ["https://tools.example.com"])).toBe(true);
  });
  it("refuses foreign and malformed origins", () => {
    expect(isOriginAllowed("http://evil.example", url, [])).toBe(false);
    expect(isOriginAllowed("not a url", url, [])).toBe(false);
    expect(isOriginAllowed("http://localhost:8080", "http://kb.internal:3000/api/mcp", [])).toBe(false);
  });
});

describe("auth settings", () => {
  const base = { rateLimitPerMinute: 60, allowedOrigins: [] as string[] };
  it("requires tokens by default only when the app listens on a non-loopback address", () => {
    expect(resolveAuthSettings({ ...base }).requireToken).toBe(false);
    expect(resolveAuthSettings({ ...base, bindHost: "127.0.0.1" }).requireToken).toBe(false);
    expect(resolveAuthSettings({ ...base, bindHost: "localhost" }).requireToken).toBe(false);
    expect(resolveAuthSettings({ ...base, bindHost: "0.0.0.0" })).toMatchObject({ requireToken: true, loopbackOnly: false });
    expect(resolveAuthSettings({ ...base, bindHost: "::" }).requireToken).toBe(true);
    expect(resolveAuthSettings({ ...base, hostname: "10.1.2.3" }).requireToken).toBe(true);
    // A machine name in HOSTNAME (as shells and containers set it) says nothing about the bind address.
    expect(resolveAuthSettings({ ...base, hostname: "build-box" }).requireToken).toBe(false);
  });
  it("lets REQUIRE_TOKEN override, erring on the safe side", () => {
    expect(resolveAuthSettings({ ...base, requireToken: "1" }).requireToken).toBe(true);
    expect(resolveAuthSettings({ ...base, requireToken: "true" }).requireToken).toBe(true);
    expect(resolveAuthSettings({ ...base, requireToken: "0", bindHost: "0.0.0.0" }).requireToken).toBe(false);
    expect(resolveAuthSettings({ ...base, requireToken: "maybe" }).requireToken).toBe(true);
  });
  it("recognises loopback hosts", () => {
    expect(["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"].every(isLoopbackHost)).toBe(true);
    expect(["0.0.0.0", "10.0.0.1", "example.com", "::"].some(isLoopbackHost)).toBe(false);
  });
});

describe("management access", () => {
  const open: AuthSettings = { requireToken: false, loopbackOnly: true, rateLimitPerMinute: 60, allowedOrigins: [] };
  const req = (headers: Record<string, string> = {}) => new Request("http://127.0.0.1:3000/api/tokens", { method: "POST", headers });
  it("is open locally but refuses foreign origins", () => {
    expect(checkManagementAccess(req(), open)).toBeNull();
    expect(checkManagementAccess(req({ origin: "http://127.0.0.1:3000" }), open)).toBeNull();
    expect(checkManagementAccess(req({ origin: "http://evil.example" }), open)?.status).toBe(403);
  });
  it("with tokens required: ADMIN_TOKEN when set, else loopback-only servers only", () => {
    const admin = { ...open, requireToken: true, adminToken: "s3cret" };
    expect(checkManagementAccess(req(), admin)?.status).toBe(401);
    expect(checkManagementAccess(req({ authorization: "Bearer wrong" }), admin)?.status).toBe(401);
    expect(checkManagementAccess(req({ authorization: "Bearer s3cret" }), admin)).toBeNull();
    expect(checkManagementAccess(req(), { ...open, requireToken: true })).toBeNull();
    expect(checkManagementAccess(req(), { ...open, requireToken: true, loopbackOnly: false })?.status).toBe(403);
  });
});

describe("read access (the web app's own API)", () => {
  const open: AuthSettings = { requireToken: false, loopbackOnly: false, rateLimitPerMinute: 60, allowedOrigins: [] };
  const get = (headers: Record<string, string> = {}) => new Request("http://10.0.0.5:3000/api/documents", { headers });
  it("asks nothing more than the origin check when tokens are not required", () => {
    expect(checkReadAccess(get(), open)).toBeNull();
    expect(checkReadAccess(get({ authorization: "Bearer anything" }), open)).toBeNull();
    expect(checkReadAccess(get({ origin: "http://evil.example" }), open)?.status).toBe(403);
  });
  it("with tokens required and ADMIN_TOKEN set: only its bearer, whatever the bind address", () => {
    for (const loopbackOnly of [true, false]) {
      const admin: AuthSettings = { ...open, requireToken: true, loopbackOnly, adminToken: "s3cret" };
      const missing = checkReadAccess(get(), admin);
      expect(missing?.status).toBe(401);
      expect(missing?.code).toBe("unauthorized");
      expect(checkReadAccess(get({ authorization: "Bearer wrong" }), admin)?.status).toBe(401);
      expect(checkReadAccess(get({ authorization: "Bearer s3cret-and-more" }), admin)?.status).toBe(401);
      expect(checkReadAccess(get({ authorization: "Bearer s3cret" }), admin)).toBeNull();
      // The right token from a foreign origin is still refused.
      expect(checkReadAccess(get({ authorization: "Bearer s3cret", origin: "http://evil.example" }), admin)?.status).toBe(403);
    }
  });
  it("with tokens required and no ADMIN_TOKEN: open on a loopback-only server, refused on a shared one", () => {
    expect(checkReadAccess(get(), { ...open, requireToken: true, loopbackOnly: true })).toBeNull();
    const shared = checkReadAccess(get({ authorization: "Bearer guess" }), { ...open, requireToken: true, loopbackOnly: false });
    expect(shared?.status).toBe(403);
    expect(shared?.message).toMatch(/ADMIN_TOKEN/);
  });
});
