/**
 * Accounts on a real LanceDB store in a temp dir: invites (single use, expiry, bound e-mail), sign-in, the
 * access check with session cookies and CSRF, role and grant changes taking effect at once, removal, the
 * single-sign-on join rules, the cookie flags and the audit log.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { auditCsv, getAuditLog } from "@/lib/audit/log";
import { kbsOf } from "@/lib/audit/record";
import { ssoQualifies } from "@/lib/auth/oidc";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import { authenticateApp, limitOfPrincipal, type Principal } from "@/lib/auth/principal";
import { testAuthSettings } from "@/lib/auth/test-settings";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { AppError } from "@/lib/types";
import { acceptInvite, cancelInvite, deleteUser, describeInvite, invite, listPeople, signIn, updateUser } from "./service";
import { CSRF_HEADER, startSession } from "./sessions";
import { type AccountStore, getAccountStore } from "./store";

let temp: TempStore;
let store: Store;
let accounts: AccountStore;
const KNOWN = ["default", "hr", "finance"];
const settings = testAuthSettings({ adminToken: "the-admin-secret" });

beforeAll(async () => {
  temp = await openTempStore("accounts-", 64);
  store = temp.store;
  accounts = await getAccountStore(store);
});
afterAll(() => temp?.close());
afterEach(() => {
  delete process.env.PUBLIC_URL;
});

const secretOf = (link: string) => link.slice(link.indexOf("#") + 1);
const cookieValue = (setCookie: string) => setCookie.slice(setCookie.indexOf("=") + 1, setCookie.indexOf(";"));

/** A request from a remote address with these headers. */
function remote(method: string, headers: Record<string, string> = {}): Request {
  return new Request("http://10.0.0.1:3000/api/documents", {
    method,
    headers: { host: "10.0.0.1:3000", [PEER_HEADER]: peerHeaderFor("10.0.0.9"), ...headers },
  });
}
const check = (req: Request): Promise<Principal | AppError> =>
  authenticateApp(req, { accounts: async () => accounts, settings }).catch((e: unknown) => {
    if (e instanceof AppError) return e;
    throw e;
  });

describe("invites and sign-in", () => {
  it("an invite is single use, bound to its e-mail, and signs the new person in", async () => {
    const { link } = await invite(accounts, { email: "Reader@Team.test", role: "reader", kbs: ["hr"] }, "admin secret", KNOWN);
    const plain = secretOf(link);
    expect(await describeInvite(accounts, plain)).toMatchObject({ email: "reader@team.test", role: "reader", kbs: ["hr"] });
    await expect(
      acceptInvite(accounts, { invite: plain, email: "other@team.test", name: "", password: "long enough pw" }, 1),
    ).rejects.toThrow(/for reader@team.test/);
    const joined = await acceptInvite(accounts, { invite: plain, email: "reader@team.test", name: "Rea", password: "long enough pw" }, 1);
    expect(joined.user).toMatchObject({ role: "reader", kbs: ["hr"], name: "Rea" });
    expect(joined.cookies[0]).toMatch(/^kb_session=kbs_/);
    await expect(
      acceptInvite(accounts, { invite: plain, email: "reader@team.test", name: "", password: "long enough pw" }, 1),
    ).rejects.toThrow(/invalid, used or expired/);
  });

  it("an expired invite is refused, and an invite cannot grant a knowledge base that does not exist", async () => {
    const { link } = await invite(accounts, { role: "editor", kbs: ["hr"] }, "admin", KNOWN, -1);
    await expect(describeInvite(accounts, secretOf(link))).rejects.toThrow(/expired/);
    await expect(invite(accounts, { role: "editor", kbs: ["nope"] }, "admin", KNOWN)).rejects.toThrow(/no knowledge base named "nope"/);
  });

  it("a pending invite can be cancelled: its link stops working", async () => {
    const { link } = await invite(accounts, { email: "maybe@team.test", role: "reader", kbs: ["hr"] }, "admin", KNOWN);
    const pending = (await listPeople(accounts)).invites.find((i) => i.email === "maybe@team.test")!;
    expect(pending.id).toMatch(/^[a-f0-9]{64}$/);
    expect(await cancelInvite(accounts, pending.id)).toMatchObject({ email: "maybe@team.test", kbs: ["hr"] });
    await expect(describeInvite(accounts, secretOf(link))).rejects.toThrow(/invalid, used or expired/);
    expect((await listPeople(accounts)).invites.map((i) => i.email)).not.toContain("maybe@team.test");
    await expect(cancelInvite(accounts, pending.id)).rejects.toThrow(/no such pending invite/);
  });

  it("signs in with the right password only (passwords are Argon2id hashes)", async () => {
    expect(await signIn(accounts, "reader@team.test", "wrong password", 1)).toBeNull();
    expect(await signIn(accounts, "nobody@team.test", "long enough pw", 1)).toBeNull();
    const ok = await signIn(accounts, "READER@team.test", "long enough pw", 1);
    expect(ok?.user.email).toBe("reader@team.test");
    expect(ok?.user.passwordHash).toMatch(/^\$argon2id\$/);
  });
});

