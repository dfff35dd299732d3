import { checkKbName } from "@/lib/kb/names";
import { getReadyStore } from "@/lib/server/startup";
import { handleMcpRequest, jsonRpcError } from "@/mcp/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ kb: string }> };

/** The MCP endpoint of one knowledge base: only its tools, documents and prompt. */
async function handler(req: Request, { params }: Ctx): Promise<Response> {
  const checked = checkKbName((await params).kb);
  if (!checked.ok) return jsonRpcError(404, -32000, checked.message);
  return handleMcpRequest(req, { kb: checked.name, getStore: () => getReadyStore() });
}

export { handler as GET, handler as POST, handler as DELETE };
