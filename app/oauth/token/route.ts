import { handleToken } from "@/lib/auth/oauth/token";
import { getReadyStore } from "@/lib/server/startup";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /oauth/token */
export function POST(req: Request): Promise<Response> {
  return handleToken(req, { getStore: () => getReadyStore() });
}
