import { z } from "zod";
import { ownerIdOf } from "@/lib/auth/principal";
import { requireOwn } from "@/lib/auth/scope";
import { deleteAttachments } from "@/lib/conversations/attachments";
import { getPins } from "@/lib/conversations/pins";
import { updateConversation } from "@/lib/conversations/save";
import { inLibrary, readablePicks } from "@/lib/conversations/scope";
import { getShares } from "@/lib/conversations/shares";
import { getConversations } from "@/lib/conversations/store";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";
import { conversationIdSchema, updateConversationSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const conversationRoute = { params: z.object({ id: conversationIdSchema }), notFound: "There is no such conversation." };

/**
 * GET /api/conversations/<id> — the conversation with its messages and feedback; its picked documents without
 * those deleted from the library since or no longer readable by the caller (`removedDocuments` counts them
 * alike, for the chat to say so).
 */
export const GET = route(conversationRoute, async ({ params: { id }, store, principal }) => {
  await requireOwn(principal, await store(), "conversation", id);
  const conversation = await (await getConversations()).get(id);
  if (!conversation) throw new AppError("not_found", `No conversation with id "${id}".`);
  const { documents, removed } = await inLibrary(principal, await store(), conversation.documents);
  return { conversation: { ...conversation, documents }, removedDocuments: removed.length };
});

/**
 * PATCH /api/conversations/<id> {title?, kbs?, documents?, messages?} — rename, or save the chat's current state
 * (of `documents`, those the caller may read; its answers: the server's own copies, lib/conversations/save.ts).
 */
export const PATCH = route(conversationRoute, async ({ body, params: { id }, store, principal }) => {
  await requireOwn(principal, await store(), "conversation", id);
  const patch = await body(updateConversationSchema);
  if (patch.documents) patch.documents = await readablePicks(principal, await store(), patch.documents);
  return { conversation: await updateConversation(await store(), ownerIdOf(principal), id, patch) };
});

/** DELETE /api/conversations/<id> — with its pin, share link and attachments. */
export const DELETE = route(conversationRoute, async ({ params: { id }, store, principal }) => {
  await requireOwn(principal, await store(), "conversation", id);
  const conversations = await getConversations();
  const messages = (await conversations.get(id))?.messages ?? [];
  if (!(await conversations.delete(id))) throw new AppError("not_found", `No conversation with id "${id}".`);
  // The files attached to its questions and kept with it go with it (one added to the library stays).
  await deleteAttachments(principal, await store(), messages);
  await (await getShares(await store())).revoke(id);
  await (await getPins(await store())).set(id, false);
  return { deleted: id };
});
