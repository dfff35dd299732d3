import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { documentSummarySchema, formatDocumentList, toDocumentSummary } from "@/lib/tools/format";
import { TOOL } from "@/lib/tools/names";
import { READ_ONLY } from "./annotations";
import { inScope, kbArgument, type ToolContext, toolResult } from "./context";
import { registerReadTool } from "./register";

const name = TOOL.listDocuments;

const inputSchema = z.strictObject({
  kb: kbArgument(undefined, "Only list documents of this knowledge base. Omit to list all."),
});

const outputSchema = z.object({ documents: z.array(documentSummarySchema) });

const config = {
  title: "List documents",
  description:
    "List the documents in the knowledge base with their document_id, title, source file name, knowledge base " +
    "and number of chunks. Use it to see what the knowledge base covers or to find a document_id for read_document; " +
    "to answer a question, prefer search_knowledge.",
  input: inputSchema,
  outputSchema,
  annotations: READ_ONLY,
};

export function registerListDocuments(server: McpServer, ctx: ToolContext) {
  registerReadTool(server, ctx, name, config, async (_args, { kb, store }) => {
    const all = await store.listDocuments(typeof kb === "string" ? { kb } : undefined);
    const docs = (Array.isArray(kb) ? all.filter((d) => kb.includes(d.kb)) : all)
      .filter((d) => inScope(ctx, d.kb, d.id))
      .map(toDocumentSummary);
    return toolResult(formatDocumentList(docs, typeof kb === "string" ? kb : undefined), { documents: docs });
  });
}
