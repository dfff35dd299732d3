import { z } from "zod";
import { shareTokenSchema } from "@/lib/conversations/schema";
import { getShares, sharedView } from "@/lib/conversations/shares";
import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const gone = "This share link does not exist or was revoked.";

/** GET /api/shared/<token> — the shared conversation, read-only, for whoever may read every knowledge base it cites. */
export const GET = route(
  { params: z.object({ token: shareTokenSchema }), notFound: gone },
  async ({ params: { token }, store, principal }) => {
    const share = await (await getShares(await store())).byToken(token);
    const conversation = share && (await (await getConversations()).get(share.conversationId));
    if (!conversation) throw new AppError("not_found", gone);
    return { conversation: sharedView(principal, conversation) };
  },
);
