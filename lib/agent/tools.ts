/**
 * Wraps the tools the MCP client returns so that, within one turn,
 * - every retrieved chunk gets one citation number and the model reads results under those numbers;
 * - a repeated identical call is not run again but ends the loop (see LoopDetector);
 * - a failing MCP endpoint is remembered so the turn ends with an actionable error;
 * - the knowledge bases every result drew from are recorded (lib/tools/result-kbs.ts): the stored answer's
 *   attribution, which a share link checks its reader against.
 */
import type { Tool, ToolSet } from "ai";
import { MAX_QUERY_CHARS } from "@/lib/limits";
import { fitQuery } from "@/lib/retrieve/limits";
import { formatSearchResults } from "@/lib/tools/format";
import { kbsOfToolResult } from "@/lib/tools/result-kbs";
import type { SearchResult } from "@/lib/tools/search-result";
import { type Citation, CitationRegistry, extractRetrieved } from "./citations";
import { LoopDetector, REPEATED_CALL_RESULT } from "./loop";

export interface TurnState {
  registry: CitationRegistry;
  loop: LoopDetector;
  /** The first MCP transport/protocol failure of the turn, if any. */
  mcpFailure: unknown;
  /** The knowledge bases the turn's tool results drew from. */
  kbs: Set<string>;
  /** A tool result whose knowledge bases could not be told (an error, an unknown shape): it may hold any of them. */
  unattributed: boolean;
}

export function newTurn(): TurnState {
  return { registry: new CitationRegistry(), loop: new LoopDetector(), mcpFailure: null, kbs: new Set(), unattributed: false };
}

/** Records where the result of tool `name` came from, as it arrives and before anyone sees it. */
export function attribute(turn: TurnState, name: string, result: unknown): void {
  const kbs = kbsOfToolResult(name, result);
  if (kbs) for (const kb of kbs) turn.kbs.add(kb);
  else turn.unattributed = true;
}

/** An MCP tools/call result, as the MCP client's tools return it. */
export interface CallToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * The results of each search output that turnSearchResult made, already typed: the model output takes them from
 * here, so a search's structuredContent is parsed once (extractRetrieved, as it comes from the MCP client).
 */
const turnResults = new WeakMap<object, SearchResult[]>();

/**
 * A search's result under the turn's citation numbers: the structured results carry `ref` = the turn-wide
 * number, and the text is the MCP server's own formatting (lib/tools/format) of those results.
 */
export function turnSearchResult(citations: readonly Citation[], query: string): CallToolResultLike {
  const results: SearchResult[] = citations.map(({ n, ...c }) => ({ ...c, ref: n }));
  const out = { content: [{ type: "text", text: formatSearchResults(results, query) }], structuredContent: { results }, isError: false };
  turnResults.set(out, results);
  return out;
}

/** A tool input whose `query` is longer than a search takes, with the query fitted (so no question length fails inside a tool). */
function fittedInput(input: unknown): unknown {
  const query = (input as { query?: unknown } | null)?.query;
  return typeof query === "string" && query.length > MAX_QUERY_CHARS ? { ...(input as object), query: fitQuery(query) } : input;
}

function queryOf(input: unknown): string {
  const query = (input as { query?: unknown } | null)?.query;
  return typeof query === "string" ? query : "";
}

export function wrapTools(tools: ToolSet, turn: TurnState, onCitations: () => void): ToolSet {
  const out: ToolSet = {};
  for (const [name, original] of Object.entries(tools)) {
    const execute = original.execute;
    if (!execute) {
      out[name] = original;
      continue;
    }
    const wrapped = async (raw: unknown, options: Parameters<NonNullable<Tool["execute"]>>[1]) => {
      const input = fittedInput(raw);
      if (turn.loop.check(name, input)) {
        return { content: [{ type: "text", text: REPEATED_CALL_RESULT }], structuredContent: { repeated: true }, isError: false };
      }
      let res: CallToolResultLike;
      try {
        res = (await execute(input, options)) as CallToolResultLike;
      } catch (err) {
        if (!options?.abortSignal?.aborted) turn.mcpFailure ??= err;
        throw err;
      }
      attribute(turn, name, res);
      const retrieved = res && !res.isError ? extractRetrieved(res.structuredContent) : null;
      if (!retrieved) return res;
      const citations = turn.registry.add(retrieved);
      onCitations();
      return turnSearchResult(citations, queryOf(input));
    };
    out[name] = { ...original, execute: wrapped, toModelOutput: (args) => modelOutputOf(args.output, original, args) } as Tool;
  }
  return out;
}

/** Where a search's structured results ride along in the model's tool-result part (read by the offline model). */
const RESULTS_OPTION = "knowledgeBase";

type ModelOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/**
 * The search results a tool-result part carries (see modelOutputOf); empty when it carries none. The part is
 * this process's own (modelOutputOf put them there, typed): nothing to validate again.
 */
export function resultsOf(output: unknown): SearchResult[] {
  const options = (output as { providerOptions?: Record<string, unknown> } | null)?.providerOptions;
  const carried = options?.[RESULTS_OPTION] as { results?: unknown } | undefined;
  return Array.isArray(carried?.results) ? (carried.results as SearchResult[]) : [];
}

/**
 * What the model reads for a tool result: a text-only MCP result as plain text (the generic MCP conversion
 * yields a list of content parts, which Chat Completions providers send as a JSON string with escaped
 * newlines), with a search's structured results (as turnSearchResult typed them) alongside under RESULTS_OPTION.
 */
export function modelOutputOf(
  output: unknown,
  original?: Tool,
  args?: Parameters<NonNullable<Tool["toModelOutput"]>>[0],
): ModelOutput | PromiseLike<ModelOutput> {
  const res = output as CallToolResultLike | undefined;
  const content = res?.content;
  if (Array.isArray(content) && content.length > 0 && content.every((c) => c?.type === "text" && typeof c.text === "string")) {
    const value = content.map((c: { text: string }) => c.text).join("\n\n");
    if (res?.isError) return { type: "error-text", value };
    const results = res && turnResults.get(res);
    return results ? { type: "text", value, providerOptions: { [RESULTS_OPTION]: { results } } } : { type: "text", value };
  }
  if (original?.toModelOutput && args) return original.toModelOutput(args);
  return { type: "json", value: (output ?? null) as never };
}
