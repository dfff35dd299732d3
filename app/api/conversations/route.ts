import { ownerIdOf } from "@/lib/auth/principal";
import { isOwn, ownersOf, recordOwner } from "@/lib/auth/scope";
import { getPins, withPins } from "@/lib/conversations/pins";
import { createConversation } from "@/lib/conversations/save";
import { readablePicks } from "@/lib/conversations/scope";
import { getShares } from "@/lib/conversations/shares";
import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";
import { createConversationSchema, listConversationsSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/conversations?q=&kb= — saved conversations, pinned ones first, then newest first (summaries, no messages; `shared` when it has a share link). */
export const GET = route({}, async ({ req, store, principal }) => {
  const params = new URL(req.url).searchParams;
  const opts = listConversationsSchema.parse({ q: params.get("q") ?? undefined, kb: params.get("kb") ?? undefined });
  const owners = await ownersOf(await store(), "conversation");
  const own = (await (await getConversations()).list(opts)).filter((c) => isOwn(principal, owners, c.id));
  const shared = new Set((await (await getShares(await store())).all()).map((s) => s.conversationId));
  const conversations = withPins(own, await (await getPins(await store())).all()).map((c) => ({ ...c, shared: shared.has(c.id) }));
  return { conversations };
});

/**
 * POST /api/conversations {id?, title?, kbs?, documents?, messages?} — starts a conversation (of `documents`, those the caller may read); its answers are the
 * server's own copies of them (lib/conversations/save.ts).
 */
export const POST = route({ status: 201 }, async ({ body, store, principal }) => {
  const input = await body(createConversationSchema);
  const documents = await readablePicks(principal, await store(), input.documents);
  const conversation = await createConversation(await store(), ownerIdOf(principal), { ...input, documents });
  await recordOwner(principal, await store(), "conversation", conversation.id);
  return { conversation };
});
