/**
 * Which knowledge bases a tool result's content came from, read off the structured content each reading tool
 * returns (every item it names carries its `kb`). One rule for the chat, which records it as each result
 * arrives, and for the share check of answers stored before that record existed. Browser-safe.
 */
import { z } from "zod";
import { TOOL } from "./names";

const withKb = z.object({ kb: z.string() });

/** Where each reading tool's structured content names the knowledge bases of what it returned. */
const searchResults = many(z.object({ results: z.array(withKb) }), (v) => v.results);

const KBS_OF: Readonly<Record<string, (structured: unknown) => string[] | null>> = {
  [TOOL.searchKnowledge]: searchResults,
  [TOOL.searchFaq]: searchResults,
  [TOOL.listDocuments]: many(z.object({ documents: z.array(withKb) }), (v) => v.documents),
  [TOOL.readDocument]: many(z.object({ document: withKb }), (v) => [v.document]),
  [TOOL.fetch]: many(z.object({ metadata: withKb }), (v) => [v.metadata]),
  // `search` (the connectors' copy) names passages by id, title and URL only: its knowledge bases cannot be told.
};

function many<S extends z.ZodType>(schema: S, items: (v: z.infer<S>) => { kb: string }[]) {
  return (structured: unknown): string[] | null => {
    const parsed = schema.safeParse(structured);
    return parsed.success ? [...new Set(items(parsed.data).map((i) => i.kb))].sort() : null;
  };
}

/**
 * The knowledge bases the result of tool `name` drew from; null when they cannot be told (an error, whose text
 * may name a document; a tool or a shape this rule does not know): the caller then counts it as drawing on
 * every knowledge base it could reach.
 */
export function kbsOfToolResult(name: string, result: unknown): string[] | null {
  const r = result as { isError?: unknown; structuredContent?: unknown } | null | undefined;
  if (!r || typeof r !== "object" || r.isError) return null;
  // The search tool of one knowledge base, `search_<slug>` (lib/kb/names.ts), returns search_knowledge's results.
  const of = KBS_OF[name] ?? (name.startsWith("search_") ? searchResults : undefined);
  return of?.(r.structuredContent) ?? null;
}
