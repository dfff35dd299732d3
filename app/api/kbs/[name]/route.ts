import { z } from "zod";
import { deleteKnowledgeBase, getKnowledgeBase, updateKnowledgeBase } from "@/lib/kb";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";
import { kbParamSchema, updateKbSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const kbRoute = { params: z.object({ name: kbParamSchema }), notFound: "There is no such knowledge base." };

/** GET /api/kbs/<name> */
export const GET = route(kbRoute, async ({ params: { name }, store, registry }) => {
  const kb = await getKnowledgeBase(await store(), await registry(), name);
  if (!kb) throw new AppError("not_found", `There is no knowledge base named "${name}".`, 404);
  return { kb };
});

/** PATCH /api/kbs/<name> {title?, description?, name?} — describe, or rename (moves its documents). */
export const PATCH = route(kbRoute, async ({ params: { name }, body, store, registry }) => {
  const patch = await body(updateKbSchema);
  return { kb: await updateKnowledgeBase(await store(), await registry(), name, patch) };
});

/** DELETE /api/kbs/<name> — deletes the knowledge base with all its documents (not the default one). */
export const DELETE = route(kbRoute, async ({ params: { name }, store, registry }) => {
  const { documents } = await deleteKnowledgeBase(await store(), await registry(), name);
  return { deleted: name, documents };
});
