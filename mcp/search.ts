import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { titleWithHeading } from "@/lib/chunk/heading";
import { publicBaseUrl } from "@/lib/config";
import { searchKnowledge } from "@/lib/retrieve";
import { passagePath } from "@/lib/tools/links";
import { TOOL } from "@/lib/tools/names";
import { READ_ONLY } from "./annotations";
import { searchedDocuments, type ToolContext, toolResult } from "./context";
import { registerReadTool } from "./register";
import { documentsField, queryField } from "./search-knowledge";

const name = TOOL.search;

/** How many passages `search` returns: the host reads them with `fetch`. */
const RESULTS = 10;

const inputSchema = z.strictObject({ query: queryField, documents: documentsField });

/** A passage as the connector tools (search, fetch) name it: its id, title and address. */
export const connectorPassage = z.object({ id: z.string(), title: z.string(), url: z.string() });

const outputSchema = z.object({
  results: z.array(connectorPassage).describe("Each passage's id (pass it to fetch), title, and URL (opens it, highlighted, in the app)"),
});

const config = {
  title: "Search (connector)",
  description:
    "Search this organisation's knowledge base (handbooks, policies, papers, news; English and Chinese) for passages " +
    "relevant to a query. Returns ids, titles and URLs; call fetch with an id for the passage's text. Same index as " +
    "search_knowledge, shaped for ChatGPT connectors and deep research.",
  input: inputSchema,
  outputSchema,
  annotations: READ_ONLY,
};

/** The passage's address for a host's citation: the app's document page at that chunk. */
export function passageUrl(documentId: string, chunkId: string): string {
  return `${publicBaseUrl()}${passagePath(documentId, chunkId)}`;
}

/** A result as ChatGPT's connectors read it: one text item holding the JSON, and the same as structured content. */
export function connectorResult(value: Record<string, unknown>): CallToolResult {
  return toolResult(JSON.stringify(value), value);
}

export function registerSearch(server: McpServer, ctx: ToolContext) {
  registerReadTool(server, ctx, name, config, async (args, { kb, store }) => {
    const documents = await searchedDocuments(ctx, store, args.documents);
    const hits = await searchKnowledge(store, { query: args.query, topK: RESULTS, kb, documents });
    const results = hits.map((h) => ({
      id: h.chunk.id,
      title: titleWithHeading(h.document.title, h.chunk.heading),
      url: passageUrl(h.document.id, h.chunk.id),
    }));
    return connectorResult({ results });
  });
}
