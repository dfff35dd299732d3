import { z } from "zod";
import { kbsOf } from "@/lib/audit/record";
import { getOAuthStore, grantIdSchema } from "@/lib/auth/oauth/store";
import { mayManage, ownersOf } from "@/lib/auth/scope";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** DELETE /api/oauth/grants/<id> — revokes a connected app: none of its tokens works any more. */
export const DELETE = route(
  { params: z.object({ id: grantIdSchema }), notFound: "There is no such connected app." },
  async ({ params: { id }, store, principal, audit }) => {
    const ready = await store();
    const oauth = await getOAuthStore(ready);
    const grant = await oauth.getGrant(id);
    if (!grant || !mayManage(principal, await ownersOf(ready, "oauth_grant"), id)) {
      throw new AppError("not_found", "There is no such connected app.");
    }
    await oauth.revokeGrant(id);
    await audit("oauth_revoke", { target: id, kb: kbsOf(grant.kbs), detail: grant.clientName });
    return { revoked: id };
  },
);
