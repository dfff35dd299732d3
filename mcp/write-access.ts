import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { canWrite } from "@/lib/auth/tokens";
import { getConfig } from "@/lib/config";
import { inScope, type ToolContext, toolError } from "./context";

/**
 * Why a caller may not call a write tool (no read-write token), or null when it may. The MCP server checks it
 * once, as it registers the tools (mcp/index.ts): a refused tool is neither listed nor run.
 */
export function writeRefusal(ctx: ToolContext, tool: string): string | null {
  if (canWrite(ctx.token)) return null;
  return (
    `${tool} requires a read-write access token: send "Authorization: Bearer <token>" with a token of scope ` +
    `read-write (create one in the app's Connect dialog).${ctx.token ? " The token of this request can only read." : ""}`
  );
}

/**
 * The knowledge base an adding tool writes to (its `kb` argument, the server's only kb, or the default), or
 * the tool error that refuses a kb this server does not serve.
 */
export function writeTarget(ctx: ToolContext, kbArg: string | undefined): { kb: string } | { refused: CallToolResult } {
  const kb = kbArg ?? (ctx.kbs?.length === 1 ? ctx.kbs[0] : getConfig().defaultKb);
  if (!inScope(ctx, kb)) return { refused: toolError(`This server does not serve the knowledge base "${kb}"; pass kb.`) };
  return { kb };
}
