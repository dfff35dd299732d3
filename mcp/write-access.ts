import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { getConfig } from "@/lib/config";
import { canWrite } from "@/lib/credentials/tokens";
import type { Store } from "@/lib/store";
import { guarded, inScope, type ToolContext, toolError } from "./context";

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

type Refused = { refused: CallToolResult };

/**
 * How every write tool's call opens. An adding tool (`{ add: kbArg }`): the knowledge base it writes to (its
 * `kb` argument, the server's only kb, or the default; refused when this server does not serve it), then the
 * store. A deleting tool (`{ find, missing }`): the store, and the entry it names, refused with `missing` when
 * there is none or it lies outside this server's knowledge bases.
 */
export async function openWrite(ctx: ToolContext, how: { add: string | undefined }): Promise<Refused | { kb: string; store: Store }>;
export async function openWrite<T extends { kb: string }>(
  ctx: ToolContext,
  how: { find: (store: Store) => Promise<T | null | undefined>; missing: string },
): Promise<Refused | { found: T; store: Store }>;
export async function openWrite<T extends { kb: string }>(
  ctx: ToolContext,
  how: { add: string | undefined } | { find: (store: Store) => Promise<T | null | undefined>; missing: string },
): Promise<Refused | { kb: string; store: Store } | { found: T; store: Store }> {
  if ("add" in how) {
    const kb = how.add ?? (ctx.kbs?.length === 1 ? ctx.kbs[0] : getConfig().defaultKb);
    if (!inScope(ctx, kb)) return { refused: toolError(`This server does not serve the knowledge base "${kb}"; pass kb.`) };
    return { kb, store: await ctx.getStore() };
  }
  const store = await ctx.getStore();
  const found = await how.find(store);
  if (!found || !inScope(ctx, found.kb)) return { refused: toolError(how.missing) };
  return { found, store };
}

/** `guarded` for an adding tool: the call runs with the knowledge base it writes to and the store, or is refused (see openWrite). */
export function guardedAdd<A extends { kb?: string }>(
  tool: string,
  ctx: ToolContext,
  body: (args: A, target: { kb: string; store: Store }) => Promise<CallToolResult>,
): (args: A) => Promise<CallToolResult> {
  return guarded<A>(tool, async (args) => {
    const opened = await openWrite(ctx, { add: args.kb });
    return "refused" in opened ? opened.refused : body(args, opened);
  });
}
