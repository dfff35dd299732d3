import { isOwn, ownersOf } from "@/lib/auth/scope";
import type { ShareLinkSummary } from "@/lib/conversations/schema";
import { getShares, shareLinkOf } from "@/lib/conversations/shares";
import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/shares — the caller's share links, newest first, each with its conversation's title (the owner revokes one with DELETE /api/conversations/<id>/share). */
export const GET = route({}, async ({ store, principal }) => {
  const owners = await ownersOf(await store(), "conversation");
  const own = (await (await getShares(await store())).all()).filter((s) => isOwn(principal, owners, s.conversationId));
  const titles = new Map((await (await getConversations(await store())).list()).map((c) => [c.id, c.title]));
  const shares: ShareLinkSummary[] = own
    .filter((s) => titles.has(s.conversationId))
    .map((s) => ({ ...shareLinkOf(s, null), title: titles.get(s.conversationId)! }))
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return { shares };
});
