import { getConfig } from "@/lib/config";
import { makeNote } from "@/lib/notes/make";
import { makeNoteSchema } from "@/lib/notes/schema";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/notes/make {kind: study-guide|briefing|timeline, kb, documents?, locale?} — the model writes it from the
 * knowledge base's documents, cited and checked like an answer (lib/notes/make.ts); 409 offline.
 */
export const POST = route({ status: 201 }, async ({ body, store, principal }) => {
  return { note: await makeNote(principal, await store(), await body(makeNoteSchema), getConfig().chat) };
});
