import { describe, expect, it } from "vitest";
import { testAuthSettings } from "@/lib/auth/test-settings";
import { type AccessToken, bearerSecret, canWrite, findToken, generateTokenSecret, hashTokenSecret } from "@/lib/credentials/tokens";
import { AppError } from "@/lib/types";
import { type AuthSettings, isLoopbackHost, resolveAuthSettings } from "./config";
import { isOriginAllowed } from "./origin";
import { addressList, callerOf, forwardedFor, PEER_HEADER, parseProxyHeader, parseTrustedProxies, peerHeaderFor } from "./peer";
import { authenticateApp } from "./principal";
import { createRateLimiter } from "./rate-limit";
import { authFailures } from "./request";

function token(secret: string, over: Partial<AccessToken> = {}): AccessToken {
  return {
    id: "t1",
    name: "n",
    hash: hashTokenSecret(secret),
    scope: "read",
    kb: null,
    createdAt: "",
    lastUsedAt: null,
    revoked: false,
    ...over,
  };
}

describe("access tokens", () => {
  it("generates distinct prefixed secrets and finds them only by the exact secret", () => {
    const a = generateTokenSecret();
    const b = generateTokenSecret();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^kbt_[A-Za-z0-9_-]{32}$/);
    const tokens = [token(a, { id: "a" }), token(b, { id: "b" })];
    expect(findToken(tokens, b)?.id).toBe("b");
    expect(findToken(tokens, `${a}x`)).toBeNull();
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

describe("failed-authentication budgets (authFailures)", () => {
  const s = { authFailuresPerMinute: 3 };
  const nat = { address: "10.213.7.1", local: false };
  it("an account spends its own budget from any address; a password from the spent address is refused for every account", () => {
    const alice = authFailures(s, nat, { account: "alice@team.test" });
    expect([alice.fail(), alice.fail(), alice.fail()]).toEqual([false, false, false]);
    expect(authFailures(s, { ...nat, address: "10.213.7.2" }, { account: "Alice@team.test" }).locked()).toBe(true);
    expect(authFailures(s, nat, { account: "bob@team.test" }).locked()).toBe(true);
    expect(authFailures(s, { ...nat, address: "10.213.7.2" }, { account: "bob@team.test" }).locked()).toBe(false);
  });
  it("an address that spent its budget has its wrong guesses refused (429), not its valid credentials", () => {
    const nat2 = { address: "10.213.7.3", local: false };
    for (let i = 0; i < 3; i++) authFailures(s, nat2, { credential: `kbt_guess_${i}` }).fail();
    const another = authFailures(s, nat2, { credential: "kbt_guess_new" });
    expect(another.locked()).toBe(false);
    expect(another.fail()).toBe(true);
    expect(authFailures(s, nat2, { credential: "kbt_valid" }).locked()).toBe(false);
  });
});

describe("origin check", () => {
  const host = "127.0.0.1:3000";
  it("accepts no origin, the same origin and listed origins", () => {
    expect(isOriginAllowed(null, host, [])).toBe(true);
    expect(isOriginAllowed("http://127.0.0.1:3000", host, [])).toBe(true);
    expect(isOriginAllowed("https://kb.example.com", "kb.example.com", [])).toBe(true); // behind a TLS proxy
    expect(isOriginAllowed("https://tools.example.com", host, ["https://tools.example.com"])).toBe(true);
    expect(isOriginAllowed("http://localhost:6274", host, ["http://localhost:6274"])).toBe(true);
  });
  it("refuses foreign, other loopback, opaque and malformed origins", () => {
    expect(isOriginAllowed("http://evil.example", host, [])).toBe(false);
    expect(isOriginAllowed("http://localhost:9999", host, [])).toBe(false);
    expect(isOriginAllowed("http://127.0.0.1:9999", host, [])).toBe(false);
    expect(isOriginAllowed("http://localhost:3000", host, [])).toBe(false);
    expect(isOriginAllowed("http://127.0.0.1:3000", null, [])).toBe(false);
    expect(isOriginAllowed("null", host, [])).toBe(false);
    expect(isOriginAllowed("not a url", host, [])).toBe(false);
    expect(isOriginAllowed("http://localhost:8080", "kb.internal:3000", [])).toBe(false);
  });
});

describe("auth settings", () => {
  const base = { rateLimitPerMinute: 60, allowedOrigins: [] as string[] };
  it("REQUIRE_TOKEN only adds a requirement for local requests, erring on the safe side", () => {
    expect(resolveAuthSettings({ ...base }).requireToken).toBe(false);
    expect(resolveAuthSettings({ ...base, requireToken: "1" }).requireToken).toBe(true);
    expect(resolveAuthSettings({ ...base, requireToken: "true" }).requireToken).toBe(true);
    expect(resolveAuthSettings({ ...base, requireToken: "0" }).requireToken).toBe(false);
    expect(resolveAuthSettings({ ...base, requireToken: "maybe" }).requireToken).toBe(true);
  });
  it("rejects a malformed TRUSTED_PROXIES entry", () => {
    expect(() => resolveAuthSettings({ ...base, trustedProxies: "proxy.local" })).toThrow(/TRUSTED_PROXIES/);
  });
  it("names TRUSTED_PROXIES and the entry when a CIDR prefix is out of range or malformed", () => {
    for (const entry of ["10.0.0.0/33", "::1/129", "10.0.0.0/", "10.0.0.0/abc", "10.0.0.0/-1", "10.0.0.0/8/8", "10.0.0.0/1e1"]) {
      expect(() => parseTrustedProxies(`127.0.0.1, ${entry}`), entry).toThrow(
        `TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`,
      );
    }
    expect(parseTrustedProxies("10.0.0.0/32, ::1/128, 0.0.0.0/0").check("10.0.0.0", "ipv4")).toBe(true);
  });
  it("recognises loopback hosts", () => {
    expect(["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost:3000"].every(isLoopbackHost)).toBe(true);
    expect(["0.0.0.0", "10.0.0.1", "example.com", "::"].some(isLoopbackHost)).toBe(false);
  });
});

describe("web API access (authenticateApp)", () => {
  /** The refusal of `authenticateApp`, or null when it lets the request through. */
  const checkAppAccess = async (r: Request, s: AuthSettings): Promise<AppError | null> => {
    const accounts = async () => {
      throw new Error("no session cookie was sent");
    };
    return authenticateApp(r, { accounts, settings: s }).then(
      () => null,
      (err: unknown) => (err instanceof AppError ? err : Promise.reject(err)),
    );
  };
  const settings = (over: Partial<AuthSettings> = {}): AuthSettings => ({ ...testAuthSettings(), adminToken: "s3cret", ...over });
  const req = (peer: string | null, headers: Record<string, string> = {}, host = "127.0.0.1:3000") =>
    new Request(`http://${host}/api/tokens`, {
      method: "POST",
      headers: { host, ...headers, ...(peer ? { [PEER_HEADER]: peerHeaderFor(peer, headers) } : {}) },
    });
  it("is open to this machine, but refuses foreign origins", async () => {
    expect(await checkAppAccess(req("127.0.0.1"), settings())).toBeNull();
    expect(await checkAppAccess(req("::1"), settings())).toBeNull();
    expect(await checkAppAccess(req("127.0.0.1", { origin: "http://127.0.0.1:3000" }), settings())).toBeNull();
    expect((await checkAppAccess(req("127.0.0.1", { origin: "http://evil.example" }), settings()))?.status).toBe(403);
  });
  it("asks any other request for the admin secret, whatever the bind address", async () => {
    const remote = req("10.213.9.2", {}, "10.213.9.1:3000");
    const denied = await checkAppAccess(remote, settings());
    expect(denied?.status).toBe(401);
    expect(denied?.message).toMatch(/Sign in|admin secret/);
    expect(await checkAppAccess(req("10.213.9.2", { authorization: "Bearer s3cret" }, "10.213.9.1:3000"), settings())).toBeNull();
    // No header from the server entry (e.g. `next start` run directly): remote.
    expect((await checkAppAccess(req(null), settings()))?.status).toBe(401);
    // A forged peer header does not carry the process secret.
    expect(
      (
        await checkAppAccess(
          new Request("http://127.0.0.1:3000/api/kbs", { headers: { [PEER_HEADER]: "guess.eyJhIjoiMTI3LjAuMC4xIiwicCI6ZmFsc2V9" } }),
          settings(),
        )
      )?.status,
    ).toBe(401);
  });
  it("treats loopback peers with any forwarding header or a foreign Host as remote, trusted proxy or not", async () => {
    const forwardings: Record<string, string>[] = [
      { "x-forwarded-for": "127.0.0.1" },
      { forwarded: "for=127.0.0.1" },
      { "x-real-ip": "127.0.0.1" },
      { via: "1.1 p" },
    ];
    for (const h of forwardings) {
      expect((await checkAppAccess(req("127.0.0.1", h), settings()))?.status).toBe(401);
      for (const header of ["x-forwarded-for", "x-real-ip", "forwarded"] as const) {
        const trusted = settings({ trustedProxies: parseTrustedProxies("127.0.0.1, ::1"), trustedProxyHeader: header });
        expect((await checkAppAccess(req("127.0.0.1", h), trusted))?.status, `${JSON.stringify(h)} via ${header}`).toBe(401);
      }
    }
    expect((await checkAppAccess(req("127.0.0.1", {}, "kb.example.com"), settings()))?.status).toBe(401);
  });
  it("with REQUIRE_TOKEN, local requests need the admin secret too", async () => {
    expect((await checkAppAccess(req("127.0.0.1"), settings({ requireToken: true, requireLogin: true })))?.status).toBe(401);
    expect(
      await checkAppAccess(req("127.0.0.1", { authorization: "Bearer s3cret" }), settings({ requireToken: true, requireLogin: true })),
    ).toBeNull();
  });
  it("rate-limits failed authentications per client address", async () => {
    const s = settings({ authFailuresPerMinute: 3 });
    const wrong = async () => (await checkAppAccess(req("10.213.9.77", { authorization: "Bearer wrong" }, "x:1"), s))?.status;
    expect([await wrong(), await wrong(), await wrong()]).toEqual([401, 401, 401]);
    expect(await wrong()).toBe(429);
    // …even the right secret, until the budget refills; other addresses are unaffected.
    expect((await checkAppAccess(req("10.213.9.77", { authorization: "Bearer s3cret" }, "x:1"), s))?.status).toBe(429);
    expect(await checkAppAccess(req("10.213.9.78", { authorization: "Bearer s3cret" }, "x:1"), s)).toBeNull();
  });
});

describe("who is asking (callerOf)", () => {
  const r = (peer: string, headers: Record<string, string> = {}, host = "127.0.0.1:3000") =>
    new Request(`http://${host}/`, { headers: { host, ...headers, [PEER_HEADER]: peerHeaderFor(peer, headers) } });
  it("never takes the client address from X-Forwarded-For of an untrusted peer", () => {
    expect(callerOf(r("10.0.0.9", { "x-forwarded-for": "1.2.3.4" }))).toEqual({ address: "10.0.0.9", local: false });
  });
  it("walks a trusted proxy chain from the right", () => {
    const trustedProxies = parseTrustedProxies("127.0.0.1, 10.1.0.0/16");
    const xff = { "x-forwarded-for": "9.9.9.9, 1.2.3.4, 10.1.2.3" };
    expect(callerOf(r("127.0.0.1", xff), { trustedProxies })).toEqual({ address: "1.2.3.4", local: false });
    const fwd = { forwarded: 'for=1.2.3.4;proto=http, for="[2001:db8::1]:4711"' };
    expect(callerOf(r("127.0.0.1", fwd), { trustedProxies, trustedProxyHeader: "forwarded" }).address).toBe("2001:db8::1");
    expect(callerOf(r("127.0.0.1", { "x-real-ip": "5.6.7.8" }), { trustedProxies, trustedProxyHeader: "x-real-ip" }).address).toBe(
      "5.6.7.8",
    );
    // Only trusted proxies in the chain: the left-most is the best guess, and still not local.
    expect(callerOf(r("127.0.0.1", { "x-forwarded-for": "127.0.0.1, 10.1.0.5" }), { trustedProxies })).toEqual({
      address: "127.0.0.1",
      local: false,
    });
    expect(callerOf(r("::ffff:127.0.0.1", {}), { localOwner: true }).local).toBe(true);
  });
  it("never takes a bare loopback request for the owner without LOCAL_OWNER=1 (a same-host proxy sends just that)", () => {
    expect(callerOf(r("127.0.0.1", {}))).toEqual({ address: "127.0.0.1", local: false });
    expect(callerOf(r("::1", {}))).toEqual({ address: "::1", local: false });
    const base = { rateLimitPerMinute: 10, allowedOrigins: [] };
    expect(resolveAuthSettings({ ...base, localOwner: "1" }).localOwner).toBe(true);
    expect(resolveAuthSettings(base).localOwner).toBe(false);
    expect(resolveAuthSettings({ ...base, localOwner: "1", publicUrl: "https://kb.example" }).localOwner).toBe(false);
    expect(resolveAuthSettings({ ...base, localOwner: "1", trustedProxies: "127.0.0.1" }).localOwner).toBe(false);
  });
  it("reads only the header the operator names, whatever else a client sent through the proxy", () => {
    const trustedProxies = parseTrustedProxies("127.0.0.1");
    // nginx's default: appends the peer to X-Forwarded-For and passes the client's Forwarded and X-Real-IP on.
    const appended = { forwarded: "for=127.0.0.1", "x-real-ip": "127.0.0.1", "x-forwarded-for": "127.0.0.1, 10.213.9.2" };
    expect(callerOf(r("127.0.0.1", appended), { trustedProxies })).toEqual({ address: "10.213.9.2", local: false });
    // A proxy that sets only X-Real-IP passes the client's X-Forwarded-For and Forwarded on.
    const realIp = { forwarded: "for=127.0.0.1", "x-forwarded-for": "127.0.0.1", "x-real-ip": "10.213.9.2" };
    expect(callerOf(r("127.0.0.1", realIp), { trustedProxies, trustedProxyHeader: "x-real-ip" })).toEqual({
      address: "10.213.9.2",
      local: false,
    });
    // The named header missing: the peer (the proxy) is the address, never local.
    expect(callerOf(r("127.0.0.1", { forwarded: "for=127.0.0.1" }), { trustedProxies })).toEqual({ address: "127.0.0.1", local: false });
  });
  it("parses TRUSTED_PROXY_HEADER", () => {
    expect(parseProxyHeader(undefined)).toBe("x-forwarded-for");
    expect(parseProxyHeader("X-Real-IP")).toBe("x-real-ip");
    expect(parseProxyHeader(" Forwarded ")).toBe("forwarded");
    expect(() => parseProxyHeader("CF-Connecting-IP")).toThrow(/TRUSTED_PROXY_HEADER/);
  });
  it("accepts forwarded-chain syntaxes", () => {
    expect(forwardedFor('for=192.0.2.60;proto=http;by=203.0.113.43, for="198.51.100.17:8080", proto=https')).toEqual([
      "192.0.2.60",
      "198.51.100.17",
    ]);
    expect(forwardedFor('By=10.0.0.1;For="[2001:db8::17]:80"')).toEqual(["2001:db8::17"]);
    expect(addressList(" 1.1.1.1 ,2.2.2.2")).toEqual(["1.1.1.1", "2.2.2.2"]);
  });
});
