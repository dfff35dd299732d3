import { actorOf, kbsOf } from "@/lib/audit/record";
import { inviteSchema } from "@/lib/auth/accounts/schema";
import { invite } from "@/lib/auth/accounts/service";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { resolveAuthSettings } from "@/lib/auth/config";
import { knownKbs } from "@/lib/kb/known";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/invites {email?, role, kbs} — a single-use invite link (admins only); shown once. */
export const POST = route({ access: "admin", status: 201 }, async ({ body, store, registry, principal, audit }) => {
  const input = await body(inviteSchema);
  const ready = await store();
  const accounts = await getAccountStore(ready);
  const made = await invite(
    accounts,
    input,
    actorOf(principal),
    await knownKbs(ready, await registry()),
    resolveAuthSettings().inviteHours,
  );
  await audit("user_invite", {
    target: input.email ?? null,
    kb: kbsOf(input.role === "admin" ? [] : input.kbs),
    detail: `role ${input.role}${input.kbs.length ? `: ${input.kbs.join(", ")}` : ""}`,
  });
  return made;
});
