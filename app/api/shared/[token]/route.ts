import { z } from "zod";
import { shareTokenSchema } from "@/lib/conversations/schema";
import { openShared } from "@/lib/conversations/shares";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * GET /api/shared/<token> — the shared conversation, read-only, for whoever may read every knowledge base whose
 * content it holds; 404 once revoked or once the account that made it is removed.
 */
export const GET = route(
  { params: z.object({ token: shareTokenSchema }), notFound: "This share link does not exist or was revoked." },
  async ({ params: { token }, store, principal }) => ({ conversation: await openShared(await store(), principal, token) }),
);
