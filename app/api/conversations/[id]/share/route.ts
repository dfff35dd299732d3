import { z } from "zod";
import { requireOwn } from "@/lib/auth/scope";
import { conversationIdSchema } from "@/lib/conversations/schema";
import { getShares } from "@/lib/conversations/shares";
import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const conversationRoute = { params: z.object({ id: conversationIdSchema }), notFound: "There is no such conversation." };

/** GET /api/conversations/<id>/share — the conversation's share link, or null. */
export const GET = route(conversationRoute, async ({ params: { id }, store, principal }) => {
  await requireOwn(principal, await store(), "conversation", id);
  return { share: await (await getShares(await store())).of(id) };
});

/** POST /api/conversations/<id>/share — makes (or returns) the conversation's read-only share link. */
export const POST = route({ ...conversationRoute, status: 201 }, async ({ params: { id }, store, principal }) => {
  await requireOwn(principal, await store(), "conversation", id);
  if (!(await (await getConversations()).get(id))) throw new AppError("not_found", `No conversation with id "${id}".`);
  return { share: await (await getShares(await store())).create(id) };
});

/** DELETE /api/conversations/<id>/share — revokes the link: it answers 404 from then on. */
export const DELETE = route(conversationRoute, async ({ params: { id }, store, principal }) => {
  await requireOwn(principal, await store(), "conversation", id);
  if (!(await (await getShares(await store())).revoke(id))) throw new AppError("not_found", "This conversation has no share link.");
  return { revoked: id };
});
