import { exampleQuestions } from "@/lib/agent/examples";
import { mayReadKb } from "@/lib/auth/principal";
import { getConfig } from "@/lib/config";
import { route } from "@/lib/server/route";
import { getReadyStore } from "@/lib/server/startup";
import { documentsInScope } from "@/lib/tools/scope";
import { scopeQuerySchema } from "@/lib/tools/scope-query";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Example questions for the empty chat, from the headings of the documents in its scope (`kbs`, `documents`). */
export const GET = route({}, async ({ req, principal }) => {
  const offline = !getConfig().chat.apiKey;
  const params = new URL(req.url).searchParams;
  const scope = scopeQuerySchema.safeParse({ kbs: params.get("kbs") ?? undefined, documents: params.get("documents") ?? undefined });
  if (!scope.success) throw new AppError("bad_request", scope.error.issues[0]?.message ?? "invalid query");
  try {
    // Waits (briefly) for the start-up indexing of knowledge/, so a fresh start still offers examples.
    const store = await getReadyStore(15_000);
    const readable = mayReadKb(principal);
    const docs = documentsInScope(
      (await store.listDocuments()).filter((d) => readable(d.kb)),
      scope.data,
    ).slice(0, 20);
    const outlines = await Promise.all(
      docs.map(async (d) => ({ title: d.title, headings: (await store.getChunks(d.id)).map((c) => c.heading) })),
    );
    // The chat asks for a few more than it shows, to prefer those in the UI language.
    const max = Math.min(12, Math.max(1, Number(params.get("max")) || 4));
    return { offline, questions: exampleQuestions(outlines, max) };
  } catch (err) {
    console.error("[chat] example questions unavailable:", err);
    return { offline, questions: [] };
  }
});
