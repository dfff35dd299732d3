import { z } from "zod";
import type { Principal } from "@/lib/auth/principal";
import { requireOwn } from "@/lib/auth/scope";
import { conversationIdSchema } from "@/lib/conversations/schema";
import { getShares, shareLinkOf, snapshotOf } from "@/lib/conversations/shares";
import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";
import type { Store } from "@/lib/store";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const conversationRoute = { params: z.object({ id: conversationIdSchema }), notFound: "There is no such conversation." };

/** The caller's own conversation `id`; 404 for anyone else's or one that does not exist. */
async function ownConversation(principal: Principal, store: Store, id: string) {
  await requireOwn(principal, store, "conversation", id);
  const conversation = await (await getConversations(store)).get(id);
  if (!conversation) throw new AppError("not_found", `No conversation with id "${id}".`);
  return conversation;
}

/** GET /api/conversations/<id>/share — the conversation's share link (`stale` when the conversation changed since), or null. */
export const GET = route(conversationRoute, async ({ params: { id }, store, principal }) => {
  const conversation = await ownConversation(principal, await store(), id);
  const share = await (await getShares(await store())).of(id);
  return { share: share && shareLinkOf(share, conversation) };
});

/** POST /api/conversations/<id>/share — makes (or returns) the conversation's read-only link: a snapshot of it as it is now. */
export const POST = route({ ...conversationRoute, status: 201 }, async ({ params: { id }, store, principal }) => {
  const conversation = await ownConversation(principal, await store(), id);
  const share = await (await getShares(await store())).create(id, snapshotOf(conversation));
  return { share: shareLinkOf(share, conversation) };
});

/** PUT /api/conversations/<id>/share — "Update link": the same link now shows the conversation as it is now. */
export const PUT = route(conversationRoute, async ({ params: { id }, store, principal }) => {
  const conversation = await ownConversation(principal, await store(), id);
  const share = await (await getShares(await store())).update(id, snapshotOf(conversation));
  if (!share) throw new AppError("not_found", "This conversation has no share link.");
  return { share: shareLinkOf(share, conversation) };
});

/** DELETE /api/conversations/<id>/share — revokes the link: it answers 404 from then on. */
export const DELETE = route(conversationRoute, async ({ params: { id }, store, principal }) => {
  await requireOwn(principal, await store(), "conversation", id);
  if (!(await (await getShares(await store())).revoke(id))) throw new AppError("not_found", "This conversation has no share link.");
  return { revoked: id };
});
