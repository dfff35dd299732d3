import { overviewOf } from "@/lib/agent/overview";
import { overviewQuerySchema } from "@/lib/agent/overview-contract";
import { mayReadKb } from "@/lib/auth/principal";
import { documentFor } from "@/lib/auth/scope";
import { getConfig } from "@/lib/config";
import { route } from "@/lib/server/route";
import { documentsInScope } from "@/lib/tools/scope";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** At most this many documents make up the knowledge bases' overview (the empty chat's). */
const MAX_DOCS = 20;

/**
 * GET /api/overview?document=<id>&locale=en|zh — a document's overview; without `document`, that of the
 * documents in the conversation's scope (`kbs`, `documents`) among those the caller reads (lib/agent/overview.ts).
 */
export const GET = route({}, async ({ req, store: ready, principal }) => {
  const parsed = overviewQuerySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) throw new AppError("bad_request", parsed.error.issues[0]?.message ?? "invalid query");
  const { document, locale, kbs, documents } = parsed.data;
  const store = await ready();
  const readable = mayReadKb(principal);
  const docs = document
    ? [await documentFor(principal, store, document, false)]
    : documentsInScope(
        (await store.listDocuments()).filter((d) => readable(d.kb)),
        { kbs, documents },
      ).slice(0, MAX_DOCS);
  return overviewOf(store, docs, locale, getConfig().chat);
});
