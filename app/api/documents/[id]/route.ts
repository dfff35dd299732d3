import { getReadyStore } from "@/lib/server/startup";
import { AppError } from "@/lib/types";
import { checkManagementAccess, checkReadAccess, errorResponse, NO_STORE } from "@/lib/auth/admin";
import { documentIdSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

/** GET /api/documents/<id> — the document, its chunks in order, and its parsed text. */
export async function GET(request: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const id = documentIdSchema.parse((await params).id);
    const store = await getReadyStore();
    const document = await store.getDocument(id);
    if (!document) throw new AppError("not_found", `No document with id "${id}".`, 404);
    const chunks = (await store.getChunks(id)).sort((a, b) => a.index - b.index);
    // The parsed text (and PDF page starts) lets the document view render the document, not just its chunks.
    const body = await store.getDocumentBody(id);
    return Response.json({ document, chunks, text: body?.text ?? null, pages: body?.pages ?? null }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** DELETE /api/documents/<id> — removes the document and all its chunks. */
export async function DELETE(request: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkManagementAccess(request);
    if (denied) throw denied;
    const id = documentIdSchema.parse((await params).id);
    const store = await getReadyStore();
    if (!(await store.deleteDocument(id))) throw new AppError("not_found", `No document with id "${id}".`, 404);
    return Response.json({ deleted: id }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
