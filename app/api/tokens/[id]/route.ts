import { z } from "zod";
import { mayManage, ownersOf } from "@/lib/auth/scope";
import { revokeAccessToken } from "@/lib/kb";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";
import { tokenIdSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** DELETE /api/tokens/<id> — revokes the token at once (it stays listed as revoked). */
export const DELETE = route(
  { params: z.object({ id: tokenIdSchema }), notFound: "There is no such token." },
  async ({ params: { id }, registry, store, principal, audit }) => {
    if (!mayManage(principal, await ownersOf(await store(), "token"), id)) throw new AppError("not_found", "There is no such token.");
    await revokeAccessToken(await registry(), id);
    await audit("token_revoke", { target: id });
    return { revoked: id };
  },
);
