import { z } from "zod";
import { audit, kbsOf } from "@/lib/audit/record";
import { acceptInviteSchema } from "@/lib/auth/accounts/schema";
import { acceptInvite, describeInvite } from "@/lib/auth/accounts/service";
import { withCookies } from "@/lib/auth/accounts/sessions";
import { releaseUnverified } from "@/lib/auth/accounts/sso";
import { ssoDepsOf } from "@/lib/auth/accounts/sso-recheck";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { resolveAuthSettings } from "@/lib/auth/config";
import { callerOf } from "@/lib/auth/peer";
import { authFailures } from "@/lib/auth/request";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const peekSchema = z.strictObject({ invite: acceptInviteSchema.shape.invite });

/**
 * Runs `use` of an invite under the address's failed-authentication budget: an unknown invite is a guess
 * (an invite is a credential), and once over the budget nothing is looked up.
 */
async function guarded<T>(req: Request, use: () => Promise<T>): Promise<T> {
  const settings = resolveAuthSettings();
  const failures = authFailures(settings, callerOf(req, settings));
  if (failures.addressBlocked())
    throw new AppError("rate_limited", "Too many invalid invite links from this address; try again in a minute.");
  try {
    return await use();
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") failures.fail();
    throw err;
  }
}

/** PUT /api/invites/accept {invite} — what the invite grants, without using it (the join page shows it). */
export const PUT = route({ access: "open" }, async ({ req, body, store }) => {
  const { invite } = await body(peekSchema);
  return { invite: await guarded(req, async () => describeInvite(await getAccountStore(await store()), invite)) };
});

/** POST /api/invites/accept {invite, email, name?, password} — makes the account and signs it in. */
export const POST = route({ access: "open", status: 201 }, async ({ req, body, store }) => {
  const input = await body(acceptInviteSchema);
  const settings = resolveAuthSettings();
  const { user, cookies, claimed } = await guarded(req, async () => {
    const ready = await store();
    const release = async (id: string) => releaseUnverified(await ssoDepsOf(ready), id);
    return acceptInvite(await getAccountStore(ready), input, settings.sessionHours, release);
  });
  const address = callerOf(req, settings).address;
  if (claimed)
    await audit(null, "user_update", {
      actor: user.email,
      actorId: user.id,
      address,
      target: user.email,
      detail: `invite: the invited owner of the address claimed the account single sign-on made from it unverified (${claimed.subjects.join(", ") || "no identity left"} unlinked); its sessions, tokens and OAuth grants were revoked`,
    });
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
