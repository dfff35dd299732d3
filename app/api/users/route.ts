import { kbsOf } from "@/lib/audit/record";
import { createUserSchema } from "@/lib/auth/accounts/schema";
import { createUser, listPeople } from "@/lib/auth/accounts/service";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { knownKbs } from "@/lib/kb/known";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/users — the accounts and the pending invites (admins only). */
export const GET = route({ access: "admin" }, async ({ store }) => listPeople(await getAccountStore(await store())));

/** POST /api/users {email, name?, password, role, kbs} — makes an account directly (the first admin, with the admin secret). */
export const POST = route({ access: "admin", status: 201 }, async ({ body, store, registry, audit }) => {
  const input = await body(createUserSchema);
  const ready = await store();
  const user = await createUser(await getAccountStore(ready), input, await knownKbs(ready, await registry()));
  await audit("user_join", {
    target: user.email,
    kb: kbsOf(user.kbs),
    detail: `role ${user.role}${user.kbs.length ? `: ${user.kbs.join(", ")}` : ""}`,
  });
  return { user };
});