describe("the access check with sessions", () => {
  it("a session cookie is a person with their grants; a change needs the session's CSRF token", async () => {
    const { cookies } = (await signIn(accounts, "reader@team.test", "long enough pw", 1))!;
    const cookie = cookies.map((c) => c.slice(0, c.indexOf(";"))).join("; ");
    const csrf = cookieValue(cookies[1]);
    const p = await check(remote("GET", { cookie }));
    expect(p).toMatchObject({ kind: "user", user: { email: "reader@team.test" } });
    expect(limitOfPrincipal(p as Principal)).toEqual({ kbs: ["hr"], write: false });
    expect(await check(remote("POST", { cookie }))).toMatchObject({ status: 403, message: /CSRF/ });
    expect(await check(remote("POST", { cookie, [CSRF_HEADER]: "forged" }))).toMatchObject({ status: 403 });
    expect(await check(remote("POST", { cookie, [CSRF_HEADER]: csrf }))).toMatchObject({ kind: "user" });
    // A cookie from nowhere is nobody: remote requests then need the admin secret.
    expect(await check(remote("GET", { cookie: "kb_session=kbs_made-up" }))).toMatchObject({ status: 401 });
  });

  it("a role or grant change holds on the next request; a removed person's sessions end", async () => {
    const { cookies, user } = (await signIn(accounts, "reader@team.test", "long enough pw", 1))!;
    const cookie = cookies[0].slice(0, cookies[0].indexOf(";"));
    await updateUser(accounts, user.id, { role: "editor", kbs: ["finance"] }, KNOWN);
    expect(limitOfPrincipal((await check(remote("GET", { cookie }))) as Principal)).toEqual({ kbs: ["finance"], write: true });
    await deleteUser(accounts, user.id);
    expect(await check(remote("GET", { cookie }))).toMatchObject({ status: 401 });
  });

  it("a deleted knowledge base leaves every grant", async () => {
    const { link } = await invite(accounts, { email: "ed@team.test", role: "editor", kbs: ["finance", "hr"] }, "admin", KNOWN);
    const { user } = await acceptInvite(
      accounts,
      { invite: secretOf(link), email: "ed@team.test", name: "", password: "long enough pw" },
      1,
    );
    await accounts.removeKb("finance");
    await accounts.renameKb("hr", "people");
    expect((await accounts.users()).get(user.id)?.kbs).toEqual(["people"]);
  });

  it("an owner is set once: nobody can claim what another made", async () => {
    await accounts.setOwner("conversation", "c1", "usr_a");
    await expect(accounts.setOwner("conversation", "c1", "usr_b")).rejects.toThrow(/belongs to someone/);
    expect((await accounts.owners("conversation")).get("c1")).toBe("usr_a");
  });
});

describe("session cookies", () => {
  it("are HttpOnly and SameSite=Lax, and Secure behind https", async () => {
    const user = [...(await accounts.users()).values()][0];
    const [session, csrf] = await startSession(accounts, user, 1);
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).not.toMatch(/Secure/);
    expect(csrf).not.toMatch(/HttpOnly/);
    process.env.PUBLIC_URL = "https://kb.example.com";
    const [secure] = await startSession(accounts, user, 1);
    expect(secure).toMatch(/; Secure/);
  });
});

