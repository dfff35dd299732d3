import { z } from "zod";
import { noteFor } from "@/lib/notes/access";
import { noteIdSchema, renameNoteSchema } from "@/lib/notes/schema";
import { getNotes } from "@/lib/notes/store";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const noteRoute = { params: z.object({ id: noteIdSchema }), notFound: "There is no such note." };

/** GET /api/notes/<id> — the note with its text, citation check and citations. */
export const GET = route(noteRoute, async ({ params: { id }, store, principal }) => {
  const { owner: _, ...note } = await noteFor(principal, await store(), id);
  return { note };
});

/** PATCH /api/notes/<id> {title} — renames it. */
export const PATCH = route(noteRoute, async ({ body, params: { id }, store, principal }) => {
  await noteFor(principal, await store(), id);
  const { title } = await body(renameNoteSchema);
  const { owner: _, ...note } = await (await getNotes(await store())).rename(id, title);
  return { note };
});

/** DELETE /api/notes/<id> */
export const DELETE = route(noteRoute, async ({ params: { id }, store, principal }) => {
  await noteFor(principal, await store(), id);
  await (await getNotes(await store())).delete(id);
  return { deleted: id };
});
