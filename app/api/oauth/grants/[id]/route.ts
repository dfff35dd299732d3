import { z } from "zod";
import { getOAuthStore, grantIdSchema } from "@/lib/auth/oauth/store";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** DELETE /api/oauth/grants/<id> — revokes a connected app: none of its tokens works any more. */
export const DELETE = route(
  { params: z.object({ id: grantIdSchema }), notFound: "There is no such connected app." },
  async ({ params: { id }, store }) => {
    const oauth = await getOAuthStore(await store());
    if (!(await oauth.getGrant(id))) throw new AppError("not_found", "There is no such connected app.", 404);
    await oauth.revokeGrant(id);
    return { revoked: id };
  },
);
