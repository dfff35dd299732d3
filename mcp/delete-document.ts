import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { idField } from "@/lib/limits";
import { TOOL } from "@/lib/tools/names";
import { DELETES } from "./annotations";
import { guarded, type ToolContext, toolResult } from "./context";
import { openWrite } from "./write-access";

const name = TOOL.deleteDocument;

const inputSchema = z.strictObject({
  document_id: idField("document_id").describe("The document to delete (from list_documents, a search result or add_document)."),
});

const outputSchema = z.object({
  deleted: z.boolean(),
  document: z.object({ id: z.string(), title: z.string(), source: z.string(), kb: z.string() }),
});

const annotations = DELETES;

export function registerDeleteDocument(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    name,
    {
      title: "Delete a document",
      description:
        "Permanently delete a document and its passages from the knowledge base. Requires a read-write access " +
        "token. Confirm with the user before calling it.",
      inputSchema,
      outputSchema,
      annotations,
    },
    guarded(name, async (args): Promise<CallToolResult> => {
      const opened = await openWrite(ctx, {
        find: (store) => store.getDocument(args.document_id),
        missing: `No document with document_id "${args.document_id}". Call list_documents to see the ids.`,
      });
      if ("refused" in opened) return opened.refused;
      const { found: doc, store } = opened;
      const deleted = await store.deleteDocument(doc.id);
      if (deleted) ctx.audit?.("document_delete", { kb: doc.kb, target: doc.id, detail: `${doc.source} (MCP)` });
      return toolResult(`Deleted "${doc.title}" (${doc.source}) from knowledge base "${doc.kb}".`, {
        deleted,
        document: { id: doc.id, title: doc.title, source: doc.source, kb: doc.kb },
      });
    }),
  );
}
