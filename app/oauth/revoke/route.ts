import { handleRevoke } from "@/lib/auth/oauth/token";
import { getReadyStore } from "@/lib/server/startup";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(req: Request): Promise<Response> {
  return handleRevoke(req, { getStore: () => getReadyStore() });
}
