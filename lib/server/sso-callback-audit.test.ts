/**
 * GET /api/auth/oidc/callback (the route module itself) with a real OpenID provider: the verified owner of an address
 * claims the account single sign-on made from it unverified, and the audit log names the identity that was unlinked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET } from "@/app/api/auth/oidc/callback/route";
import { getAuditLog } from "@/lib/audit/log";
import { APP, ssoTestBed } from "@/lib/auth/accounts/sso-test-bed";
import { beginSso } from "@/lib/auth/oidc";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import { startStartup } from "@/lib/server/startup";
import { walkProvider } from "@/lib/test-helpers/oidc-provider";

const bed = ssoTestBed("sso-callback-audit-", { OIDC_GROUP_ROLES: "kb-editors=editor" });

beforeAll(async () => {
  Object.assign(process.env, { DATA_DIR: bed.dir, KNOWLEDGE_DIR: `${bed.dir}/none` });
  delete process.env.TRUSTED_PROXIES;
  // The route reads the process's store: the bed's.
  (globalThis as Record<symbol, unknown>)[Symbol.for("kb-mcp-chat.store")] = new Map([["store", Promise.resolve(bed.store)]]);
  // Start-up (which the route waits for) runs while single sign-on is off, so it leaves no scheduled re-check
  // (a process-wide interval) on this store in the test worker after the file.
  const issuer = process.env.OIDC_ISSUER;
  delete process.env.OIDC_ISSUER;
  await startStartup();
  process.env.OIDC_ISSUER = issuer;
});

/** `login` (with `claims`) signs in at the provider; its redirect reaches the callback route from `peer`. */
async function callback(login: string, claims: Record<string, unknown>, peer: string): Promise<Response> {
  bed.idp.claims.set(login, claims);
  const { location, cookie } = await beginSso();
  const back = await walkProvider(location, login, `${APP}/api/auth/oidc/callback`);
  return GET(new Request(back, { headers: { cookie: cookie.split(";")[0], [PEER_HEADER]: peerHeaderFor(peer) } }));
}

describe("the single sign-on callback", () => {
  it("the verified owner of an address claims the account made from it unverified, and the audit log names the unlinked identity", async () => {
    const squat = await callback("mallory", { email: "victim@corp.test", groups: ["kb-editors"] }, "10.71.0.1");
    expect(squat.headers.get("location")).toBe("/");
    const log = await getAuditLog(bed.store);
    const [joined] = await log.list({ action: "user_join", actor: "victim@corp.test" });
    expect(joined).toBeDefined();

    const owner = await callback("victim-sub", { email: "victim@corp.test", email_verified: true, groups: ["kb-editors"] }, "10.71.0.2");
    expect(owner.headers.get("location")).toBe("/");
    const rows = await log.list({ action: "user_update", actor: "victim@corp.test" });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actorId: joined.actorId, target: "victim@corp.test", address: "10.71.0.2" });
    expect(rows[0].detail).toBe(
      `sso: the verified owner of the address claimed the account made from it unverified (${bed.idp.issuer} mallory unlinked); its sessions, tokens and OAuth grants were revoked`,
    );
  });
});
