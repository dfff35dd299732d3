import { z } from "zod";
import { documentFor } from "@/lib/auth/scope";
import { cancelGeneration, generationProgress, startGeneration } from "@/lib/faq/generate";
import { documentIdSchema } from "@/lib/limits";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

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
export const POST = route({ status: 202 }, async ({ body, store: ready, principal }) => {
  const { document_id, pairs } = await body(bodySchema);
  const store = await ready();
  const doc = await documentFor(principal, store, document_id, true);
  const progress = startGeneration(store, doc, await store.getChunks(doc.id), { pairs });
  if (!progress) throw new AppError("conflict", "Generating FAQ pairs needs a model: set OPENAI_API_KEY.");
  return { progress };
});

/** GET /api/faqs/generate?document_id= — progress of the document's generation. */
export const GET = route({}, async ({ req, store, principal }) => {
  const id = documentIdOf(req);
  await documentFor(principal, await store(), id, false);
  return { progress: generationProgress(id) };
});

/** DELETE /api/faqs/generate?document_id= — cancels it. */
export const DELETE = route({}, async ({ req, store, principal }) => {
  const id = documentIdOf(req);
  await documentFor(principal, await store(), id, true);
  return { cancelled: cancelGeneration(id), progress: generationProgress(id) };
});
