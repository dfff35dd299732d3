import { checkHealth, publicHealth } from "@/lib/server/health";
import { optionalPrincipal, route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/health: readiness for anyone; the details (documents, embedder, failed files) for whoever may use the app's API. */
export const GET = route({ access: "public" }, async ({ req }) => {
  const { status, body } = await checkHealth();
  const detailed = (await optionalPrincipal(req)) !== null;
  return Response.json(detailed ? body : publicHealth(body), { status, headers: { "Cache-Control": "no-store" } });
});
