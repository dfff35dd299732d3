import { requireKbAccess } from "@/lib/auth/principal";
import { route } from "@/lib/server/route";
import { sourceOf, startSync, viewOf } from "@/lib/sources/service";
import { sourceRoute } from "../../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/kbs/<name>/sources/<id>/sync — "Sync now": starts a run in the background (202) and answers at once;
 * the run's outcome is audited by the engine.
 */
export const POST = route({ ...sourceRoute, status: 202 }, async ({ params: { name, id }, store, principal }) => {
  requireKbAccess(principal, name, true);
  const ready = await store();
  const source = await sourceOf(ready, name, id);
  void startSync(ready, source).catch(() => {});
  return { source: await viewOf(ready, source) };
});
