import { z } from "zod";
import { documentFor } from "@/lib/auth/scope";
import { reindexDocument } from "@/lib/ingest/reindex";
import { documentIdSchema } from "@/lib/limits";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/documents/<id>/reindex — re-chunks and re-embeds the document from its stored text. */
export const POST = route(
  { params: z.object({ id: documentIdSchema }) },
  async ({ req, params: { id }, store: ready, principal, audit }) => {
    const store = await ready();
    await documentFor(principal, store, id, true);
    const document = await reindexDocument(store, id, { signal: req.signal });
    await audit("reindex", { kb: document.kb, target: id, detail: document.source });
    return { document };
  },
);
