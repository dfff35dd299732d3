import { z } from "zod";
import { reindexDocument } from "@/lib/ingest/reindex";
import { route } from "@/lib/server/route";
import { documentIdSchema } from "../../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/documents/<id>/reindex — re-chunks and re-embeds the document from its stored text. */
export const POST = route({ params: z.object({ id: documentIdSchema }) }, async ({ req, params: { id }, store }) => ({
  document: await reindexDocument(await store(), id, { signal: req.signal }),
}));
