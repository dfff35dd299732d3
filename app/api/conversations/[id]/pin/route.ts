import { z } from "zod";
import { requireOwn } from "@/lib/auth/scope";
import { getPins } from "@/lib/conversations/pins";
import { conversationIdSchema, pinSchema } from "@/lib/conversations/schema";
import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const params = z.object({ id: conversationIdSchema });

/** PUT /api/conversations/<id>/pin {pinned} — pins the conversation to the top of the list, or unpins it. */
export const PUT = route({ params, notFound: "There is no such conversation." }, async ({ body, params: { id }, store, principal }) => {
  await requireOwn(principal, await store(), "conversation", id);
  const { pinned } = await body(pinSchema);
  if (!(await (await getConversations()).get(id))) throw new AppError("not_found", `No conversation with id "${id}".`);
  await (await getPins(await store())).set(id, pinned);
  return { id, pinned };
});
