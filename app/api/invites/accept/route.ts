import { z } from "zod";
import { audit, kbsOf } from "@/lib/audit/record";
import { acceptInviteSchema } from "@/lib/auth/accounts/schema";
import { acceptInvite, describeInvite } from "@/lib/auth/accounts/service";
import { withCookies } from "@/lib/auth/accounts/sessions";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { resolveAuthSettings } from "@/lib/auth/config";
import { callerOf } from "@/lib/auth/peer";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const peekSchema = z.strictObject({ invite: acceptInviteSchema.shape.invite });

/** PUT /api/invites/accept {invite} — what the invite grants, without using it (the join page shows it). */
export const PUT = route({ access: "open" }, async ({ body, store }) => {
  const { invite } = await body(peekSchema);
  return { invite: await describeInvite(await getAccountStore(await store()), invite) };
});

/** POST /api/invites/accept {invite, email, name?, password} — makes the account and signs it in. */
export const POST = route({ access: "open", status: 201 }, async ({ req, body, store }) => {
  const input = await body(acceptInviteSchema);
  const settings = resolveAuthSettings();
  const { user, cookies } = await acceptInvite(await getAccountStore(await store()), input, settings.sessionHours);
  const address = callerOf(req, settings.trustedProxies).address;
  await audit(null, "user_join", {
    actor: user.email,
    actorId: user.id,
    address,
    target: user.email,
    kb: kbsOf(user.kbs),
    detail: `role ${user.role}`,
  });
  const { id, email, name, role, kbs } = user;
  return withCookies({ viewer: { kind: "user", id, email, name, role, kbs } }, cookies, { status: 201 });
});
