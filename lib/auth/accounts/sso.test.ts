/**
 * Single sign-on against a real OpenID provider (node-oidc-provider on a loopback port) whose ID tokens leave
 * out `email_verified` unless a test gives it, the real openid-client code exchange, and accounts on a real
 * LanceDB store: no takeover of an existing account by e-mail, no merge into an address typed at an unbound
 * invite, identities linked by issuer + subject, and OIDC_GROUP_ROLES applied at every sign-in.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { beginSso, finishSso, flowCookieValue } from "@/lib/auth/oidc";
import { getConfig } from "@/lib/config";
import { createOfflineEmbedder } from "@/lib/embed";
import { openStore, type Store } from "@/lib/store";
import { startTestProvider, type TestProvider, walkProvider } from "@/lib/test-helpers/oidc-provider";
import { acceptInvite, createUser, invite } from "./service";
import { signInWithSso } from "./sso";
import { type AccountStore, getAccountStore } from "./store";

const APP = "http://app.test";
const CALLBACK = `${APP}/api/auth/oidc/callback`;
const KNOWN = ["default", "hr"];
let dir: string;
let store: Store;
let accounts: AccountStore;
let idp: TestProvider;
const saved = { ...process.env };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "sso-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
  accounts = await getAccountStore(store);
  idp = await startTestProvider({ clientId: "kb-app", clientSecret: "kb-app-secret", redirectUri: CALLBACK });
  Object.assign(process.env, {
    PUBLIC_URL: APP,
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: "kb-app",
    OIDC_CLIENT_SECRET: "kb-app-secret",
    OIDC_ALLOW_INSECURE_ISSUER: "1",
    OIDC_ALLOWED_DOMAINS: "example.com",
    OIDC_GROUP_ROLES: "kb-admins=admin,kb-editors=editor",
    OIDC_DEFAULT_KBS: "hr",
  });
});
afterAll(async () => {
  process.env = saved;
  await idp?.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** One whole sign-in through the provider as `login` (whose claims are `claims`), then the app's decision. */
async function sso(login: string, claims: Record<string, unknown>) {
  idp.claims.set(login, claims);
  const { location, cookie } = await beginSso();
  const back = await walkProvider(location, login, CALLBACK);
  const got = await finishSso(back, flowCookieValue(cookie.split(";")[0]));
  return signInWithSso(accounts, got, getConfig().oidc, 1);
}

describe("single sign-on with a real provider", () => {
  it("an ID token without email_verified is unverified: no takeover of an admin's password account, not even by a group", async () => {
    await createUser(accounts, { email: "admin@example.com", name: "", password: "admin password!", role: "admin", kbs: [] }, KNOWN);
    await createUser(accounts, { email: "root@corp.test", name: "", password: "root password!!", role: "admin", kbs: [] }, KNOWN);
    expect(await sso("attacker-1", { email: "admin@example.com", name: "Eve" })).toEqual({ refused: "sso_unverified" });
    // A group qualifies the person, but never lets them into an account by an address the provider did not verify.
    expect(await sso("attacker-2", { email: "admin@example.com", groups: ["kb-admins"] })).toEqual({ refused: "sso_account_exists" });
    // Verified, but outside OIDC_ALLOWED_DOMAINS: the provider cannot speak for that address.
    expect(await sso("attacker-3", { email: "root@corp.test", email_verified: true, groups: ["kb-admins"] })).toEqual({
      refused: "sso_account_exists",
    });
    const users = [...(await accounts.users()).values()];
    expect(users.map((u) => u.email).sort()).toEqual(["admin@example.com", "root@corp.test"]);
  });

  it("links an existing account by e-mail only with email_verified: true in an allowed domain, then by issuer + subject", async () => {
    const first = await sso("sub-admin", { email: "admin@example.com", email_verified: true, name: "Admin" });
    if ("refused" in first) throw new Error(first.refused);
    expect(first).toMatchObject({ created: false, linked: true, user: { email: "admin@example.com", role: "admin" } });
    expect(await accounts.findIdentity(idp.issuer, "sub-admin")).toMatchObject({ userId: first.user.id });
    // The provider changes the address it reports: the subject still reaches the same account.
    const again = await sso("sub-admin", { email: "renamed@example.com", email_verified: true });
    expect(again).toMatchObject({ linked: false, user: { id: first.user.id } });
  });

  it("an address chosen at an unbound invite is unverified: single sign-on never merges into it", async () => {
    const { link } = await invite(accounts, { role: "reader", kbs: ["hr"] }, "admin", KNOWN);
    const squatter = await acceptInvite(
      accounts,
      { invite: link.slice(link.indexOf("#") + 1), email: "victim@example.com", name: "", password: "squatter password" },
      1,
    );
    expect(squatter.user.origin).toBe("invite");
    expect(await sso("victim", { email: "victim@example.com", email_verified: true })).toEqual({ refused: "sso_account_exists" });
  });

  it("re-applies OIDC_GROUP_ROLES at every sign-in and refuses someone who no longer qualifies", async () => {
    const boss = await sso("boss", { email: "boss@other.test", email_verified: true, groups: ["kb-admins"] });
    expect(boss).toMatchObject({ created: true, user: { role: "admin", kbs: [] } });
    const editor = await sso("boss", { email: "boss@other.test", email_verified: true, groups: ["kb-editors"] });
    expect(editor).toMatchObject({ roleChange: { from: "admin", to: "editor" }, user: { role: "editor", kbs: ["hr"] } });
    // Out of every group and not in an allowed domain: refused, however the account was made.
    expect(await sso("boss", { email: "boss@other.test", email_verified: true, groups: [] })).toEqual({ refused: "sso_not_allowed" });

    const ann = await sso("ann", { email: "ann@example.com", email_verified: true, groups: ["kb-admins"] });
    expect(ann).toMatchObject({ created: true, user: { role: "admin" } });
    // Removed from the admin group, still in the allowed domain: back to OIDC_DEFAULT_ROLE and OIDC_DEFAULT_KBS.
    const demoted = await sso("ann", { email: "ann@example.com", email_verified: true, groups: ["staff"] });
    expect(demoted).toMatchObject({ roleChange: { from: "admin", to: "reader" }, user: { role: "reader", kbs: ["hr"] } });
    if ("refused" in demoted) throw new Error(demoted.refused);
    expect((await accounts.users()).get(demoted.user.id)?.role).toBe("reader");
  });
});
