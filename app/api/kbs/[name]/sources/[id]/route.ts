import { requireKbAccess } from "@/lib/auth/principal";
import { route } from "@/lib/server/route";
import { SECRET_FIELDS, sourcePatchSchema } from "@/lib/sources/schema";
import { removeSource, sourceOf, updateSource, viewOf } from "@/lib/sources/service";
import { sourceRoute } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/kbs/<name>/sources/<id> — one source and its status. */
export const GET = route(sourceRoute, async ({ params: { name, id }, store, principal }) => {
  requireKbAccess(principal, name, false);
  const ready = await store();
  return { source: await viewOf(ready, await sourceOf(ready, name, id)) };
});

/** PATCH /api/kbs/<name>/sources/<id> {name?, scheduleMinutes?, the kind's secret entered again?, confirm? (index past SOURCE_CONFIRM_OVER)} */
export const PATCH = route(sourceRoute, async ({ params: { name, id }, body, store, principal, audit }) => {
  requireKbAccess(principal, name, true);
  const patch = await body(sourcePatchSchema);
  const ready = await store();
  const source = await updateSource(ready, await sourceOf(ready, name, id), patch);
  const secret = SECRET_FIELDS.some((f) => patch[f] !== undefined) ? "; secret entered again" : "";
  const confirmed = patch.confirm ? "; confirmed: index every item" : "";
  await audit("source_update", { kb: name, target: id, detail: `every ${source.scheduleMinutes} min${secret}${confirmed}` });
  return { source: await viewOf(ready, source) };
});

/** DELETE /api/kbs/<name>/sources/<id> — removes the source and every document it brought in. */
export const DELETE = route(sourceRoute, async ({ params: { name, id }, store, principal, audit }) => {
  requireKbAccess(principal, name, true);
  const ready = await store();
  const source = await sourceOf(ready, name, id);
  const documents = await removeSource(ready, source);
  await audit("source_remove", { kb: name, target: id, detail: `${source.kind} ${source.name}: ${documents} documents` });
  return { deleted: id, documents };
});
