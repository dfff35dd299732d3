import { serveMcp } from "@/mcp/endpoint";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handler(req: Request): Promise<Response> {
  return serveMcp(req);
}

export { handler as GET, handler as POST, handler as DELETE };
