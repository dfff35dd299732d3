import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { idField } from "@/lib/limits";
import { chunkWindow, formatChunkWindow, formatDocumentText, MAX_READ_CHARS, sliceText, toWindowChunks } from "@/lib/tools/format";
import { TOOL } from "@/lib/tools/names";
import type { DocumentRecord } from "@/lib/types";
import { READ_ONLY } from "./annotations";
import { guarded, inScope, type ToolContext, toolError, toolResult } from "./context";

const name = TOOL.readDocument;

const neighbours = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .int(`${field} must be a whole number`)
    .min(0, `${field} must be between 0 and 10`)
    .max(10, `${field} must be between 0 and 10`)
    .default(2);

const inputSchema = z.strictObject({
  document_id: idField("document_id")
    .optional()
    .describe("Read this document's full text (from list_documents or a search result). Give this or chunk_id."),
  chunk_id: idField("chunk_id")
    .optional()
    .describe("Read the passage with this chunk_id (from search_knowledge) together with its neighbours."),
  before: neighbours("before").describe("With chunk_id: how many chunks before it to include, 0–10. Default 2."),
  after: neighbours("after").describe("With chunk_id: how many chunks after it to include, 0–10. Default 2."),
  offset: z
    .number({ error: "offset must be a number" })
    .int("offset must be a whole number")
    .min(0, "offset must not be negative")
    .default(0)
    .describe(`With document_id: character offset to start at, for texts longer than ${MAX_READ_CHARS} characters.`),
});

const docRef = z.object({ id: z.string(), title: z.string(), source: z.string(), kb: z.string() });

const outputSchema = z.object({
  document: docRef,
  text: z.string().optional().describe("With document_id: the text from offset on"),
  offset: z.number().int().optional(),
  total_chars: z.number().int().optional(),
  truncated: z.boolean().optional(),
  next_offset: z.number().int().optional().describe("Pass as offset to read on"),
  chunks: z
    .array(
      z.object({
        chunk_id: z.string(),
        index: z.number().int(),
        heading: z.string(),
        text: z.string(),
        page: z.number().int().optional(),
        requested: z.boolean().describe("True for the chunk that was asked for"),
      }),
    )
    .optional()
    .describe("With chunk_id: the requested chunk and its neighbours, in document order"),
  total_chunks: z.number().int().optional(),
});

const config = {
  title: "Read a document",
  description:
    "Read from the knowledge base. With chunk_id (from a search_knowledge result): that passage with the " +
    "passages just before and after it, in document order, to see its full context. With document_id (from " +
    `list_documents or a search result): the document's full text, ${MAX_READ_CHARS} characters at a time ` +
    "(use offset to read on). Give exactly one of document_id or chunk_id.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY,
};

function docRefOf(d: Pick<DocumentRecord, "id" | "title" | "source" | "kb">) {
  return { id: d.id, title: d.title, source: d.source, kb: d.kb };
}

export function registerReadDocument(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    name,
    config,
    guarded(name, async (args): Promise<CallToolResult> => {
      if ((args.document_id === undefined) === (args.chunk_id === undefined)) {
        return toolError("Give exactly one of document_id or chunk_id.");
      }
      const store = await ctx.getStore();
      const visible = (d: DocumentRecord | null): d is DocumentRecord => d !== null && inScope(ctx, d.kb, d.id);

      if (args.document_id !== undefined) {
        const doc = await store.getDocument(args.document_id);
        if (!visible(doc)) {
          return toolError(`No document with document_id "${args.document_id}". Call list_documents to see the ids.`);
        }
        const full = await store.getDocumentText(doc.id);
        if (full === null) return toolError(`The text of document "${doc.title}" is not available.`);
        const slice = sliceText(full, args.offset);
        if (!slice) {
          return toolError(`offset ${args.offset} is past the end of "${doc.title}", which has ${full.length} characters.`);
        }
        return toolResult(formatDocumentText(doc, slice), {
          document: docRefOf(doc),
          text: slice.text,
          offset: slice.offset,
          total_chars: slice.total_chars,
          truncated: slice.truncated,
          ...(slice.next_offset !== undefined ? { next_offset: slice.next_offset } : {}),
        });
      }

      const chunkId = args.chunk_id!;
      const chunk = await store.getChunk(chunkId);
      const doc = chunk ? await store.getDocument(chunk.documentId) : null;
      if (!chunk || !visible(doc)) {
        return toolError(`No chunk with chunk_id "${chunkId}". Use a chunk_id from a search_knowledge result.`);
      }
      const all = await store.getChunks(doc.id);
      const window = chunkWindow(all, chunk.id, args.before, args.after) ?? [chunk];
      const chunks = toWindowChunks(window, chunk.id);
      return toolResult(formatChunkWindow(doc, chunks, all.length), { document: docRefOf(doc), chunks, total_chunks: all.length });
    }),
  );
}
