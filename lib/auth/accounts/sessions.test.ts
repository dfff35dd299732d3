/**
 * Sessions on a real LanceDB store: a reset or changed password ends the person's other sessions, "sign out
 * everywhere" ends them all, and the admin secret becomes a session of its own (the browser never keeps the
 * secret) that ends when the secret changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminSecretFingerprint } from "@/lib/auth/admin-secret";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import { authenticateApp, type Principal } from "@/lib/auth/principal";
import { testAuthSettings } from "@/lib/auth/test-settings";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { AppError } from "@/lib/types";
import { changePassword, createUser, signIn, updateUser } from "./service";
import { adminSessionUserId, CSRF_HEADER, startSession } from "./sessions";
import { type AccountStore, getAccountStore } from "./store";

let temp: TempStore;
let store: Store;
let accounts: AccountStore;
const PASSWORD = "the first password";

beforeAll(async () => {
  temp = await openTempStore("sessions-", 64);
  store = temp.store;
  accounts = await getAccountStore(store);
});
afterAll(() => temp?.close());

const cookieOf = (cookies: string[]) => cookies.map((c) => c.slice(0, c.indexOf(";"))).join("; ");
const csrfOf = (cookies: string[]) => cookies[1].slice(cookies[1].indexOf("=") + 1, cookies[1].indexOf(";"));
function remote(method: string, headers: Record<string, string> = {}): Request {
  return new Request("http://10.0.0.1:3000/api/documents", {
    method,
    headers: { host: "10.0.0.1:3000", [PEER_HEADER]: peerHeaderFor("10.0.0.9"), ...headers },
  });
}
const check = (req: Request, adminToken = "the-admin-secret"): Promise<Principal | AppError> =>
  authenticateApp(req, { accounts: async () => accounts, settings: testAuthSettings({ adminToken }) }).catch((e: unknown) => {
    if (e instanceof AppError) return e;
    throw e;
  });
const who = async (cookies: string[]) => {
  const p = await check(remote("GET", { cookie: cookieOf(cookies) }));
  return p instanceof AppError ? p.status : p.kind;
};

describe("passwords and sessions", () => {
  it("an admin's password reset ends every session of that person", async () => {
    const { id } = await createUser(accounts, { email: "kim@team.test", name: "", password: PASSWORD, role: "reader", kbs: [] }, []);
    const phone = (await signIn(accounts, "kim@team.test", PASSWORD, 1))!.cookies;
    const laptop = (await signIn(accounts, "kim@team.test", PASSWORD, 1))!.cookies;
    expect([await who(phone), await who(laptop)]).toEqual(["user", "user"]);
    await updateUser(accounts, id, { password: "a brand new password" }, []);
    expect([await who(phone), await who(laptop)]).toEqual([401, 401]);
    expect(await signIn(accounts, "kim@team.test", PASSWORD, 1)).toBeNull();
  });

  it("changing one's own password needs the current one and ends every other session, not this one", async () => {
    await createUser(accounts, { email: "lee@team.test", name: "", password: PASSWORD, role: "reader", kbs: [] }, []);
    const here = (await signIn(accounts, "lee@team.test", PASSWORD, 1))!.cookies;
    const there = (await signIn(accounts, "lee@team.test", PASSWORD, 1))!.cookies;
    const me = (await check(remote("GET", { cookie: cookieOf(here) }))) as Extract<Principal, { kind: "user" }>;
    await expect(changePassword(accounts, me, "not my password", "a brand new password")).rejects.toThrow(/current password is wrong/);
    expect(await who(there)).toBe("user");
    await changePassword(accounts, me, PASSWORD, "a brand new password");
    expect([await who(here), await who(there)]).toEqual(["user", 401]);
    expect(await signIn(accounts, "lee@team.test", "a brand new password", 1)).not.toBeNull();
  });

  it("sign out everywhere ends every session of the person", async () => {
    const one = (await signIn(accounts, "lee@team.test", "a brand new password", 1))!;
    const two = (await signIn(accounts, "lee@team.test", "a brand new password", 1))!;
    await accounts.deleteSessions(one.user.id);
    expect([await who(one.cookies), await who(two.cookies)]).toEqual([401, 401]);
  });
});

describe("the admin secret as a session", () => {
  it("is the owner with a CSRF token, holds no secret, and ends when the secret changes", async () => {
    const cookies = await startSession(accounts, { id: adminSessionUserId(adminSecretFingerprint("the-admin-secret")!) }, 1);
    expect(cookies.join(" ")).not.toContain("the-admin-secret");
    const cookie = cookieOf(cookies);
    expect(await check(remote("GET", { cookie }))).toMatchObject({
      kind: "owner",
      via: "admin-secret",
      session: { csrf: csrfOf(cookies) },
    });
    expect(await check(remote("POST", { cookie }))).toMatchObject({ status: 403, message: /CSRF/ });
    expect(await check(remote("POST", { cookie, [CSRF_HEADER]: csrfOf(cookies) }))).toMatchObject({ kind: "owner" });
    // A new ADMIN_TOKEN (or a deleted secret file): sessions the old secret made are nobody.
    expect(await check(remote("GET", { cookie }), "a-new-admin-secret")).toMatchObject({ status: 401 });
  });
});
