import { z } from "zod";
import { requireOwn } from "@/lib/auth/scope";
import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";
import { conversationIdSchema, feedbackSchema } from "../../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/conversations/<id>/feedback {messageId, rating: "up"|"down"|null, note?} — rates one answer. */
export const POST = route(
  { params: z.object({ id: conversationIdSchema }), notFound: "There is no such conversation." },
  async ({ body, params: { id }, store, principal }) => {
    await requireOwn(principal, await store(), "conversation", id);
    const input = await body(feedbackSchema);
    const conversation = await (await getConversations()).setFeedback(id, input);
    return { feedback: conversation.feedback };
  },
);
