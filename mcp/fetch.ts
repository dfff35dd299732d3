import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { titleWithHeading } from "@/lib/chunk/heading";
import { idField } from "@/lib/limits";
import { getSourceStore } from "@/lib/sources/store";
import { chunkWindow } from "@/lib/tools/format";
import { TOOL } from "@/lib/tools/names";
import { READ_ONLY } from "./annotations";
import { guarded, inScope, type ToolContext, toolError } from "./context";
import { connectorPassage, connectorResult, passageUrl } from "./search";

const name = TOOL.fetch;

const inputSchema = z.strictObject({ id: idField("id").describe("An id from a search result") });

const outputSchema = connectorPassage.extend({
  text: z.string().describe("The passage with the passages just before and after it"),
  metadata: z.object({
    document_id: z.string(),
    document_title: z.string(),
    source: z.string(),
    kb: z.string(),
    heading: z.string(),
    page: z.number().int().optional(),
  }),
});

const config = {
  title: "Fetch a passage (connector)",
  description:
    "Fetch the full text of a search result by its id: the passage with its surrounding context, its title, the URL " +
    "that opens it (the original page or file for a document from a web, Git or bucket source; else in the app), and its document's metadata. Shaped for ChatGPT connectors and deep research.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY,
};

export function registerFetch(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    name,
    config,
    guarded(name, async (args): Promise<CallToolResult> => {
      const store = await ctx.getStore();
      const chunk = await store.getChunk(args.id);
      const doc = chunk ? await store.getDocument(chunk.documentId) : null;
      if (!chunk || !doc || !inScope(ctx, doc.kb, doc.id))
        return toolError(`No passage with id "${args.id}". Use an id from a search result.`);
      // The passage with one neighbour on each side, cut from the document's text (chunks overlap).
      const window = chunkWindow(await store.getChunks(doc.id), chunk.id, 1, 1) ?? [chunk];
      const full = await store.getDocumentText(doc.id);
      const text = full?.slice(window[0].start, window.at(-1)!.end).trim() || window.map((c) => c.text).join("\n\n");
      // A document from a source opens where it lives (the page, the file at its commit, the object).
      const link = doc.origin === "source" ? (await (await getSourceStore(store)).linksOf([doc.id])).get(doc.id)?.url : undefined;
      const original = link && /^https?:/.test(link) ? link : undefined;
      return connectorResult({
        id: chunk.id,
        title: titleWithHeading(doc.title, chunk.heading),
        text,
        url: original ?? passageUrl(doc.id, chunk.id),
        metadata: {
          document_id: doc.id,
          document_title: doc.title,
          source: doc.source,
          kb: doc.kb,
          heading: chunk.heading,
          ...(chunk.page ? { page: chunk.page } : {}),
        },
      });
    }),
  );
}
