import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";
import { createConversationSchema, listConversationsSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/conversations?q=&kb= — saved conversations, newest first (summaries, no messages). */
export const GET = route({}, async ({ req }) => {
  const params = new URL(req.url).searchParams;
  const opts = listConversationsSchema.parse({ q: params.get("q") ?? undefined, kb: params.get("kb") ?? undefined });
  return { conversations: await (await getConversations()).list(opts) };
});

/** POST /api/conversations {id?, title?, kbs?, messages?} — starts a conversation. */
export const POST = route({ status: 201 }, async ({ body }) => {
  const input = await body(createConversationSchema);
  return { conversation: await (await getConversations()).create(input) };
});
