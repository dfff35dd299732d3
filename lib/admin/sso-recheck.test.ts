/**
 * Single-sign-on membership re-checked without a sign-in, against a real OpenID provider (node-oidc-provider on a
 * loopback port, refresh tokens and all), the real openid-client refresh, and accounts, tokens and OAuth grants
 * on a real LanceDB store, used through the app's access check and the MCP endpoint's handler: removal at the
 * provider ends sessions, tokens and OAuth grants on the schedule and at the next use; a refused refresh token
 * ends them too; an unreachable provider keeps access until the grace limit.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { sessionUser } from "@/lib/auth/accounts/sessions";
import { signInWithSso } from "@/lib/auth/accounts/sso";
import { getSsoCheckStore } from "@/lib/auth/accounts/sso-checks";
import { recheckDue, runSsoRecheck, ssoAccessAllowed, ssoDepsOf } from "@/lib/auth/accounts/sso-recheck";
import { APP, ssoTestBed } from "@/lib/auth/accounts/sso-test-bed";
import { getOAuthStore } from "@/lib/auth/oauth/store";
import type { OidcConfig } from "@/lib/auth/oidc";
import { authenticateApp } from "@/lib/auth/principal";
import { testAuthSettings } from "@/lib/auth/test-settings";
import { getConfig } from "@/lib/config";
import { createAccessToken, getRegistry } from "@/lib/kb";
import { handleMcpRequest } from "@/mcp/http";

const bed = ssoTestBed("sso-recheck-", {
  OIDC_GROUP_ROLES: "kb-admins=admin,staff=reader",
  OIDC_RECHECK_SECONDS: "1",
});

/** Signs `login` in through the provider; its session cookie, a read-write access token and an OAuth grant it owns. */
async function signedIn(login: string, claims: Record<string, unknown>) {
  const got = await bed.providerSignIn(login, claims);
  expect(got.refreshToken).toBeTruthy();
  const done = await signInWithSso(await ssoDepsOf(bed.store), got, getConfig().oidc, 1);
  if ("refused" in done) throw new Error(done.refused);
  const registry = await getRegistry(bed.store);
  const { token, secret } = await createAccessToken(bed.store, registry, { name: `${login} ci`, scope: "read-write", kb: null }, (id) =>
    bed.accounts.setOwner("token", id, done.user.id),
  );
  const grantId = `oag_${done.user.id.slice(4)}`;
  await bed.addOwnedGrant(grantId, done.user.id);
  const oauth = await getOAuthStore(bed.store);
  const oauthAccess = `kboa_${done.user.id}_${"x".repeat(24)}`;
  const hour = new Date(Date.now() + 3600_000).toISOString();
  await oauth.addSecret({ kind: "access", grantId, expiresAt: hour, data: null }, oauthAccess);
  return {
    oauthAccess,
    user: done.user,
    cookie: done.cookies.map((c) => c.slice(0, c.indexOf(";"))).join("; "),
    tokenId: token.id,
    tokenSecret: secret,
    refreshToken: got.refreshToken!,
    grantId,
  };
}

/** Whether the session, the access token and the OAuth grant of `who` have all ended. */
async function allEnded(who: Awaited<ReturnType<typeof signedIn>>) {
  const registry = await getRegistry(bed.store);
  const oauth = await getOAuthStore(bed.store);
  return {
    session: (await sessionUser(bed.accounts, who.cookie)) === null,
    token: (await registry.getToken(who.tokenId))?.revoked === true,
    grant: (await oauth.getGrant(who.grantId))?.revoked === true,
  };
}

