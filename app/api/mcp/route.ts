import { getReadyStore } from "@/lib/server/startup";
import { handleMcpRequest } from "@/mcp/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handler(req: Request): Promise<Response> {
  return handleMcpRequest(req, { getStore: () => getReadyStore() });
}

export { handler as GET, handler as POST, handler as DELETE };
