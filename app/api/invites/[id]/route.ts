import { z } from "zod";
import { kbsOf } from "@/lib/audit/record";
import { inviteIdSchema } from "@/lib/auth/accounts/schema";
import { cancelInvite } from "@/lib/auth/accounts/service";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** DELETE /api/invites/<id> — cancels a pending invite (admins only): its link stops working. */
export const DELETE = route(
  { access: "admin", params: z.object({ id: inviteIdSchema }), notFound: "There is no such pending invite." },
  async ({ params: { id }, store, audit }) => {
    const cancelled = await cancelInvite(await getAccountStore(await store()), id);
    await audit("user_invite", {
      target: cancelled.email,
      kb: kbsOf(cancelled.kbs),
      detail: `cancelled (role ${cancelled.role}${cancelled.email ? "" : ", open invite"})`,
    });
    return { cancelled: id };
  },
);
