import { serveMcp } from "@/mcp/endpoint";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ kb: string }> };

/** The MCP endpoint of one knowledge base: only its tools, documents and prompt. */
async function handler(req: Request, { params }: Ctx): Promise<Response> {
  return serveMcp(req, (await params).kb);
}

export { handler as GET, handler as POST, handler as DELETE };