describe("single sign-on rules", () => {
  const cfg = {
    issuer: "https://id.example.com",
    clientId: "kb",
    clientSecret: undefined,
    name: "SSO",
    allowedDomains: ["example.com"],
    groupsClaim: "groups",
    groupRoles: ["kb-admins=admin", "kb-editors=editor"],
    defaultRole: "reader",
    defaultKbs: ["hr"],
    recheckSeconds: 900,
    recheckGraceHours: 24,
    allowInsecureIssuer: false,
  };
  it("gives an allowed domain the default role, a listed group its role, and refuses the rest", () => {
    expect(ssoQualifies({ email: "Ann@Example.com", emailVerified: true, groups: [] }, cfg)).toEqual({ role: "reader", groupRole: null });
    expect(ssoQualifies({ email: "boss@else.org", emailVerified: false, groups: ["kb-editors", "kb-admins"] }, cfg)).toEqual({
      role: "admin",
      groupRole: "admin",
    });
    expect(ssoQualifies({ email: "eve@else.org", emailVerified: true, groups: ["staff"] }, cfg)).toEqual({ refused: "sso_not_allowed" });
    expect(ssoQualifies({ email: "ann@example.com", emailVerified: false, groups: [] }, cfg)).toEqual({ refused: "sso_unverified" });
    expect(ssoQualifies({ email: "ann@example.com.evil.org", emailVerified: true, groups: [] }, cfg)).toEqual({
      refused: "sso_not_allowed",
    });
  });
});

describe("audit log", () => {
  it("lists what was recorded, filtered, newest first, and exports CSV safe for spreadsheets", async () => {
    const log = await getAuditLog(store);
    // Every event of this test in the same millisecond: the order must not depend on the clock.
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-03-01T10:00:00.000Z") });
    onTestFinished(() => void vi.useRealTimers());
    log.record({
      actor: "a@team.test",
      actorId: null,
      action: "document_upload",
      outcome: "ok",
      target: "d1",
      kb: "hr",
      detail: "x.md",
      address: "10.0.0.9",
    });
    log.record({
      actor: "b@team.test",
      actorId: null,
      action: "sign_in_failed",
      outcome: "failed",
      target: null,
      kb: null,
      detail: '=HYPERLINK("x")',
      address: "10.0.0.8",
    });
    const all = await log.list();
    expect(new Set(all.map((e) => e.at)).size).toBe(1);
    expect(all.map((e) => e.action).slice(0, 2)).toEqual(["sign_in_failed", "document_upload"]);
    expect((await log.list({ action: "document_upload" })).map((e) => e.actor)).toEqual(["a@team.test"]);
    expect((await log.list({ actor: "B@TEAM" })).map((e) => e.action)).toEqual(["sign_in_failed"]);
    expect(await log.list({ kb: "finance" })).toEqual([]);
    // A grant, invite or role change about several knowledge bases names them all; a kb filter finds it by any.
    log.record({ ...all[1], action: "user_invite", kb: kbsOf(["hr", "finance"]) });
    expect((await log.list({ kb: "finance" })).map((e) => [e.action, e.kb])).toEqual([["user_invite", "finance,hr"]]);
    expect((await log.list({ kb: "hr" })).map((e) => e.action)).toEqual(["user_invite", "document_upload"]);
    const csv = auditCsv(all);
    expect(csv.split("\r\n")[0]).toBe('"at","actor","action","outcome","kb","target","detail","address"');
    expect(csv).toContain(`"'=HYPERLINK(""x"")"`);
    // Every cell quoted: a semicolon inside one never starts a cell (a formula) in a semicolon locale.
    const semi = auditCsv([{ ...all[0], actor: ";=1+1", detail: "x;=1+1" }]).split("\r\n")[1];
    expect(semi).toMatch(/^("[^"]*",){7}"[^"]*"$/);
    expect(semi).toContain(`"';=1+1"`);
    expect(semi).toContain(`"x;=1+1"`);
  });
});
