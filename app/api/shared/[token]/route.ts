import { z } from "zod";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { limitOf } from "@/lib/auth/roles";
import { ownersOf } from "@/lib/auth/scope";
import { shareTokenSchema } from "@/lib/conversations/schema";
import { getShares, type ShareMaker, sharedView } from "@/lib/conversations/shares";
import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const gone = "This share link does not exist or was revoked.";

const maybeLimit = (user: Parameters<typeof limitOf>[0] | undefined) => (user ? limitOf(user) : null);

/** GET /api/shared/<token> — the shared conversation, read-only, for whoever may read every knowledge base whose content it holds. */
export const GET = route(
  { params: z.object({ token: shareTokenSchema }), notFound: gone },
  async ({ params: { token }, store, principal }) => {
    const share = await (await getShares(await store())).byToken(token);
    const conversation = share && (await (await getConversations()).get(share.conversationId));
    if (!conversation) throw new AppError("not_found", gone);
    // The link lives as long as the account that made it, with that account's access now.
    const makerId = (await ownersOf(await store(), "conversation")).get(conversation.id);
    const maker: ShareMaker =
      makerId === undefined ? undefined : maybeLimit((await (await getAccountStore(await store())).users()).get(makerId));
    return { conversation: sharedView(principal, conversation, maker) };
  },
);
