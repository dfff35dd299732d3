import { checkManagementAccess, errorResponse, NO_STORE } from "@/lib/auth/admin";
import { getRegistry, revokeAccessToken } from "@/lib/kb";
import { getReadyStore } from "@/lib/server/startup";
import { AppError } from "@/lib/types";
import { tokenIdSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

/** DELETE /api/tokens/<id> — revokes the token at once (it stays listed as revoked). */
export async function DELETE(req: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkManagementAccess(req);
    if (denied) throw denied;
    const parsed = tokenIdSchema.safeParse((await params).id);
    if (!parsed.success) throw new AppError("not_found", "There is no such token.", 404);
    const store = await getReadyStore();
    await revokeAccessToken(await getRegistry(store.uri), parsed.data);
    return Response.json({ revoked: parsed.data }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
