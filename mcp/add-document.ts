import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ingestDocument, sha256 } from "@/lib/ingest";
import { sanitizeFileName, tagsSchema } from "@/lib/kb/fields";
import { documentUri, MAX_AUTHOR_CHARS, MAX_DOCUMENT_TITLE_CHARS } from "@/lib/limits";
import { documentSummarySchema } from "@/lib/tools/format";
import { TOOL } from "@/lib/tools/names";
import { ADDS_IDEMPOTENT } from "./annotations";
import { kbArgument, perKbNames, type ToolContext, toolError, toolResult } from "./context";
import { registerAddTool } from "./register";

const name = TOOL.addDocument;

const MAX_CONTENT_CHARS = 1_000_000;

const inputSchemaFor = perKbNames((kbNames) =>
  z.strictObject({
    title: z
      .string({ error: (i) => (i.input === undefined ? "title is required" : "title must be a string") })
      .trim()
      .min(1, "title must not be empty")
      .max(MAX_DOCUMENT_TITLE_CHARS, `title must be at most ${MAX_DOCUMENT_TITLE_CHARS} characters`)
      .describe("Document title; also names the document (one document per title and knowledge base)."),
    content: z
      .string({ error: (i) => (i.input === undefined ? "content is required" : "content must be a string") })
      .min(1, "content must not be empty")
      .max(MAX_CONTENT_CHARS, `content must be at most ${MAX_CONTENT_CHARS} characters`)
      .describe("The document text. Markdown headings (#, ##…) become the sections search results cite."),
    format: z.enum(["markdown", "text"], { error: 'format must be "markdown" or "text"' }).default("markdown"),
    kb: kbArgument(kbNames, "Knowledge base to add it to. Default: the default knowledge base (or the only one this server serves)."),
    author: z
      .string({ error: "author must be a string" })
      .trim()
      .max(MAX_AUTHOR_CHARS, `author must be at most ${MAX_AUTHOR_CHARS} characters`)
      .optional(),
    tags: tagsSchema.optional(),
  }),
);

const outputSchema = z.object({
  status: z.enum(["added", "unchanged"]),
  document: documentSummarySchema.pick({ id: true, title: true, source: true, kb: true, chunk_count: true }),
  uri: z.string().describe("Resource URI of the document"),
});

/** The stored file name for a title: path separators become spaces, then the file-name rule. */
function sourceName(title: string, format: "markdown" | "text"): string {
  const base =
    title
      .replace(/[\\/]+/g, " ")
      .replace(/\s+/g, " ")
      .trim() || "document";
  return sanitizeFileName(`${base}.${format === "markdown" ? "md" : "txt"}`);
}

const config = {
  title: "Add a document",
  description:
    "Add a text or Markdown document to the knowledge base; it is chunked and indexed like an upload and is " +
    "searchable as soon as this call returns. Requires a read-write access token. Never replaces a document: " +
    "adding a title that already exists with other content is refused (delete_document it first).",
  input: inputSchemaFor,
  outputSchema,
  annotations: ADDS_IDEMPOTENT,
};

export function registerAddDocument(server: McpServer, ctx: ToolContext) {
  registerAddTool(server, ctx, name, config, async (args, { kb, store }) => {
    const source = sourceName(args.title, args.format);
    const existing = await store.findDocument(kb, { source });
    const data = new TextEncoder().encode(args.content);
    if (existing && existing.contentHash !== sha256(data)) {
      return toolError(
        `A document titled "${args.title}" already exists in "${kb}" (document_id ${existing.id}) with other content. ` +
          "Delete it with delete_document first, or choose another title.",
      );
    }
    const { document, status } = await ingestDocument(store, {
      filename: source,
      data,
      kb,
      title: args.title,
      author: args.author,
      tags: args.tags,
      origin: "mcp",
    });
    if (status !== "unchanged") ctx.audit?.("document_upload", { kb, target: document.id, detail: `${source}: ${status} (MCP)` });
    const out = {
      status: status === "unchanged" ? ("unchanged" as const) : ("added" as const),
      document: { id: document.id, title: document.title, source: document.source, kb: document.kb, chunk_count: document.chunkCount },
      uri: documentUri(document.kb, document.id),
    };
    const text =
      (out.status === "added" ? `Added "${document.title}"` : `"${document.title}" was already there unchanged`) +
      ` to knowledge base "${document.kb}" — document_id: ${document.id}, ${document.chunkCount} chunk${document.chunkCount === 1 ? "" : "s"}.`;
    return toolResult(text, out);
  });
}
