import { checkReadAccess, errorResponse, NO_STORE } from "@/lib/auth/admin";
import { readLimitedJson } from "@/lib/conversations/body";
import { getConversations } from "@/lib/conversations/store";
import { createConversationSchema, listConversationsSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/conversations?q=&kb= — saved conversations, newest first (summaries, no messages). */
export async function GET(request: Request): Promise<Response> {
  try {
    // Conversations are the chat's own data: the chat's access rule.
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const params = new URL(request.url).searchParams;
    const opts = listConversationsSchema.parse({ q: params.get("q") ?? undefined, kb: params.get("kb") ?? undefined });
    const conversations = await (await getConversations()).list(opts);
    return Response.json({ conversations }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** POST /api/conversations {id?, title?, kbs?, messages?} — starts a conversation. */
export async function POST(request: Request): Promise<Response> {
  try {
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const input = createConversationSchema.parse(await readLimitedJson(request));
    const conversation = await (await getConversations()).create(input);
    return Response.json({ conversation }, { status: 201, headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
