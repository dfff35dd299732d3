import { checkHealth } from "@/lib/server/health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const { status, body } = await checkHealth();
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}