/** The MCP endpoint's answer to an initialize request with this bearer token. */
async function mcpStatus(bearer: string): Promise<number> {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
  };
  const req = new Request(`${APP}/api/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
  });
  const res = await handleMcpRequest(req, {
    getStore: async () => bed.store,
    registry: await getRegistry(bed.store),
    auth: testAuthSettings(),
  });
  await res.body?.cancel();
  return res.status;
}

const request = (cookie: string) => new Request(`${APP}/api/overview`, { headers: { cookie, host: "app.test" } });
const appDeps = { accounts: async () => bed.accounts, ssoAccess: (id: string) => ssoAccessAllowed(bed.store, id) };

describe("single-sign-on membership re-checked without a sign-in", () => {
  it("keeps the provider's refresh token only sealed", async () => {
    const ann = await signedIn("ann", { email: "ann@corp.test", groups: ["staff"] });
    const row = (await (await getSsoCheckStore(bed.store)).all()).get(ann.user.id);
    expect(row?.refreshSealed).toBeTruthy();
    expect(row?.refreshSealed).not.toContain(ann.refreshToken);
    // Nowhere on disk in clear.
    for (const file of await readdir(bed.dir, { recursive: true, withFileTypes: true })) {
      if (file.isFile()) expect((await readFile(path.join(file.parentPath, file.name))).includes(ann.refreshToken)).toBe(false);
    }
  });

  it("on a schedule: removed from the group at the provider, session, token and OAuth grant end within the interval", async () => {
    const bob = await signedIn("bob", { email: "bob@corp.test", groups: ["kb-admins"] });
    expect(await allEnded(bob)).toEqual({ session: false, token: false, grant: false });
    bed.idp.claims.set("bob", { email: "bob@corp.test", groups: [] });
    const stop = runSsoRecheck(bed.store, 200);
    try {
      await vi.waitFor(async () => expect(await allEnded(bob)).toEqual({ session: true, token: true, grant: true }), {
        timeout: 30_000,
        interval: 200,
      });
    } finally {
      stop();
    }
    expect((await bed.accounts.users()).get(bob.user.id)).toMatchObject({ role: "reader", kbs: [] });
  });

  it("at the next use: a stale confirmation is checked before the session counts, and removal ends everything", async () => {
    const cy = await signedIn("cy", { email: "cy@corp.test", groups: ["staff"] });
    await expect(authenticateApp(request(cy.cookie), appDeps)).resolves.toMatchObject({ kind: "user", user: { id: cy.user.id } });
    bed.idp.claims.set("cy", { email: "cy@corp.test", groups: ["visitors"] });
    await vi.waitFor(
      async () => {
        await expect(authenticateApp(request(cy.cookie), appDeps)).rejects.toMatchObject({ status: 401 });
      },
      { timeout: 30_000, interval: 300 },
    );
    expect(await allEnded(cy)).toEqual({ session: true, token: true, grant: true });
  });

  it("at the next use of an access token or OAuth access token at /api/mcp: removal refuses it and revokes both", async () => {
    const fay = await signedIn("fay", { email: "fay@corp.test", groups: ["kb-admins"] });
    expect(await mcpStatus(fay.tokenSecret)).toBe(200);
    expect(await mcpStatus(fay.oauthAccess)).toBe(200);
    bed.idp.claims.set("fay", { email: "fay@corp.test", groups: [] });
    await vi.waitFor(async () => expect(await mcpStatus(fay.tokenSecret)).toBe(401), { timeout: 30_000, interval: 300 });
    expect(await mcpStatus(fay.oauthAccess)).toBe(401);
    expect(await allEnded(fay)).toEqual({ session: true, token: true, grant: true });
  });

  it("a refresh token the provider refuses ends sessions, tokens and OAuth grants; the role stays for a new sign-in", async () => {
    const dee = await signedIn("dee", { email: "dee@corp.test", groups: ["kb-admins"] });
    bed.idp.gone.add("dee");
    await vi.waitFor(async () => expect(await ssoAccessAllowed(bed.store, dee.user.id)).toBe(false), { timeout: 30_000, interval: 300 });
    expect(await allEnded(dee)).toEqual({ session: true, token: true, grant: true });
    expect((await bed.accounts.users()).get(dee.user.id)?.role).toBe("admin");
    // Asked again later, still within the grace limit: only a new sign-in brings the person back.
    const checks = await getSsoCheckStore(bed.store);
    await checks.save({ ...(await checks.all()).get(dee.user.id)!, attemptedAt: new Date(0).toISOString() });
    expect(await ssoAccessAllowed(bed.store, dee.user.id)).toBe(false);
  });

  it("an unreachable provider keeps access within the grace limit, then ends sessions and refuses tokens until confirmed again", async () => {
    const eve = await signedIn("eve", { email: "eve@corp.test", groups: ["staff"] });
    const down = { ...getConfig().oidc, issuer: "http://127.0.0.1:9", recheckSeconds: 1 };
    await vi.waitFor(
      async () => {
        const row = (await (await getSsoCheckStore(bed.store)).all()).get(eve.user.id);
        expect(Date.now() - Date.parse(row!.confirmedAt)).toBeGreaterThan(1000);
      },
      { timeout: 5000, interval: 200 },
    );
    // The provider cannot be reached (a closed port): within OIDC_RECHECK_GRACE_HOURS nothing ends.
    const ready = (await (await getSsoCheckStore(bed.store)).all()).get(eve.user.id)!;
    await recheckDue(bed.store, down);
    expect(await ssoAccessAllowed(bed.store, eve.user.id, down)).toBe(true);
    expect(await allEnded(eve)).toEqual({ session: false, token: false, grant: false });
    // Past the grace limit: the session ends, the token and grant are refused but not revoked.
    const checks = await getSsoCheckStore(bed.store);
    await checks.save({
      ...ready,
      confirmedAt: new Date(Date.now() - 25 * 3600_000).toISOString(),
      attemptedAt: new Date(0).toISOString(),
    });
    const graceOver: OidcConfig = { ...down, recheckGraceHours: 24 };
    expect(await ssoAccessAllowed(bed.store, eve.user.id, graceOver)).toBe(false);
    expect(await allEnded(eve)).toEqual({ session: true, token: false, grant: false });
    // The provider answers again and still vouches for Eve: her token works again.
    await checks.save({ ...(await checks.all()).get(eve.user.id)!, attemptedAt: new Date(0).toISOString() });
    expect(await ssoAccessAllowed(bed.store, eve.user.id)).toBe(true);
  });
});
