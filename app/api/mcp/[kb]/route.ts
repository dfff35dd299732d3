import { existingKbNameSchema } from "@/lib/kb/names";
import { getReadyStore } from "@/lib/server/startup";
import { handleMcpRequest } from "@/mcp/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ kb: string }> };

/** The MCP endpoint of one knowledge base: only its tools, documents and prompt. */
async function handler(req: Request, { params }: Ctx): Promise<Response> {
  const parsed = existingKbNameSchema.safeParse((await params).kb);
  if (!parsed.success) {
    return Response.json({ jsonrpc: "2.0", error: { code: -32000, message: "Invalid knowledge base name." }, id: null }, { status: 404 });
  }
  return handleMcpRequest(req, { kb: parsed.data, getStore: () => getReadyStore() });
}

export { handler as GET, handler as POST, handler as DELETE };
