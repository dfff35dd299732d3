/**
 * PUT/POST /api/invites/accept (the route module itself) on a real store: an invite used with an e-mail that
 * already has an account answers as a used invite (no 409 telling who has an account), and unknown invites
 * count against the address's failed-authentication budget; an invite to an address an unverified single-sign-on
 * account holds claims that account, with an audit row.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST, PUT } from "@/app/api/invites/accept/route";
import { getAuditLog } from "@/lib/audit/log";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import { getConfig } from "@/lib/config";
import { getStore, type Store } from "@/lib/store";
import { leaveTestDataDir, useTestDataDir } from "@/lib/test-helpers/env";
import { createUser, invite } from "./service";
import { signInWithSso } from "./sso";
import { ssoDepsOf } from "./sso-recheck";
import { getAccountStore } from "./store";

const saved = { ...process.env };
let dir: string;
let store: Store;

const call = (handler: typeof POST, body: unknown, peer: string) =>
  handler(
    new Request("http://127.0.0.1/api/invites/accept", {
      method: handler === POST ? "POST" : "PUT",
      headers: { "content-type": "application/json", host: "127.0.0.1", [PEER_HEADER]: peerHeaderFor(peer) },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );

async function newInvite(email: string | null = null): Promise<string> {
  const { link } = await invite(await getAccountStore(store), { role: "reader", kbs: [], email }, "admin", []);
  return link.split("#")[1];
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "invite-accept-test-"));
  useTestDataDir(dir, { AUTH_FAILURE_LIMIT: "3" }, ["TRUSTED_PROXIES"]);
  store = await getStore();
  await createUser(
    await getAccountStore(store),
    { email: "boss@team.test", name: "Boss", password: "long enough pw", role: "admin", kbs: [] },
    [],
  );
});

afterAll(() => leaveTestDataDir(store, saved, dir));

describe("accepting an invite", () => {
  it("does not reveal that an account exists: the answer of a used invite, and the invite is used up", async () => {
    const plain = await newInvite();
    const res = await call(POST, { invite: plain, email: "Boss@team.test", password: "another long pw" }, "10.70.0.1");
    expect(res.status).toBe(404);
    const used = await call(POST, { invite: await newInvite(), email: "x@team.test", password: "long enough pw" }, "10.70.0.2");
    expect(used.status).toBe(201);
    const again = await call(POST, { invite: plain, email: "nobody@team.test", password: "long enough pw" }, "10.70.0.1");
    expect(again.status).toBe(404);
    expect(await res.json()).toEqual(await again.json());
  });

  it("claims the account single sign-on made from the invited address unverified, and the audit log says so", async () => {
    const cfg = { ...getConfig().oidc, groupRoles: ["kb-readers=reader"] };
    const claims = { subject: "mallory", email: "hire@team.test", emailVerified: false, name: "", groups: ["kb-readers"] };
    const squat = await signInWithSso(await ssoDepsOf(store), { ...claims, issuer: "https://idp.test" }, cfg, 1);
    if ("refused" in squat) throw new Error(squat.refused);
    const { link } = await invite(await getAccountStore(store), { role: "reader", kbs: [], email: "hire@team.test" }, "admin", []);
    const res = await call(POST, { invite: link.split("#")[1], email: "hire@team.test", password: "long enough pw" }, "10.70.2.1");
    expect(res.status).toBe(201);
    expect((await res.json()).viewer.id).toBe(squat.user.id);
    const rows = await (await getAuditLog(store)).list({ action: "user_update", actor: "hire@team.test" });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ target: "hire@team.test", address: "10.70.2.1" });
    expect(rows[0].detail).toContain("claimed the account single sign-on made from it unverified (https://idp.test mallory unlinked)");
  });

  it("throttles invite guesses per address", async () => {
    const guess = (n: number) => `kbi_${String(n).padStart(32, "g")}`;
    for (let i = 0; i < 3; i++) expect((await call(PUT, { invite: guess(i) }, "10.70.1.1")).status).toBe(404);
    const valid = await newInvite();
    expect((await call(PUT, { invite: valid }, "10.70.1.1")).status).toBe(429);
    expect((await call(POST, { invite: valid, email: "y@team.test", password: "long enough pw" }, "10.70.1.1")).status).toBe(429);
    expect((await call(PUT, { invite: valid }, "10.70.1.2")).status).toBe(200);
  });
});
