/**
 * What the search tools return (structuredContent.results[]): one schema for the MCP tools' output, the
 * chat's citation registry and the UI. Browser-safe.
 */
import { z } from "zod";

const faqSource = z.object({
  document_id: z.string().nullable(),
  chunk_id: z.string().nullable().describe("The passage the entry was taken from; read it with read_document"),
  label: z.string(),
});

export const searchResultSchema = z.object({
  ref: z.number().int().min(1).describe("Citation number, 1-based, in rank order"),
  chunk_id: z.string().describe("Pass to read_document to read the surrounding text"),
  document: z.object({ id: z.string(), title: z.string(), source: z.string() }),
  kb: z.string(),
  heading: z.string().describe('Section path inside the document, joined with " › "; empty if none'),
  text: z.string(),
  score: z.number().describe("Relevance, higher is better; only comparable within one search"),
  page: z.number().int().optional().describe("1-based page, for paginated documents"),
  context_before: z
    .string()
    .optional()
    .describe(
      "Whole sentences just before the passage in its document (at most ~300 characters), ending with the start of the sentence the passage was cut inside, or with a line break when the passage starts a line",
    ),
  context_after: z
    .string()
    .optional()
    .describe(
      "Whole sentences just after the passage in its document (at most ~300 characters), starting with the rest of the sentence the passage was cut inside, or with a line break when the passage ends a line",
    ),
  type: z.enum(["chunk", "faq"]).optional().describe('"faq" for a curated FAQ entry (its answer is `text`); passages have no type'),
  faq: z
    .object({
      id: z.string(),
      question: z.string(),
      uri: z.string().describe("Resource URI of the FAQ entry"),
      source: faqSource,
    })
    .optional(),
});

export const searchOutputSchema = z.object({ results: z.array(searchResultSchema) });

export type SearchResult = z.infer<typeof searchResultSchema>;
export type FaqSearchResult = SearchResult & { type: "faq"; faq: NonNullable<SearchResult["faq"]> };
