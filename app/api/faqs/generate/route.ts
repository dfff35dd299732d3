import { z } from "zod";
import { checkManagementAccess, errorResponse, NO_STORE, readJson } from "@/lib/auth/admin";
import { cancelGeneration, generationProgress, startGeneration } from "@/lib/faq/generate";
import { getReadyStore } from "@/lib/server/startup";
import { AppError } from "@/lib/types";
import { documentIdSchema } from "../../documents/schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const bodySchema = z.strictObject({
  document_id: documentIdSchema,
  pairs: z.number().int().min(1).max(10).optional(),
});

function documentIdOf(request: Request): string {
  return documentIdSchema.parse(new URL(request.url).searchParams.get("document_id") ?? "");
}

/** POST /api/faqs/generate {document_id, pairs?} — starts generating FAQ pairs for a document in the background. */
export async function POST(request: Request): Promise<Response> {
  try {
    const denied = checkManagementAccess(request);
    if (denied) throw denied;
    const { document_id, pairs } = bodySchema.parse(await readJson(request));
    const store = await getReadyStore();
    const doc = await store.getDocument(document_id);
    if (!doc) throw new AppError("not_found", "There is no such document.", 404);
    const progress = startGeneration(store, doc, await store.getChunks(doc.id), { pairs });
    if (!progress) throw new AppError("bad_request", "Generating FAQ pairs needs a model: set OPENAI_API_KEY.", 409);
    return Response.json({ progress }, { status: 202, headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** GET /api/faqs/generate?document_id= — progress of the document's generation. */
export async function GET(request: Request): Promise<Response> {
  try {
    const denied = checkManagementAccess(request);
    if (denied) throw denied;
    return Response.json({ progress: generationProgress(documentIdOf(request)) }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** DELETE /api/faqs/generate?document_id= — cancels it. */
export async function DELETE(request: Request): Promise<Response> {
  try {
    const denied = checkManagementAccess(request);
    if (denied) throw denied;
    const id = documentIdOf(request);
    return Response.json({ cancelled: cancelGeneration(id), progress: generationProgress(id) }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
