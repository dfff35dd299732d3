import { describe, expect, it } from "vitest";
import { getOAuthStore } from "@/lib/auth/oauth/store";
import { SsoClaimError } from "@/lib/auth/oidc";
import { getConfig } from "@/lib/config";
import { createAccessToken, getRegistry } from "@/lib/kb";
import { acceptInvite, createUser, invite } from "./service";
import { sessionUser } from "./sessions";
import { releaseUnverified, signInWithSso } from "./sso";
import { ssoDepsOf } from "./sso-recheck";
import { ssoTestBed } from "./sso-test-bed";
import { publicUser } from "./types";

const KNOWN = ["default", "hr"];
const bed = ssoTestBed("sso-", {
  OIDC_ALLOWED_DOMAINS: "example.com",
  OIDC_GROUP_ROLES: "kb-admins=admin,kb-editors=editor",
  OIDC_DEFAULT_KBS: "hr",
});

/** One whole sign-in through the provider as `login` (whose claims are `claims`), then the app's decision. */
async function sso(login: string, claims: Record<string, unknown>) {
  const got = await bed.providerSignIn(login, claims);
  return signInWithSso(await ssoDepsOf(bed.store), got, getConfig().oidc, 1);
}

describe("single sign-on with a real provider", () => {
  it("an ID token without email_verified is unverified: no takeover of an admin's password account, not even by a group", async () => {
    await createUser(bed.accounts, { email: "admin@example.com", name: "", password: "admin password!", role: "admin", kbs: [] }, KNOWN);
    await createUser(bed.accounts, { email: "root@corp.test", name: "", password: "root password!!", role: "admin", kbs: [] }, KNOWN);
    expect(await sso("attacker-1", { email: "admin@example.com", name: "Eve" })).toEqual({ refused: "sso_unverified" });
    // A group qualifies the person, but never lets them into an account by an address the provider did not verify.
    expect(await sso("attacker-2", { email: "admin@example.com", groups: ["kb-admins"] })).toEqual({ refused: "sso_account_exists" });
    // Verified, but outside OIDC_ALLOWED_DOMAINS: the provider cannot speak for that address.
    expect(await sso("attacker-3", { email: "root@corp.test", email_verified: true, groups: ["kb-admins"] })).toEqual({
      refused: "sso_account_exists",
    });
    const users = [...(await bed.accounts.users()).values()];
    expect(users.map((u) => u.email).sort()).toEqual(["admin@example.com", "root@corp.test"]);
  });

  it("links an existing account by e-mail only with email_verified: true in an allowed domain, then by issuer + subject", async () => {
    const first = await sso("sub-admin", { email: "admin@example.com", email_verified: true, name: "Admin" });
    if ("refused" in first) throw new Error(first.refused);
    expect(first).toMatchObject({ created: false, linked: true, user: { email: "admin@example.com", role: "admin" } });
    expect(await bed.accounts.findIdentity(bed.idp.issuer, "sub-admin")).toMatchObject({ userId: first.user.id });
    // The provider changes the address it reports: the subject still reaches the same account.
    const again = await sso("sub-admin", { email: "renamed@example.com", email_verified: true });
    expect(again).toMatchObject({ linked: false, user: { id: first.user.id } });
  });

  it("an address chosen at an unbound invite is unverified: single sign-on never merges into it", async () => {
    const { link } = await invite(bed.accounts, { role: "reader", kbs: ["hr"] }, "admin", KNOWN);
    const squatter = await acceptInvite(
      bed.accounts,
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
    expect(await sso("boss", { email: "boss@other.test", email_verified: true, groups: [] })).toMatchObject({ refused: "sso_not_allowed" });

    const ann = await sso("ann", { email: "ann@example.com", email_verified: true, groups: ["kb-admins"] });
    expect(ann).toMatchObject({ created: true, user: { role: "admin" } });
    // Removed from the admin group, still in the allowed domain: back to OIDC_DEFAULT_ROLE and OIDC_DEFAULT_KBS.
    const demoted = await sso("ann", { email: "ann@example.com", email_verified: true, groups: ["staff"] });
    expect(demoted).toMatchObject({ roleChange: { from: "admin", to: "reader" }, user: { role: "reader", kbs: ["hr"] } });
    if ("refused" in demoted) throw new Error(demoted.refused);
    expect((await bed.accounts.users()).get(demoted.user.id)?.role).toBe("reader");
  });

  it("never merges two people: an account made from an unverified address is marked, and its verified owner claims it from the squatter", async () => {
    // Mallory's provider account carries the victim's address, unverified; the group admits her.
    const mallory = await sso("mallory", { email: "victim@corp.test", groups: ["kb-editors"] });
    if ("refused" in mallory) throw new Error(mallory.refused);
    expect(mallory).toMatchObject({ created: true, user: { role: "editor" } });
    expect(publicUser(mallory.user).emailVerified).toBe(false);
    const registry = await getRegistry(bed.store);
    const { token } = await createAccessToken(bed.store, registry, { name: "squat", scope: "read-write", kb: null }, (id) =>
      bed.accounts.setOwner("token", id, mallory.user.id),
    );
    // Another unverified claim of the address is no owner either.
    expect(await sso("mallory-2", { email: "victim@corp.test", groups: ["kb-editors"] })).toEqual({ refused: "sso_account_exists" });

    // The verified owner of the address signs in: the account becomes theirs, nothing of Mallory's stays.
    const victim = await sso("victim-sub", { email: "victim@corp.test", email_verified: true, groups: ["kb-admins"] });
    if ("refused" in victim) throw new Error(victim.refused);
    expect(victim).toMatchObject({
      created: false,
      claimed: { subjects: [`${bed.idp.issuer} mallory`] },
      user: { id: mallory.user.id, role: "admin" },
    });
    expect(publicUser(victim.user).emailVerified).toBe(true);
    const cookie = mallory.cookies.map((c) => c.slice(0, c.indexOf(";"))).join("; ");
    expect(await sessionUser(bed.accounts, cookie)).toBeNull();
    expect((await registry.getToken(token.id))?.revoked).toBe(true);
    expect((await bed.accounts.identitiesOf(mallory.user.id)).map((i) => i.subject)).toEqual(["victim-sub"]);
    // Mallory's identity reaches nothing any more.
    expect(await sso("mallory", { email: "victim@corp.test", groups: ["kb-editors"] })).toEqual({ refused: "sso_account_exists" });
  });

  it("an invite to an address held by an unverified single-sign-on account is made, and accepting it claims the account", async () => {
    const squat = await sso("mallory-3", { email: "newhire@example.com", groups: ["kb-editors"] });
    if ("refused" in squat) throw new Error(squat.refused);
    expect(publicUser(squat.user).emailVerified).toBe(false);
    const { link } = await invite(bed.accounts, { email: "newhire@example.com", role: "reader", kbs: ["hr"] }, "admin", KNOWN);
    const deps = await ssoDepsOf(bed.store);
    const joined = await acceptInvite(
      bed.accounts,
      { invite: link.slice(link.indexOf("#") + 1), email: "newhire@example.com", name: "New Hire", password: "new hire password" },
      1,
      (id) => releaseUnverified(deps, id),
    );
    expect(joined).toMatchObject({
      claimed: { subjects: [`${bed.idp.issuer} mallory-3`] },
      user: { id: squat.user.id, role: "reader", kbs: ["hr"], origin: "local" },
    });
    expect(publicUser(joined.user).emailVerified).toBe(true);
    expect(await sessionUser(bed.accounts, squat.cookies.map((c) => c.slice(0, c.indexOf(";"))).join("; "))).toBeNull();
    expect(await sso("mallory-3", { email: "newhire@example.com", groups: ["kb-editors"] })).toEqual({ refused: "sso_account_exists" });
  });

  it("refuses a subject or e-mail claim with a NUL: a clear refusal, nothing stored", async () => {
    const before = (await bed.accounts.users()).size;
    await expect(sso("nul-mail", { email: "a\u0000b@example.com", email_verified: true })).rejects.toBeInstanceOf(SsoClaimError);
    expect((await bed.accounts.users()).size).toBe(before);
  });

  it("de-provisions an identity the provider no longer admits: no role left, sessions, tokens and OAuth grants end", async () => {
    const first = await sso("carol", { email: "carol@other.test", email_verified: true, groups: ["kb-admins"] });
    if ("refused" in first) throw new Error(first.refused);
    const cookie = first.cookies.map((c) => c.slice(0, c.indexOf(";"))).join("; ");
    const registry = await getRegistry(bed.store);
    const { token } = await createAccessToken(bed.store, registry, { name: "ci", scope: "read-write", kb: null }, (id) =>
      bed.accounts.setOwner("token", id, first.user.id),
    );
    const grantId = "oag_00000000000000c1";
    await bed.addOwnedGrant(grantId, first.user.id);
    expect(await sessionUser(bed.accounts, cookie)).not.toBeNull();

    // Removed from every group, outside the allowed domains: refused, and the account keeps nothing.
    const refused = await sso("carol", { email: "carol@other.test", email_verified: true, groups: [] });
    expect(refused).toMatchObject({ refused: "sso_not_allowed", deprovisioned: { from: "admin" } });
    expect((await bed.accounts.users()).get(first.user.id)).toMatchObject({ role: "reader", kbs: [] });
    expect(await sessionUser(bed.accounts, cookie)).toBeNull();
    expect((await registry.getToken(token.id))?.revoked).toBe(true);
    expect((await (await getOAuthStore(bed.store)).getGrant(grantId))?.revoked).toBe(true);
  });
});
