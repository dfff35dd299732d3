import { isAdmin, requireKbAccess } from "@/lib/auth/principal";
import { getKnowledgeBase } from "@/lib/kb";
import { route } from "@/lib/server/route";
import { sourceInputSchema } from "@/lib/sources/schema";
import { addSource, listSourceViews, viewOf } from "@/lib/sources/service";
import { AppError } from "@/lib/types";
import { kbRoute } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/kbs/<name>/sources — the knowledge base's sources with their status (never their secrets). */
export const GET = route(kbRoute, async ({ params: { name }, store, principal }) => {
  requireKbAccess(principal, name, false);
  return { sources: await listSourceViews(await store(), name) };
});

/** POST /api/kbs/<name>/sources {kind, …} — adds a source (editors of the KB; folders: admins) and starts its first sync. */
export const POST = route({ ...kbRoute, status: 201 }, async ({ params: { name }, body, store, registry, principal, audit }) => {
  requireKbAccess(principal, name, true);
  const input = await body(sourceInputSchema);
  const ready = await store();
  if (!(await getKnowledgeBase(ready, await registry(), name)))
    throw new AppError("not_found", `There is no knowledge base named "${name}".`);
  const source = await addSource(ready, name, input, { admin: isAdmin(principal) });
  await audit("source_add", { kb: name, target: source.id, detail: `${source.kind} ${source.name}` });
  return { source: await viewOf(ready, source) };
});
