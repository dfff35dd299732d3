import { z } from "zod";
import { revokeAccessToken } from "@/lib/kb";
import { route } from "@/lib/server/route";
import { tokenIdSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** DELETE /api/tokens/<id> — revokes the token at once (it stays listed as revoked). */
export const DELETE = route(
  { params: z.object({ id: tokenIdSchema }), notFound: "There is no such token." },
  async ({ params: { id }, registry }) => {
    await revokeAccessToken(await registry(), id);
    return { revoked: id };
  },
);
