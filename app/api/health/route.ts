import { checkHealth } from "@/lib/server/health";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({ access: "public" }, async () => {
  const { status, body } = await checkHealth();
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
});
