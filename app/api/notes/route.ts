import { notesOf } from "@/lib/notes/access";
import { saveAnswerAsNote } from "@/lib/notes/save";
import { listNotesSchema, saveNoteSchema } from "@/lib/notes/schema";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/notes?kb= — the caller's notes (summaries), newest first; with `kb`, those of that knowledge base. */
export const GET = route({}, async ({ req, store, principal }) => {
  const { kb } = listNotesSchema.parse({ kb: new URL(req.url).searchParams.get("kb") ?? undefined });
  return { notes: await notesOf(principal, await store(), kb) };
});

/** POST /api/notes {messageId, conversationId?, title?} — keeps the caller's answer as a note (lib/notes/save.ts). */
export const POST = route({ status: 201 }, async ({ body, store, principal }) => {
  return { note: await saveAnswerAsNote(principal, await store(), await body(saveNoteSchema)) };
});
