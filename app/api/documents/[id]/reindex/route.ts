import { reindexDocument } from "@/lib/ingest/upload";
import { getReadyStore } from "@/lib/server/startup";
import { checkManagementAccess, errorResponse, NO_STORE } from "@/lib/auth/admin";
import { documentIdSchema } from "../../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/documents/<id>/reindex — re-chunks and re-embeds the document from its stored text. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const denied = checkManagementAccess(request);
    if (denied) throw denied;
    const id = documentIdSchema.parse((await params).id);
    const store = await getReadyStore();
    const document = await reindexDocument(store, id, { signal: request.signal });
    return Response.json({ document }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
