import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { DOCUMENT_URI_TEMPLATE, documentUri } from "@/lib/limits";
import { inScope, type ToolContext } from "./context";

/** JSON-RPC error code the MCP spec suggests for an unknown resource. */
export const RESOURCE_NOT_FOUND = -32002;
export const MIME_TYPE = "text/markdown";

/** A URI template variable, percent-decoded; null when it is missing or malformed. */
export function decode(v: string | string[] | undefined): string | null {
  if (typeof v !== "string") return null;
  try {
    return decodeURIComponent(v);
  } catch {
    return null;
  }
}

/** Every document in scope is a resource `kb://<kb>/<document-id>` whose content is its text (Markdown-ish). */
export function registerDocumentResources(server: McpServer, ctx: ToolContext) {
  server.registerResource(
    "document",
    new ResourceTemplate(DOCUMENT_URI_TEMPLATE, {
      list: async () => {
        const store = await ctx.getStore();
        const docs = (await store.listDocuments()).filter((d) => inScope(ctx, d.kb, d.id));
        return {
          resources: docs.map((d) => ({
            uri: documentUri(d.kb, d.id),
            name: d.source,
            title: d.title,
            mimeType: MIME_TYPE,
            description: `"${d.title}" (${d.source}) in knowledge base "${d.kb}", ${d.chunkCount} chunks`,
          })),
        };
      },
    }),
    {
      title: "Knowledge-base documents",
      description: "The full text of a document, as indexed (Markdown for structured formats).",
      mimeType: MIME_TYPE,
    },
    async (uri, variables) => {
      const kb = decode(variables.kb);
      const id = decode(variables.document_id);
      const store = await ctx.getStore();
      const doc = kb !== null && id !== null && inScope(ctx, kb) ? await store.getDocument(id) : null;
      const text = doc && doc.kb === kb ? await store.getDocumentText(doc.id) : null;
      if (!doc || text === null) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.href}`, { uri: uri.href });
      return { contents: [{ uri: uri.href, mimeType: MIME_TYPE, text }] };
    },
  );
}
