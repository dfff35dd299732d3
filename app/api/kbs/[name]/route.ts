import { z } from "zod";
import { deleteKnowledgeBase, updateKnowledgeBase } from "@/lib/admin/knowledge-bases";
import { requireKbAccess } from "@/lib/auth/principal";
import { getKnowledgeBase } from "@/lib/kb";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";
import { kbParamSchema, updateKbSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const kbRoute = { params: z.object({ name: kbParamSchema }), notFound: "There is no such knowledge base." };

/** GET /api/kbs/<name> */
export const GET = route(kbRoute, async ({ params: { name }, store, registry, principal }) => {
  requireKbAccess(principal, name, false);
  const kb = await getKnowledgeBase(await store(), await registry(), name);
  if (!kb) throw new AppError("not_found", `There is no knowledge base named "${name}".`);
  return { kb };
});

/** PATCH /api/kbs/<name> {title?, description?, name?} — describe, or rename (moves its documents). */
export const PATCH = route({ ...kbRoute, access: "admin" }, async ({ params: { name }, body, store, registry, audit }) => {
  const patch = await body(updateKbSchema);
  const kb = await updateKnowledgeBase(await store(), await registry(), name, patch);
  await audit("kb_update", { kb: kb.name, detail: kb.name !== name ? `renamed from ${name}` : null });
  return { kb };
});

/** DELETE /api/kbs/<name> — deletes the knowledge base with all its documents (not the default one). */
export const DELETE = route({ ...kbRoute, access: "admin" }, async ({ params: { name }, store, registry, audit }) => {
  const { documents } = await deleteKnowledgeBase(await store(), await registry(), name);
  await audit("kb_delete", { kb: name, detail: `${documents} documents` });
  return { deleted: name, documents };
});
