/**
 * The MCP endpoint as the app serves it: `/api/mcp` (every knowledge base) and `/api/mcp/<kb>` (one), over the
 * store once start-up indexing is done. The route handlers call it, and so does server.mjs directly (see
 * MCP_ENDPOINT_KEY), so both paths run the same checks.
 */
import { checkKbName } from "@/lib/kb/names";
import { processGlobal } from "@/lib/process-global";
import { getReadyStore } from "@/lib/server/startup";
import { handleMcpRequest, jsonRpcError } from "./http";

/** Serves one MCP request; `kb` is the raw path segment of `/api/mcp/<kb>`, undefined for `/api/mcp`. */
export async function serveMcp(req: Request, kb?: string): Promise<Response> {
  if (kb === undefined) return handleMcpRequest(req, { getStore: () => getReadyStore() });
  const checked = checkKbName(kb);
  if (!checked.ok) return jsonRpcError(404, -32000, checked.message);
  return handleMcpRequest(req, { kb: checked.name, getStore: () => getReadyStore() });
}

/**
 * Where server.mjs finds serveMcp (a processGlobal name): Next.js's routing of a request to a route handler
 * cost about 2 ms per MCP request on 2 cores (a `ping` through /api/mcp: p50 5.5–6.2 → 3.5–4.1 ms), so the
 * server entry hands MCP requests to serveMcp itself once the app registered it (instrumentation.ts). Until
 * then, and under `next start`, the route handlers serve them.
 */
const MCP_ENDPOINT_KEY = "mcp-endpoint";

export function registerMcpEndpoint(): void {
  processGlobal(MCP_ENDPOINT_KEY, () => serveMcp);
}
