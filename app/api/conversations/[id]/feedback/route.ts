import { checkReadAccess, errorResponse, NO_STORE } from "@/lib/auth/admin";
import { readLimitedJson } from "@/lib/conversations/body";
import { getConversations } from "@/lib/conversations/store";
import { AppError } from "@/lib/types";
import { conversationIdSchema, feedbackSchema } from "../../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/conversations/<id>/feedback {messageId, rating: "up"|"down"|null, note?} — rates one answer. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const parsed = conversationIdSchema.safeParse((await params).id);
    if (!parsed.success) throw new AppError("not_found", "There is no such conversation.", 404);
    const input = feedbackSchema.parse(await readLimitedJson(request));
    const conversation = await (await getConversations()).setFeedback(parsed.data, input);
    return Response.json({ feedback: conversation.feedback }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
