import { checkReadAccess, errorResponse, NO_STORE } from "@/lib/auth/admin";
import { readLimitedJson } from "@/lib/conversations/body";
import { getConversations } from "@/lib/conversations/store";
import { AppError } from "@/lib/types";
import { conversationIdSchema, updateConversationSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

async function conversationId(params: Ctx["params"]): Promise<string> {
  const parsed = conversationIdSchema.safeParse((await params).id);
  if (!parsed.success) throw new AppError("not_found", "There is no such conversation.", 404);
  return parsed.data;
}

/** GET /api/conversations/<id> — the conversation with its messages and feedback. */
export async function GET(request: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const id = await conversationId(params);
    const conversation = await (await getConversations()).get(id);
    if (!conversation) throw new AppError("not_found", `No conversation with id "${id}".`, 404);
    return Response.json({ conversation }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** PATCH /api/conversations/<id> {title?, kbs?, messages?} — rename, or save the chat's current state. */
export async function PATCH(request: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const id = await conversationId(params);
    const patch = updateConversationSchema.parse(await readLimitedJson(request));
    const conversation = await (await getConversations()).update(id, patch);
    return Response.json({ conversation }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** DELETE /api/conversations/<id> */
export async function DELETE(request: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const id = await conversationId(params);
    if (!(await (await getConversations()).delete(id))) throw new AppError("not_found", `No conversation with id "${id}".`, 404);
    return Response.json({ deleted: id }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
