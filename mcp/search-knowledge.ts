import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { strongFaqs, withFaqsFirst } from "@/lib/faq/results";
import { MAX_QUERY_CHARS } from "@/lib/limits";
import { DEFAULT_TOP_K, MAX_TOP_K, searchKnowledge } from "@/lib/retrieve";
import { hitContexts } from "@/lib/retrieve/context";
import { formatSearchResults, toSearchResults } from "@/lib/tools/format";
import { TOOL } from "@/lib/tools/names";
import { documentIdsSchema } from "@/lib/tools/scope-query";
import { searchOutputSchema } from "@/lib/tools/search-result";
import { READ_ONLY } from "./annotations";
import * as citationView from "./citation-view";
import {
  catalogKbNames,
  guardedRead,
  kbArgument,
  perKbNames,
  type ReadTarget,
  searchedDocuments,
  type ToolContext,
  toolResult,
} from "./context";

const name = TOOL.searchKnowledge;

export const queryField = z
  .string({ error: (issue) => (issue.input === undefined ? "query is required" : "query must be a string") })
  .trim()
  .min(1, "query must not be empty")
  .max(MAX_QUERY_CHARS, `query must be at most ${MAX_QUERY_CHARS} characters`)
  .describe("The question or key terms to look up, in any language (e.g. the user's question as asked).");

export const topKField = z
  .number({ error: "top_k must be a number" })
  .int("top_k must be a whole number")
  .min(1, `top_k must be between 1 and ${MAX_TOP_K}`)
  .max(MAX_TOP_K, `top_k must be between 1 and ${MAX_TOP_K}`)
  .default(DEFAULT_TOP_K)
  .describe(`How many passages to return, 1–${MAX_TOP_K}. Default ${DEFAULT_TOP_K}.`);

function kbField(kbNames?: readonly string[]) {
  const listed = kbNames && kbNames.length > 0 ? ` (${kbNames.join(", ")})` : "";
  return kbArgument(kbNames, `Only search this knowledge base${listed}. Omit to search all.`);
}

export const documentsField = documentIdsSchema
  .optional()
  .describe("Only search these documents (ids from list_documents or earlier results). Omit to search all.");

export const inputSchemaFor = perKbNames((kbNames) =>
  z.strictObject({ query: queryField, top_k: topKField, kb: kbField(kbNames), documents: documentsField }),
);

const inputSchema = inputSchemaFor();

export const outputSchema = searchOutputSchema;

const config = {
  title: "Search the knowledge base",
  description:
    "Search the knowledge base (the documents ingested into this app: handbooks, FAQs, manuals…) for passages " +
    "that answer a question. Works in any language, including Chinese and English. Call it before answering any " +
    "question about the organisation, its policies or its products, and answer only from what it returns. " +
    "Returns the best passages in rank order, each numbered [1], [2]… with its document title, section heading " +
    "and chunk_id; cite them by that number. If a passage is cut off, call read_document with its chunk_id. " +
    "If nothing relevant comes back, rephrase with other keywords once, then say the knowledge base does not cover it.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY,
  // MCP Apps: hosts with the extension show the results as source cards; others ignore it.
  _meta: citationView.toolMeta,
};

/** Runs a search and shapes the tool result (shared with the per-knowledge-base tools). */
export async function runSearch(
  ctx: ToolContext,
  args: { query: string; top_k: number; documents?: readonly string[] },
  { kb, store }: ReadTarget,
): Promise<CallToolResult> {
  const documents = await searchedDocuments(ctx, store, args.documents);
  // FAQ entries are no document: a search limited to picked documents leaves them out.
  const faqs = documents ? Promise.resolve([]) : strongFaqs(store, args.query, kb); // in parallel with the passage search
  const hits = await searchKnowledge(store, { query: args.query, topK: args.top_k, kb, documents });
  const results = withFaqsFirst(await faqs, toSearchResults(hits, await hitContexts(store, hits)), args.top_k);
  let text = formatSearchResults(results, args.query, typeof kb === "string" ? kb : undefined);
  if (results.length === 0 && typeof kb === "string" && !ctx.kbs && !ctx.catalog) {
    const kbs = await store.listKbs();
    if (!kbs.includes(kb)) {
      text += ` There is no knowledge base named "${kb}"; available: ${kbs.map((k) => `"${k}"`).join(", ") || "none"}.`;
    }
  }
  return toolResult(text, { results });
}

export function registerSearchKnowledge(server: McpServer, ctx: ToolContext) {
  const kbNames = catalogKbNames(ctx);
  server.registerTool(
    name,
    { ...config, inputSchema: inputSchemaFor(kbNames) },
    guardedRead(name, ctx, (args, target) => runSearch(ctx, args, target)),
  );
}
