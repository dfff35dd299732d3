import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { faqHitsToResults } from "@/lib/faq/results";
import { getFaqStore } from "@/lib/faq/store";
import { TOOL } from "@/lib/tools/names";
import { searchResultSchema } from "@/lib/tools/search-result";
import { READ_ONLY } from "./annotations";
import { perKbNames, type ToolContext, toolResult } from "./context";
import { registerReadTool } from "./register";
import { inputSchemaFor as searchInputSchemaFor } from "./search-knowledge";

const name = TOOL.searchFaq;

const MAX_FAQ_TOP_K = 20;
const DEFAULT_FAQ_TOP_K = 5;

const inputSchemaFor = perKbNames((kbNames) => {
  const base = searchInputSchemaFor(kbNames).shape;
  return z.strictObject({
    query: base.query,
    top_k: z
      .number({ error: "top_k must be a number" })
      .int("top_k must be a whole number")
      .min(1, `top_k must be between 1 and ${MAX_FAQ_TOP_K}`)
      .max(MAX_FAQ_TOP_K, `top_k must be between 1 and ${MAX_FAQ_TOP_K}`)
      .default(DEFAULT_FAQ_TOP_K)
      .describe(`How many FAQ entries to return, 1–${MAX_FAQ_TOP_K}. Default ${DEFAULT_FAQ_TOP_K}.`),
    kb: base.kb,
  });
});

const outputSchema = z.object({
  results: z.array(
    searchResultSchema.extend({
      heading: z.string().describe("The FAQ question"),
      text: z.string().describe("The FAQ answer (Markdown)"),
      score: z.number().describe("How well the query matches the question, 0–1"),
      strong: z.boolean().describe("Matches strongly enough to answer the question on its own"),
    }),
  ),
});

const config = {
  title: "Search the FAQ",
  description:
    "Search the curated FAQ entries (question–answer pairs the team maintains) for the question asked, in any " +
    "language. Returns the closest entries with their answer, score and source. search_knowledge already puts " +
    "strongly matching FAQ entries first; use this to look only at the FAQ.",
  outputSchema,
  input: inputSchemaFor,
  annotations: READ_ONLY,
};

export function registerSearchFaq(server: McpServer, ctx: ToolContext) {
  registerReadTool(server, ctx, name, config, async (args, { kb, store }) => {
    const kbs = kb === undefined ? undefined : Array.isArray(kb) ? kb : [kb];
    const hits = await (await getFaqStore(store)).search(args.query, { kbs, limit: args.top_k });
    const shaped = await faqHitsToResults(store, hits);
    const results = shaped.map((r, i) => ({ ...r, strong: hits[i].strong }));
    const text = results.length
      ? [
          `${results.length} FAQ entr${results.length === 1 ? "y" : "ies"} for "${args.query}":`,
          ...results.map(
            (r) =>
              `[${r.ref}] ${r.heading}\n(faq_id: ${r.faq!.id}, kb: ${r.kb}, score: ${Number(r.score.toFixed(3))}${r.strong ? ", strong match" : ""}` +
              `${r.faq!.source.chunk_id ? `, source chunk_id: ${r.faq!.source.chunk_id}` : ""})\n${r.text}`,
          ),
        ].join("\n\n")
      : `No FAQ entry matches "${args.query}". Try search_knowledge for passages of the documents.`;
    return toolResult(text, { results });
  });
}
