import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { searchToolDescription, searchToolNames } from "@/lib/kb/names";
import { READ_ONLY } from "./annotations";
import * as citationView from "./citation-view";
import { guarded, type ToolContext } from "./context";
import { documentsField, outputSchema, queryField, runSearch, topKField } from "./search-knowledge";

const inputSchema = z.strictObject({ query: queryField, top_k: topKField, documents: documentsField });

/**
 * One search tool per knowledge base in scope, `search_<slug>`, described by the knowledge base's own
 * description and document titles so a model can pick the right one without listing documents first.
 */
export function registerKbSearchTools(server: McpServer, ctx: ToolContext): string[] {
  const entries = ctx.catalog ?? [];
  const names = searchToolNames(entries.map((e) => e.kb.name));
  const registered: string[] = [];
  for (const { kb, titles } of entries) {
    const name = names.get(kb.name)!;
    server.registerTool(
      name,
      {
        title: `Search ${kb.title || kb.name}`,
        description: searchToolDescription(kb, titles),
        inputSchema,
        outputSchema,
        annotations: READ_ONLY,
        _meta: { "knowledge-base/kb": kb.name, ...citationView.toolMeta },
      },
      guarded(name, async (args): Promise<CallToolResult> => runSearch(ctx, args, { kb: kb.name, store: await ctx.getStore() })),
    );
    registered.push(name);
  }
  return registered;
}
