import { z } from "zod";
import { kbsOf } from "@/lib/audit/record";
import { removeAccount } from "@/lib/auth/accounts/remove";
import { updateUserSchema, userIdSchema } from "@/lib/auth/accounts/schema";
import { updateUser } from "@/lib/auth/accounts/service";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { knownKbs } from "@/lib/kb/known";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const userRoute = { access: "admin" as const, params: z.object({ id: userIdSchema }), notFound: "There is no such user." };

/** PATCH /api/users/<id> {role?, kbs?, name?, password?} — takes effect on the person's next request. */
export const PATCH = route(userRoute, async ({ params: { id }, body, store, registry, audit }) => {
  const patch = await body(updateUserSchema);
  const ready = await store();
  const user = await updateUser(await getAccountStore(ready), id, patch, await knownKbs(ready, await registry()));
  const changed = [
    patch.role ? `role ${user.role}` : null,
    patch.kbs ? `kbs ${user.kbs.join(", ") || "none"}` : null,
    patch.password ? "password" : null,
  ];
  await audit("user_update", {
    target: user.email,
    kb: patch.role || patch.kbs ? kbsOf(user.kbs) : null,
    detail: changed.filter(Boolean).join("; ") || null,
  });
  return { user };
});

/** DELETE /api/users/<id> — removes the account: its sessions, tokens and OAuth grants stop working at once. */
export const DELETE = route(userRoute, async ({ params: { id }, store, registry, audit }) => {
  const email = await removeAccount(await store(), await registry(), id);
  await audit("user_delete", { target: email, detail: "sessions, tokens and OAuth grants revoked" });
  return { deleted: id };
});
