import { handleMcpRequest } from "@/mcp/http";
import { getReadyStore } from "@/lib/server/startup";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handler(req: Request): Promise<Response> {
  return handleMcpRequest(req, { getStore: () => getReadyStore() });
}

export { handler as GET, handler as POST, handler as DELETE };
