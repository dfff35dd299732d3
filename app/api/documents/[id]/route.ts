import { z } from "zod";
import { documentFor, noSuchDocument } from "@/lib/auth/scope";
import { documentIdSchema } from "@/lib/limits";
import { route } from "@/lib/server/route";
import { getSourceStore } from "@/lib/sources/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const docRoute = { params: z.object({ id: documentIdSchema }) };

/**
 * GET /api/documents/<id> — the document, its chunks in order, its parsed text, and where it came from when a
 * source brought it in (`sourceLink`: the source's id and the page, file or object's URL).
 */
export const GET = route(docRoute, async ({ params: { id }, store: ready, principal }) => {
  const store = await ready();
  const document = await documentFor(principal, store, id, false);
  const chunks = (await store.getChunks(id)).sort((a, b) => a.index - b.index);
  // The parsed text (and PDF page starts) lets the document view render the document, not just its chunks.
  const body = await store.getDocumentBody(id);
  const sourceLink = document.origin === "source" ? ((await (await getSourceStore(store)).linksOf([id])).get(id) ?? null) : null;
  return { document, chunks, text: body?.text ?? null, pages: body?.pages ?? null, sourceLink };
});

/** DELETE /api/documents/<id> — removes the document and all its chunks. */
export const DELETE = route(docRoute, async ({ params: { id }, store: ready, principal, audit }) => {
  const store = await ready();
  const doc = await documentFor(principal, store, id, true);
  if (!(await store.deleteDocument(id))) throw noSuchDocument(id);
  await audit("document_delete", { kb: doc.kb, target: id, detail: doc.source });
  return { deleted: id };
});
